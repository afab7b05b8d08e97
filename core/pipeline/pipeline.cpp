#include "pipeline/pipeline.h"

#include <chrono>
#include <cmath>

#include "base/cancel.h"
#include "base/work_progress.h"
#include "io/image_tensor.h"
#include "pipeline/image_assessment.h"
#include "pipeline/memory_check.h"
#include "pipeline/model_sources.h"
#include "pipeline/run_estimate.h"
#include "runtime/device_sync.h"

namespace hs {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
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

// The image as a pipeline saves it: 8-bit, NaN -> 0 (black).
PreviewImage savedImageOf(const torch::Tensor& img, const PreviewImage& shown) {
    Image saved = imageFromTensor(img, PixelRange::MinusOneToOne, false);
    PreviewImage p;
    p.width = saved.width;
    p.height = saved.height;
    p.rgb = std::move(saved.pixels);
    p.nonFinite = shown.nonFinite;
    return p;
}

// [1, C, h, w] -> C*h*w floats, row-major.
std::vector<float> valuesOf(const torch::Tensor& latents) {
    auto t = latents.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    return std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
}

int64_t storedParameterCount(const ComponentSource& source) {
    int64_t n = 0;
    for (const auto& kv : source.weights)
        if (kv.second.is_floating_point()) n += kv.second.numel();
    return n;
}

std::string slotList(const std::vector<ComponentSlot>& slots) {
    std::string s;
    for (size_t i = 0; i < slots.size(); ++i)
        s += (i == 0 ? "" : i + 1 == slots.size() ? " and " : ", ") + slots[i].name;
    return s;
}

}  // namespace

std::unique_ptr<Pipeline> Pipeline::load(const std::string& dir, const PrecisionPlan& userPlan,
                                         const torch::Device& device) {
    return load(dir, ModelFiles{}, userPlan, device);
}

std::unique_ptr<Pipeline> Pipeline::load(const std::string& model, const ModelFiles& with,
                                         const PrecisionPlan& userPlan,
                                         const torch::Device& device) {
    std::unique_ptr<Pipeline> p(new Pipeline());
    p->m_dir = model;
    p->m_files = with;
    p->m_device = device;
    ModelSources sources = openModelSources(model, with);
    p->m_detected = sources.detected;
    p->m_folder = std::move(sources.folder);
    const std::string where = sources.singleFile ? model : model + "/model_index.json";
    p->m_strategy = StrategyRegistry::global().make(p->m_folder.className, where);
    if (sources.singleFile) {
        std::map<std::string, nlohmann::json> configs;
        for (const auto& [slot, c] : sources.components) configs[slot] = c.source.config;
        // What the files could not tell, as the pipeline's own repository says it.
        p->m_strategy->completeSingleFileConfigs(configs);
        for (auto& [slot, c] : sources.components) c.source.config = configs[slot];
        p->m_folder.components.push_back({"scheduler", "diffusers", "", "",
                                          ComponentKind::Scheduler,
                                          p->m_strategy->singleFileSchedulerConfig(configs)});
    }
    const auto wanted = p->m_strategy->componentSlots();
    for (const auto& slot : wanted) {
        auto given = sources.components.find(slot.name);
        const PipelineComponent* c = p->m_folder.find(slot.name);
        if (!c && given == sources.components.end() && slot.required)
            throw PipelineError(
                sources.singleFile
                    ? model + ": no " + slot.name + " in the files given; give it with " +
                          optionForSlot(slot.givenWith.empty() ? slot.name : slot.givenWith) +
                          (slot.model ? " FILE" : " DIR") +
                          (slot.whereFound.empty() ? "" : " (" + slot.whereFound + ")")
                    : model + "/model_index.json: no '" + slot.name +
                          "' component; this pipeline type needs " + slotList(wanted));
        if (!slot.model || (!c && given == sources.components.end())) continue;
        Part part;
        part.slot = slot;
        part.opened = given != sources.components.end() ? std::move(given->second)
                                                        : openFolderComponent(c->dir);
        part.family = FamilyRegistry::global().require(
            part.opened.className,
            part.opened.source.dir + (given != sources.components.end() ? "" : "/config.json"));
        p->m_parts.push_back(std::move(part));
    }
    p->m_plan = p->planFor(userPlan);
    p->m_policy.emplace(p->m_plan, device);
    const LoadModeChoice choice = p->chooseModes(p->m_plan);
    for (size_t i = 0; i < p->m_parts.size(); ++i) {
        p->m_parts[i].mode = choice.modes[i];
        p->loadPart(p->m_parts[i], *p->m_policy);
    }
    p->m_memoryPlan = p->memoryPlanOf(choice);
    p->attach();
    return p;
}

RunDefaults Pipeline::defaults() const {
    RunDefaults d = m_strategy->defaults();
    d.comfySamplers = m_strategy->runsComfySamplers();
    return d;
}

PrecisionPlan Pipeline::planFor(const PrecisionPlan& userPlan) const {
    std::vector<std::pair<std::string, Format>> stored;
    for (const auto& part : m_parts)
        stored.emplace_back(part.slot.name, storedFormatOf(part.opened.source.weights));
    return hs::effectivePlan(stored, userPlan);
}

LoadModeChoice Pipeline::chooseModes(const PrecisionPlan& plan) const {
    std::vector<ComponentWeights> weights;
    for (const auto& part : m_parts)
        weights.push_back({part.slot.name, &part.opened.source.weights, part.family->blockStems});
    const Execution bf16 = m_policy ? m_policy->bf16Execution() : cpuBf16Execution();
    return chooseLoadModes(m_dir, weights, PrecisionPolicy(plan, m_device, bf16));
}

MessageText Pipeline::memoryPlanOf(const LoadModeChoice& choice) const {
    MessageText m = choice.descriptionMessage;
    if (streams()) m.push_back({"memory.text_encoders_freed", {}});
    return m;
}

bool Pipeline::streams() const {
    for (const auto& part : m_parts)
        if (part.mode == LoadMode::Streamed) return true;
    return false;
}

void Pipeline::loadPart(Part& part, const PrecisionPolicy& policy) {
    part.component.reset();  // free the old weights before loading the new ones
    part.component =
        loadComponent(*part.family, part.opened.source, policy, part.slot.name, part.mode);
}

void Pipeline::reloadFreedParts() {
    bool any = false;
    for (auto& part : m_parts)
        if (!part.component) {
            loadPart(part, *m_policy);
            any = true;
        }
    if (any) attach();
}

void Pipeline::freeTextEncoders() {
    for (auto& part : m_parts)
        if (part.slot.role == Role::TextEncoder || part.slot.role == Role::TextEncoder2)
            part.component.reset();
}

void Pipeline::attach() {
    std::map<std::string, std::shared_ptr<Component>> components;
    m_vae = nullptr;
    for (auto& part : m_parts) {
        components[part.slot.name] = part.component;
        if (part.slot.role == Role::Vae) m_vae = dynamic_cast<VaeComponent*>(part.component.get());
    }
    if (!m_vae) throw PipelineError(m_dir + ": this pipeline has no VAE to decode its latents");
    m_strategy->attach(components, m_folder);
    describe();
}

void Pipeline::describe() {
    m_infos.clear();
    for (auto& part : m_parts) {
        ComponentInfo c;
        c.name = part.slot.name;
        c.role = part.slot.role;
        c.className = part.opened.className;
        storedFormatOf(part.opened.source.weights, &c.storedDtype);
        // A streamed component's blocks hold placeholders: count the checkpoint's tensors.
        c.parameters = part.mode == LoadMode::Streamed ? storedParameterCount(part.opened.source)
                                                       : parameterCount(part.component->module());
        c.streamed = part.mode == LoadMode::Streamed;
        c.format = m_plan.resolve(c.name, Format::FP32);
        c.execution = m_policy->executionOf(c.format);
        m_infos.push_back(c);
    }
}

std::vector<std::string> Pipeline::setPlan(const PrecisionPlan& userPlan) {
    const PrecisionPlan plan = planFor(userPlan);
    const LoadModeChoice choice = chooseModes(plan);
    const PrecisionPolicy policy(plan, m_device, m_policy->bf16Execution());
    std::vector<std::string> reloaded;
    for (size_t i = 0; i < m_parts.size(); ++i) {
        Part& part = m_parts[i];
        // A component keeps its weights when it is held the same way and every parameter's
        // module is stored as before: the same format, execution and fp8 rounding.
        bool same = part.component && part.mode == choice.modes[i];
        if (same)
            for (const auto& kv : part.component->module().named_parameters(true)) {
                const auto dot = kv.key().rfind('.');
                const std::string path =
                    part.slot.name +
                    (dot == std::string::npos ? "" : "." + kv.key().substr(0, dot));
                const auto& a = m_policy->info(path);
                const auto& b = policy.info(path);
                if (a.format != b.format || a.execution != b.execution ||
                    a.fp8Weights != b.fp8Weights) {
                    same = false;
                    break;
                }
            }
        if (same) continue;
        if (part.slot.role == Role::Vae) m_rgbMap.reset();  // a fitted map: fit its new format
        part.mode = choice.modes[i];
        loadPart(part, policy);
        reloaded.push_back(part.slot.name);
    }
    m_memoryPlan = memoryPlanOf(choice);
    m_plan = plan;
    m_policy.emplace(policy);
    attach();
    return reloaded;
}

int Pipeline::latentChannels() const {
    return m_vae->latentChannels();
}

int Pipeline::sizeMultiple() const {
    return m_strategy->sizeMultiple();
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
    if ((!c.comfySampler.empty() || !c.comfyScheduler.empty()) && !m_strategy->runsComfySamplers())
        throw PipelineError("ComfyUI's samplers and schedules ('" + c.comfySampler + "', '" +
                            c.comfyScheduler +
                            "') do not run on this model: it runs its own scheduler");
    m_strategy->validate(c);
}

const LatentRgbMap& Pipeline::latentRgbMap() {
    if (m_rgbMap) return *m_rgbMap;
    LatentRgbMap map = m_vae->latentRgbMap();
    if (!map.defined()) {
        try {
            ProbeContext quiet(*m_policy, ProbeLevel::Off);
            map = fitLatentRgbMap(*m_vae, quiet, m_device);
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception& e) {
            map = LatentRgbMap{
                {}, std::string("none: a map fitted from the VAE's decodes failed: ") + e.what()};
        }
    }
    m_rgbMap = std::move(map);
    return *m_rgbMap;
}

PreviewImage Pipeline::projectedPreview(const torch::Tensor& latents, int step) {
    const LatentRgbMap& map = latentRgbMap();
    PreviewImage p;
    if (map.defined()) {
        p = previewOf(projectLatentsToRgb(map, latents), step, false);
    } else {
        // Never a blank tile without a word: grey at the latents' size, `projection` says why.
        p.width = int(latents.size(-1));
        p.height = int(latents.size(-2));
        p.step = step;
        p.rgb.assign(size_t(p.width) * p.height * 3, 128);
        p.nonFinite.assign(size_t(p.width) * p.height, 0);
    }
    p.projection = map.origin;
    return p;
}

torch::Tensor Pipeline::decode(const torch::Tensor& latents, ProbeContext& probes) {
    torch::NoGradGuard g;
    auto z = m_vae->unscale(latents.to(torch::kFloat32));
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
    ProbeContext quiet(*m_policy, ProbeLevel::Off);
    return previewOf(decode(x0, quiet)[0], s.step, true);
}

namespace {

// The record and observer side of a run: statistics, previews, first failure.
class RunRecorder {
public:
    RunRecorder(RunRecord& rec, ProbeContext& probes, RunObserver* obs)
        : m_rec(rec), m_probes(probes), m_obs(obs) {}

    void stage(const std::string& s) {
        if (m_obs) m_obs->onStage(s);
    }
    std::vector<ProbeRecord> collect() {
        auto r = m_probes.takeRecords();
        if (!m_reportedFirst && m_probes.firstNonFinite()) {
            m_reportedFirst = true;
            if (m_obs) m_obs->onFirstNonFinite(*m_probes.firstNonFinite());
        }
        m_rec.probes.insert(m_rec.probes.end(), r.begin(), r.end());
        return r;
    }
    void preview(PreviewImage p) {
        m_rec.previews.push_back(std::move(p));
        if (m_obs) m_obs->onPreview(m_rec.previews.back());
    }
    void step(StepRecord s) {
        auto probesOfStep = collect();
        m_rec.steps.push_back(std::move(s));
        if (m_obs) m_obs->onStep(m_rec.steps.back(), probesOfStep);
    }

private:
    RunRecord& m_rec;
    ProbeContext& m_probes;
    RunObserver* m_obs;
    bool m_reportedFirst = false;
};

StepRecord stepRecordOf(const DenoiseStep& d, int i, bool keepLatents) {
    StepRecord s;
    s.step = i;
    s.sigma = d.sigma;
    s.timestep = d.timestep;
    s.latent = computeStats(d.next);
    s.velocity = computeStats(d.modelOutput);
    s.denoised = computeStats(d.denoised);
    if (keepLatents) {
        s.latentValues = valuesOf(d.next);
        s.denoisedValues = valuesOf(d.denoised);
        s.latentChannels = int(d.next.size(1));
        s.latentHeight = int(d.next.size(2));
        s.latentWidth = int(d.next.size(3));
    }
    return s;
}

// The decoded image [3, H, W] in [-1, 1], its statistics, previews and verdict, into `rec`.
void recordImage(const torch::Tensor& image, RunRecord& rec) {
    rec.image = computeStats(image);
    rec.finalImage = previewOf(image, -1, true);
    rec.savedImage = savedImageOf(image, *rec.finalImage);
    const ImageAssessment verdict = assessImage(image);
    rec.verdict = verdictName(verdict.verdict);
    rec.verdictExplanation = verdict.explanation;
    rec.verdictMessage = verdict.message;
}

}  // namespace

std::optional<std::string> Pipeline::vaeUpcastNote() const {
    if (!m_vae->forceUpcast()) return std::nullopt;
    for (const ComponentInfo& c : m_infos)
        if (c.role == Role::Vae && c.format == Format::FP16)
            return "the VAE config sets force_upcast: diffusers' pipelines would decode this "
                   "fp16 VAE in fp32; this run decodes in fp16, as A1111, ComfyUI and a VAE "
                   "cast by hand do";
    return std::nullopt;
}

void Pipeline::estimateAfterStep(RunEstimator& estimator, const torch::Tensor& x0,
                                 double decodeSeconds, int steps, int decodeEvery) {
    if (decodeSeconds < 0)
        decodeSeconds = cornerDecodeSeconds(
            x0,
            [&](const torch::Tensor& corner) {
                ProbeContext quiet(*m_policy, ProbeLevel::Off);
                decode(corner, quiet);
                synchronizeDevice(m_device);
            },
            !m_device.is_cpu());
    uint64_t weights = 0;
    for (auto& part : m_parts)
        if (part.component) weights += heldTensorBytes(part.component->module());
    estimator.estimate(steps, decodeSeconds,
                       decodesAfterStep(steps, decodeEvery, estimateStepIndex(steps) + 1), weights,
                       m_device.is_cpu());
}

RunRecord Pipeline::run(const RunConfig& cfg, RunObserver* obs, const std::atomic<bool>* cancel) {
    torch::NoGradGuard noGrad;
    validate(cfg);
    const auto t0 = Clock::now();
    RunRecord rec;
    rec.config = cfg;
    rec.effectivePlan = m_plan.toString();
    rec.components = m_infos;
    ProbeContext probes(*m_policy, cfg.probeLevel);
    RunRecorder recorder(rec, probes, obs);
    RunEstimator estimator;  // time and memory after step 2 (pipeline/run_estimate.h)
    auto stop = [&] {
        rec.cancelled = true;
        recorder.collect();  // the points that ran before the cancel
        rec.firstNonFinite = probes.firstNonFinite();
        rec.seconds = secondsSince(t0);
        return rec;
    };
    // The flag is read at every probe point and weight conversion (base/cancel.h), so a
    // cancel takes effect within one block of the text encoder, the denoiser or the VAE.
    CancelScope scope(cancel);
    try {
        reloadFreedParts();
        auto denoising = m_strategy->start(cfg, m_device);
        rec.notes = denoising->notes();
        if (const auto note = vaeUpcastNote()) rec.notes.push_back(*note);

        recorder.stage("text encoder");
        {
            const WorkStage encoding(WorkKind::TextEncoding, "text encoder");
            rec.textEmbedding = computeStats(denoising->encodePrompt(probes));
        }
        recorder.collect();
        // A model too large for memory gives the denoiser the encoders' memory.
        if (streams()) freeTextEncoders();
        throwIfCancelled();

        recorder.stage("denoising");
        for (int i = 0; i < denoising->numSteps(); ++i) {
            throwIfCancelled();
            probes.setStep(i);
            if (i == 0) estimator.beforeFirstStep();
            const auto stepStart = Clock::now();
            const DenoiseStep d = denoising->step(i, probes);
            synchronizeDevice(m_device);  // the step's time, not its kernels' launch
            StepRecord s = stepRecordOf(d, i, cfg.keepLatents);
            s.scheduleSteps = denoising->numSteps();
            s.seconds = secondsSince(stepStart);
            estimator.stepTimed(s.seconds);
            recorder.step(std::move(s));
            recorder.preview(projectedPreview(d.denoised, i));
            double decodeSeconds = -1;  // a full decode of this step, timed when it ran
            if (cfg.decodeEvery > 0 && (i + 1) % cfg.decodeEvery == 0) {
                ProbeContext quiet(*m_policy, ProbeLevel::Off);
                const auto decodeStart = Clock::now();
                recorder.preview(previewOf(decode(d.denoised, quiet)[0], i, true));
                decodeSeconds = secondsSince(decodeStart);
            }
            if (i == estimateStepIndex(denoising->numSteps()) && estimator.active()) {
                estimateAfterStep(estimator, d.denoised, decodeSeconds, denoising->numSteps(),
                                  cfg.decodeEvery);
                rec.estimate = estimator.made();
            }
        }

        recorder.stage("vae decode");
        probes.setStep(-1);
        torch::Tensor image;
        {
            const WorkStage decoding(WorkKind::VaeDecoding, "vae decode");
            image = decode(denoising->latents(), probes);  // [1, 3, H, W]
        }
        recorder.collect();
        recordImage(image[0], rec);
        if (obs) obs->onPreview(*rec.finalImage);
    } catch (const Cancelled&) {
        return stop();
    }
    rec.firstNonFinite = probes.firstNonFinite();
    rec.seconds = secondsSince(t0);
    estimator.finish(rec.seconds);
    return rec;
}

}  // namespace hs
