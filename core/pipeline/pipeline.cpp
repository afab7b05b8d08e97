#include "pipeline/pipeline.h"

#include <chrono>
#include <cmath>

#include "io/image_tensor.h"
#include "models/flux/flux_latents.h"
#include "pipeline/image_assessment.h"
#include "pipeline/memory_check.h"
#include "sampling/flow_match_sampler.h"

namespace hs {

namespace {

using Clock = std::chrono::steady_clock;

Format storedFormatOf(const TensorSet& set, std::string& dtypeName) {
    std::map<StDType, int64_t> n;
    for (const auto& name : set.names()) n[set.info(name).dtype] += set.info(name).numel();
    StDType best = StDType::F32;
    int64_t most = -1;
    for (const auto& kv : n) {
        const bool floating = kv.first == StDType::F32 || kv.first == StDType::F16 ||
                              kv.first == StDType::BF16 || kv.first == StDType::F64;
        if (floating && kv.second > most) best = kv.first, most = kv.second;
    }
    dtypeName = stDTypeName(best);
    if (best == StDType::F16) return Format::FP16;
    if (best == StDType::BF16) return Format::BF16;
    return Format::FP32;
}

const PipelineComponent& need(const PipelineFolder& p, const std::string& name) {
    const PipelineComponent* c = p.find(name);
    if (!c)
        throw PipelineError(p.dir + "/model_index.json: no '" + name +
                            "' component; this pipeline type needs text_encoder, tokenizer, "
                            "transformer, vae and scheduler");
    return *c;
}

int64_t parameterCount(torch::nn::Module& m) {
    int64_t n = 0;
    for (const auto& p : m.parameters()) n += p.numel();
    return n;
}

// PreviewImage from an image tensor [3, H, W] in [-1, 1]: NaN pixels magenta, Inf cyan.
PreviewImage previewOf(const torch::Tensor& img, int step, bool full) {
    auto x = img.detach().to(torch::kFloat32).cpu().contiguous();
    Image im = imageFromTensor(x, PixelRange::MinusOneToOne, true);
    PreviewImage p;
    p.width = im.width;
    p.height = im.height;
    p.step = step;
    p.fullDecode = full;
    p.rgb.resize(size_t(p.width) * p.height * 3);
    p.nonFinite.assign(size_t(p.width) * p.height, 0);
    auto nan = torch::isnan(x).any(0).contiguous();
    auto inf = torch::isinf(x).any(0).contiguous();
    const bool* pn = nan.data_ptr<bool>();
    const bool* pi = inf.data_ptr<bool>();
    for (int i = 0; i < p.width * p.height; ++i) {
        const uint8_t* src = im.pixels.data() + size_t(i) * im.channels;
        uint8_t* dst = p.rgb.data() + size_t(i) * 3;
        for (int c = 0; c < 3; ++c) dst[c] = src[std::min(c, im.channels - 1)];
        if (pn[i]) {
            p.nonFinite[i] = 1;
            dst[0] = 255, dst[1] = 0, dst[2] = 255;
        } else if (pi[i]) {
            p.nonFinite[i] = 2;
            dst[0] = 0, dst[1] = 255, dst[2] = 255;
        }
    }
    return p;
}

// [1, C, h, w] -> C*h*w floats, row-major.
std::vector<float> valuesOf(const torch::Tensor& latents) {
    auto t = latents.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    return std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
}

}  // namespace

std::unique_ptr<Pipeline> Pipeline::load(const std::string& dir, const PrecisionPlan& userPlan,
                                         const torch::Device& device) {
    std::unique_ptr<Pipeline> p(new Pipeline());
    p->m_dir = dir;
    p->m_device = device;
    const PipelineFolder folder = openPipeline(dir);
    if (folder.find("text_encoder_2"))
        throw PipelineError(dir +
                            ": a second text encoder (T5, as in FLUX.1) is not supported "
                            "yet; this build runs single-encoder Flux-style pipelines");
    const ComponentFolder te = openComponent(need(folder, "text_encoder").dir);
    const ComponentFolder tr = openComponent(need(folder, "transformer").dir);
    const ComponentFolder vae = openComponent(need(folder, "vae").dir);
    p->m_tokenizer = ClipTokenizer::fromFolder(need(folder, "tokenizer").dir);
    p->m_scheduler = FlowMatchConfig::fromJson(
        readJsonFile(need(folder, "scheduler").dir + "/scheduler_config.json"));

    const std::pair<const char*, const ComponentFolder*> parts[] = {
        {"text_encoder", &te}, {"transformer", &tr}, {"vae", &vae}};
    for (const auto& part : parts) {
        ComponentInfo info;
        info.name = part.first;
        info.className = part.second->className;
        const Format stored = storedFormatOf(part.second->weights, info.storedDtype);
        p->m_plan.add(part.first, stored);
        p->m_components.push_back(info);
    }
    for (const auto& r : userPlan.rules()) p->m_plan.set(r.pattern, r.format);
    checkWeightsFit(
        dir, {{"text_encoder", &te.weights}, {"transformer", &tr.weights}, {"vae", &vae.weights}},
        p->m_plan, device);

    const ProbeContext loader(p->m_plan, device, ProbeLevel::Off);
    if (tr.className != "FluxTransformer2DModel")
        throw PipelineError(tr.dir + ": transformer class '" + tr.className +
                            "' is not supported (FluxTransformer2DModel is)");
    if (vae.className != "AutoencoderKL")
        throw PipelineError(vae.dir + ": VAE class '" + vae.className + "' is not supported");
    p->m_textEncoder = loadClipText(te.config, weightMapOf(te.weights), loader, "text_encoder");
    p->m_transformer =
        loadFluxTransformer(tr.config, weightMapOf(tr.weights), loader, "transformer");
    p->m_vae = loadAutoencoderKL(vae.config, weightMapOf(vae.weights), loader, "vae");
    p->m_textEncoder->eval();
    p->m_transformer->eval();
    p->m_vae->eval();

    const auto& fc = p->m_transformer->config();
    const auto& tc = p->m_textEncoder->config();
    if (fc.jointAttentionDim != tc.hiddenSize || fc.pooledProjectionDim != tc.hiddenSize)
        throw PipelineError(dir + ": the transformer expects text features of width " +
                            std::to_string(fc.jointAttentionDim) + " / pooled " +
                            std::to_string(fc.pooledProjectionDim) + ", the text encoder gives " +
                            std::to_string(tc.hiddenSize));
    if (fc.inChannels != 4 * p->m_vae->config().latentChannels)
        throw PipelineError(dir + ": transformer in_channels " + std::to_string(fc.inChannels) +
                            " != 4 x VAE latent_channels " +
                            std::to_string(p->m_vae->config().latentChannels));

    torch::nn::Module* mods[] = {p->m_textEncoder.ptr().get(), p->m_transformer.ptr().get(),
                                 p->m_vae.ptr().get()};
    for (size_t i = 0; i < 3; ++i) {
        auto& c = p->m_components[i];
        c.parameters = parameterCount(*mods[i]);
        c.format = p->m_plan.resolve(c.name, Format::FP32);
        c.execution = executionFor(c.format, device);
    }
    if (vae.config.contains("latent_rgb_factors")) {
        const auto f = vae.config["latent_rgb_factors"].get<std::vector<double>>();
        const int64_t c = p->m_vae->config().latentChannels;
        if (int64_t(f.size()) == (c + 1) * 3)
            p->m_rgbFactors =
                torch::tensor(f, torch::kFloat64).to(torch::kFloat32).view({c + 1, 3});
    }
    return p;
}

int Pipeline::latentChannels() const {
    return m_vae->config().latentChannels;
}
int Pipeline::sizeMultiple() const {
    return m_vae->config().downFactor() * 2;
}

void Pipeline::validate(const RunConfig& c) const {
    const int m = sizeMultiple();
    if (c.width <= 0 || c.height <= 0 || c.width % m || c.height % m)
        throw PipelineError("width and height must be positive multiples of " + std::to_string(m) +
                            " for this model (got " + std::to_string(c.width) + " x " +
                            std::to_string(c.height) + ")");
    if (int64_t(c.width) * c.height > 4096LL * 4096LL)
        throw PipelineError("image size " + std::to_string(c.width) + " x " +
                            std::to_string(c.height) + " is beyond the 4096 x 4096 limit");
    if (c.steps < 1 || c.steps > 1000)
        throw PipelineError("steps must be between 1 and 1000 (got " + std::to_string(c.steps) +
                            ")");
    if (!std::isfinite(c.guidance) || c.guidance < 0 || c.guidance > 100)
        throw PipelineError("guidance must be a number between 0 and 100");
}

torch::Tensor Pipeline::projectLatents(const torch::Tensor& latents) const {
    if (!m_rgbFactors.defined()) return {};
    const int64_t c = latents.size(1);
    auto x = latents[0].to(torch::kFloat32).cpu().permute({1, 2, 0});            // [h, w, C]
    auto rgb = torch::matmul(x, m_rgbFactors.slice(0, 0, c)) + m_rgbFactors[c];  // [h, w, 3]
    return rgb.permute({2, 0, 1}).contiguous();                                  // [3, h, w]
}

torch::Tensor Pipeline::decode(const torch::Tensor& latents, ProbeContext& probes) {
    torch::NoGradGuard g;
    auto z = unscaleLatents(latents.to(torch::kFloat32), m_vae->config());
    return m_vae->decode(z, probes).to(torch::kFloat32);  // [1, 3, H, W]
}

PreviewImage Pipeline::decodePreview(const StepRecord& s) {
    const int64_t n = int64_t(s.latentChannels) * s.latentHeight * s.latentWidth;
    if (s.latentChannels != latentChannels() || n <= 0 || int64_t(s.denoisedValues.size()) != n)
        throw PipelineError("step " + std::to_string(s.step + 1) +
                            " has no latents of this model's shape to decode");
    auto x0 = torch::from_blob(const_cast<float*>(s.denoisedValues.data()),
                               {1, s.latentChannels, s.latentHeight, s.latentWidth})
                  .clone()
                  .to(m_device);  // [1, C, h, w]
    ProbeContext quiet(m_plan, m_device, ProbeLevel::Off);
    return previewOf(decode(x0, quiet)[0], s.step, true);
}

RunRecord Pipeline::run(const RunConfig& cfg, RunObserver* obs, const std::atomic<bool>* cancel) {
    torch::NoGradGuard noGrad;
    validate(cfg);
    const auto t0 = Clock::now();
    RunRecord rec;
    rec.config = cfg;
    rec.effectivePlan = m_plan.toString();
    rec.components = m_components;
    auto stage = [&](const std::string& s) {
        if (obs) obs->onStage(s);
    };
    auto isCancelled = [&] { return cancel && cancel->load(); };
    ProbeContext probes(m_plan, m_device, cfg.probeLevel);
    bool reportedFirst = false;
    auto collect = [&] {
        auto r = probes.takeRecords();
        if (!reportedFirst && probes.firstNonFinite()) {
            reportedFirst = true;
            if (obs) obs->onFirstNonFinite(*probes.firstNonFinite());
        }
        rec.probes.insert(rec.probes.end(), r.begin(), r.end());
        return r;
    };

    // Text: [cond, uncond] in one batch when guidance is on.
    stage("text encoder");
    const bool cfgOn = cfg.guidance > 1.0;
    const int L = m_tokenizer->modelMaxLength();
    std::vector<int64_t> ids;
    for (const auto* text : {&cfg.prompt, &cfg.negativePrompt}) {
        auto v = m_tokenizer->encodePadded(*text, L);
        ids.insert(ids.end(), v.begin(), v.end());
        if (!cfgOn) break;
    }
    const int64_t B = cfgOn ? 2 : 1;
    auto idT = torch::tensor(ids, torch::kInt64).view({B, L}).to(m_device);
    auto text = m_textEncoder->forward(idT, probes);
    rec.textEmbedding = computeStats(text.lastHiddenState);
    collect();
    if (isCancelled()) {
        rec.cancelled = true;
        return rec;
    }

    // Noise from the run's own generator: the same seed gives the same image on any device.
    const int64_t h = cfg.height / m_vae->config().downFactor();
    const int64_t w = cfg.width / m_vae->config().downFactor();
    auto gen = at::detail::createCPUGenerator(cfg.seed);
    auto noise = torch::randn({1, latentChannels(), h, w}, gen, torch::kFloat32);
    auto x = packLatents(noise).to(m_device);  // [1, h/2 * w/2, 4C]

    FlowMatchConfig sc = m_scheduler;
    if (cfg.shift) sc.shift = *cfg.shift;
    FlowMatchEulerScheduler scheduler(sc);
    std::optional<double> mu;
    if (sc.useDynamicShifting) mu = calculateShift(x.size(1), sc);
    scheduler.setSigmas(fluxPipelineSigmas(cfg.steps), mu);

    FluxInputs in;
    in.encoderHiddenStates = text.lastHiddenState;
    in.pooledProjections = text.poolerOutput;
    in.imgIds = prepareLatentImageIds(h / 2, w / 2, m_device);
    in.txtIds = prepareTextIds(L, m_device);
    if (m_transformer->config().guidanceEmbeds)
        in.guidance = torch::full({B}, cfg.guidance, torch::TensorOptions().device(m_device));

    stage("denoising");
    auto stepStart = Clock::now();
    auto model = [&](const torch::Tensor& xi, double sigma, int step) {
        probes.setStep(step);
        in.hiddenStates = B == 2 ? torch::cat({xi, xi}) : xi;
        in.timestep = torch::full({B}, sigma, torch::TensorOptions().device(m_device));
        auto v = m_transformer->forward(in, probes).to(torch::kFloat32);
        if (B == 1) return v;
        auto parts = v.chunk(2);
        return parts[1] + cfg.guidance * (parts[0] - parts[1]);  // uncond + g (cond - uncond)
    };
    auto observer = [&](const FlowStepView& v) {
        StepRecord s;
        s.step = v.step;
        s.sigma = v.sigma;
        s.timestep = scheduler.timestep(v.step);
        s.latent = computeStats(v.next);
        s.velocity = computeStats(v.modelOutput);
        s.denoised = computeStats(v.denoised);
        s.seconds = std::chrono::duration<double>(Clock::now() - stepStart).count();
        auto x0 = unpackLatents(v.denoised, h, w);  // [1, C, h, w]
        if (cfg.keepLatents) {
            s.latentValues = valuesOf(unpackLatents(v.next, h, w));
            s.denoisedValues = valuesOf(x0);
            s.latentChannels = latentChannels();
            s.latentHeight = int(h);
            s.latentWidth = int(w);
        }
        auto probesOfStep = collect();
        rec.steps.push_back(s);
        if (obs) obs->onStep(s, probesOfStep);
        auto proj = projectLatents(x0);
        if (proj.defined()) {
            rec.previews.push_back(previewOf(proj, v.step, false));
            if (obs) obs->onPreview(rec.previews.back());
        }
        if (cfg.decodeEvery > 0 && (v.step + 1) % cfg.decodeEvery == 0) {
            ProbeContext quiet(m_plan, m_device, ProbeLevel::Off);
            rec.previews.push_back(previewOf(decode(x0, quiet)[0], v.step, true));
            if (obs) obs->onPreview(rec.previews.back());
        }
        stepStart = Clock::now();
    };
    auto result = sampleFlowMatch(scheduler, x, model, cancel, observer);
    if (result.cancelled) {
        rec.cancelled = true;
        rec.firstNonFinite = probes.firstNonFinite();
        rec.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        return rec;
    }

    stage("vae decode");
    probes.setStep(-1);
    auto image = decode(unpackLatents(result.latents, h, w), probes);  // [1, 3, H, W]
    collect();
    rec.image = computeStats(image);
    rec.finalImage = previewOf(image[0], -1, true);
    {
        Image saved = imageFromTensor(image[0], PixelRange::MinusOneToOne, false);
        PreviewImage p;
        p.width = saved.width;
        p.height = saved.height;
        p.rgb = std::move(saved.pixels);
        p.nonFinite = rec.finalImage->nonFinite;
        rec.savedImage = std::move(p);
    }
    const ImageAssessment verdict = assessImage(image[0]);
    rec.verdict = verdictName(verdict.verdict);
    rec.verdictExplanation = verdict.explanation;
    if (obs) obs->onPreview(*rec.finalImage);
    rec.firstNonFinite = probes.firstNonFinite();
    rec.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return rec;
}

}  // namespace hs
