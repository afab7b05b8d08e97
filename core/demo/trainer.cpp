#include "demo/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "demo/adamw.h"
#include "demo/dataset.h"
#include "demo/demo_config.h"
#include "demo/demo_export.h"
#include "demo/demo_tokenizer.h"
#include "demo/train_models.h"
#include "io/safetensors.h"

namespace hs::demo {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// Learning rate: linear warm-up, then cosine to 10% at the last step.
double lrAt(double peak, int step, int total, int warmup) {
    if (step < warmup) return peak * double(step + 1) / double(warmup);
    double p = double(step - warmup) / double(std::max(1, total - warmup));
    return peak * (0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * std::min(1.0, p))));
}

std::string fmt(double v, int prec = 4) {
    std::ostringstream s;
    s.precision(prec);
    s << v;
    return s.str();
}

// Finite differences along H and W: an L1 loss on them sharpens the VAE's edges.
torch::Tensor gradLoss(const torch::Tensor& a, const torch::Tensor& b) {
    using torch::indexing::Slice;
    auto dx = [](const torch::Tensor& t) {
        return t.index({Slice(), Slice(), Slice(), Slice(1)}) -
               t.index({Slice(), Slice(), Slice(), Slice(0, -1)});
    };
    auto dy = [](const torch::Tensor& t) {
        return t.index({Slice(), Slice(), Slice(1)}) - t.index({Slice(), Slice(), Slice(0, -1)});
    };
    return (dx(a) - dx(b)).abs().mean() + (dy(a) - dy(b)).abs().mean();
}

// [B, 1, S, S]: 1 where a pixel differs from its scene's background colour (the objects and
// their anti-aliased edges), 0 elsewhere.
torch::Tensor objectMask(const Batch& batch) {
    std::vector<float> bg;
    for (const auto& sc : batch.scenes)
        for (float c : palette()[sc.background].rgb) bg.push_back(c * 2 - 1);
    auto bgt = torch::tensor(bg).view({-1, 3, 1, 1});
    return ((batch.images - bgt).abs().sum(1, true) > 0.05).to(torch::kFloat32);
}

struct State {
    int phase = 0;  // 0 VAE, 1 transformer, 2 VAE decoder, 3 done
    int step = 0;
    double scaling = 1, shift = 0;
    std::vector<double> rgb;
};

const char* kStateFile = "state.safetensors";

// KL weight on the per-element mean, against the per-pixel mean reconstruction loss: 1e-6 makes
// the KL/reconstruction ratio per element 1.2e-5 (12288 pixels, 1024 latent values), close to
// LDM's 1e-6 on sums. 1e-4 (a 1000x stronger prior) kept the posterior noisy (std ~0.4): after
// 700 steps the decoder gave blobs of the wrong colour at 18 dB.
constexpr double kVaeKlWeight = 1e-6;

// What a resumed run must share with the one that saved the state to reproduce it.
std::string recipeOf(const TrainOptions& o) {
    std::ostringstream r;
    r << "seed=" << o.seed << ";vae=" << o.vaeSteps << "x" << o.vaeBatch << "@" << o.vaeLr
      << ";dit=" << o.ditSteps << "x" << o.ditBatch << "@" << o.ditLr << ";ema=" << o.emaDecay
      << ";dropout=" << o.captionDropout << ";scenes=" << o.encodedScenes
      << ";decoder=" << o.decoderSteps << "x" << o.decoderBatch << "@" << o.decoderLr;
    return r.str();
}

void saveState(const fs::path& dir, const std::string& recipe, const State& s, TrainModels& m,
               const AdamW* opt, const WeightMap* ema) {
    WeightMap all;
    for (auto& kv : stateOf(*m.vae)) all["vae." + kv.first] = kv.second;
    for (auto& kv : stateOf(*m.textEncoder)) all["text_encoder." + kv.first] = kv.second;
    for (auto& kv : stateOf(*m.transformer)) all["transformer." + kv.first] = kv.second;
    if (opt) opt->saveState(all, "adam.");
    if (ema)
        for (auto& kv : *ema) all["ema." + kv.first] = kv.second;
    std::vector<std::pair<std::string, torch::Tensor>> list(all.begin(), all.end());
    std::ostringstream rgb;
    for (size_t i = 0; i < s.rgb.size(); ++i) rgb << (i ? "," : "") << fmt(s.rgb[i], 17);
    writeSafetensors((dir / kStateFile).string(), list,
                     {{"recipe", recipe},
                      {"phase", std::to_string(s.phase)},
                      {"step", std::to_string(s.step)},
                      {"adam_step", std::to_string(opt ? opt->steps() : 0)},
                      {"scaling", fmt(s.scaling, 17)},
                      {"shift", fmt(s.shift, 17)},
                      {"rgb", rgb.str()}});
}

WeightMap withPrefix(const WeightMap& all, const std::string& prefix) {
    WeightMap out;
    for (auto& kv : all)
        if (kv.first.rfind(prefix, 0) == 0) out[kv.first.substr(prefix.size())] = kv.second;
    return out;
}

void copyInto(torch::nn::Module& m, const WeightMap& w, const std::string& what) {
    torch::NoGradGuard g;
    for (auto& p : m.named_parameters(true)) {
        auto it = w.find(p.key());
        if (it == w.end()) throw std::runtime_error("resume state lacks " + what + "." + p.key());
        p.value().copy_(it->second);
    }
}

}  // namespace

TrainResult trainDemo(const TrainOptions& o) {
    auto log = [&](const std::string& s) {
        if (o.log) o.log(s);
    };
    const auto start = Clock::now();
    auto outOfTime = [&] { return o.minutes > 0 && seconds(start) > o.minutes * 60; };
    auto cancelled = [&] { return o.cancel && o.cancel->load(); };

    // Beside the output folder, not in it: the export replaces the folder as a whole.
    const fs::path stateDir = fs::path(o.outDir + ".train-state");
    fs::create_directories(stateDir);
    const BpeVocabulary vocab = learnBpe(vocabularyWords());
    writeTokenizerFolder((stateDir / "tokenizer").string(), vocab, kTextLength);

    torch::manual_seed(int64_t(o.seed));
    TrainModels m = makeTrainModels(vocab, (stateDir / "tokenizer").string());
    State st;
    TrainResult result;

    // EMA of the text encoder and transformer: what gets exported.
    std::vector<std::pair<std::string, torch::Tensor>> ditParams;
    for (auto& p : m.textEncoder->named_parameters(true))
        ditParams.emplace_back("text_encoder." + p.key(), p.value());
    for (auto& p : m.transformer->named_parameters(true))
        ditParams.emplace_back("transformer." + p.key(), p.value());
    std::vector<std::pair<std::string, torch::Tensor>> vaeParams;
    for (auto& p : m.vae->named_parameters(true)) vaeParams.emplace_back(p.key(), p.value());
    AdamW vaeOpt(vaeParams, {});
    AdamW ditOpt(ditParams, {o.ditLr, 0.9, 0.99, 1e-8, 0.01, 1.0});
    std::vector<std::pair<std::string, torch::Tensor>> decoderParams;
    for (auto& p : vaeParams)
        if (p.first.rfind("decoder.", 0) == 0 || p.first.rfind("post_quant_conv.", 0) == 0)
            decoderParams.push_back(p);
    AdamW decoderOpt(decoderParams, {o.decoderLr, 0.9, 0.99, 1e-8, 0.0, 1.0});
    WeightMap ema;
    for (auto& p : ditParams) ema[p.first] = p.second.detach().clone();

    if (o.resume && fs::exists(stateDir / kStateFile)) {
        auto f = SafetensorsFile::open((stateDir / kStateFile).string());
        WeightMap all;
        for (const auto& t : f->tensors()) all[t.name] = f->tensor(t.name).clone();
        const auto& md = f->metadata();
        // States saved before the recipe was recorded carry no key and are accepted as they are.
        if (md.count("recipe") && md.at("recipe") != recipeOf(o))
            throw std::runtime_error((stateDir / kStateFile).string() +
                                     " was saved by another recipe (" + md.at("recipe") +
                                     "); resume with the same options, or remove the folder "
                                     "to start over (this run: " +
                                     recipeOf(o) + ")");
        st.phase = std::stoi(md.at("phase"));
        st.step = std::stoi(md.at("step"));
        st.scaling = std::stod(md.at("scaling"));
        st.shift = std::stod(md.at("shift"));
        std::istringstream rs(md.at("rgb"));
        for (std::string v; std::getline(rs, v, ',');) st.rgb.push_back(std::stod(v));
        copyInto(*m.vae, withPrefix(all, "vae."), "vae");
        copyInto(*m.textEncoder, withPrefix(all, "text_encoder."), "text_encoder");
        copyInto(*m.transformer, withPrefix(all, "transformer."), "transformer");
        const int64_t adamStep = std::stoll(md.at("adam_step"));
        if (st.phase == 0 && adamStep > 0) vaeOpt.loadState(all, "adam.", adamStep);
        if (st.phase == 1 && adamStep > 0) ditOpt.loadState(all, "adam.", adamStep);
        if (st.phase == 2 && adamStep > 0) decoderOpt.loadState(all, "adam.", adamStep);
        if (st.phase >= 1)
            for (auto& kv : ema) kv.second.copy_(all.at("ema." + kv.first));
        log("resumed: phase " + std::to_string(st.phase) + ", step " + std::to_string(st.step));
    }
    auto lastSave = Clock::now();
    auto maybeSave = [&](bool force, const AdamW* opt) {
        if (!force && seconds(lastSave) < o.checkpointMinutes * 60) return;
        saveState(stateDir, recipeOf(o), st, m, opt, st.phase >= 1 ? &ema : nullptr);
        lastSave = Clock::now();
        log("checkpoint saved (phase " + std::to_string(st.phase) + ", step " +
            std::to_string(st.step) + ")");
    };

    // ---- Phase 0: the VAE (L1 + edge loss + a small KL) ----
    if (st.phase == 0) {
        m.vae->train();
        auto t0 = Clock::now();
        for (; st.step < o.vaeSteps; ++st.step) {
            if (cancelled() || outOfTime()) {
                maybeSave(true, &vaeOpt);
                result.vaeStepsDone = st.step;
                return result;
            }
            torch::manual_seed(int64_t(o.seed + 7919 * uint64_t(st.step)));
            auto batch = makeBatch((o.seed % 1000) * 1000000000ull + uint64_t(st.step) * o.vaeBatch,
                                   o.vaeBatch);
            vaeOpt.zeroGrad();
            torch::Tensor loss, rec;
            {
                AutocastBf16 ac;
                auto mom = m.vae->encode(batch.images, m.probes);
                auto z = mom.mean + torch::exp(0.5 * mom.logvar) * torch::randn_like(mom.mean);
                rec = m.vae->decode(z, m.probes).to(torch::kFloat32);
                auto kl = 0.5 * (mom.mean.pow(2) + mom.logvar.exp() - 1 - mom.logvar).mean();
                loss = (rec - batch.images).abs().mean() + 0.5 * gradLoss(rec, batch.images) +
                       kVaeKlWeight * kl.to(torch::kFloat32);
            }
            loss.backward();
            vaeOpt.step(lrAt(o.vaeLr, st.step, o.vaeSteps, 50));
            if (st.step % 25 == 0 || st.step + 1 == o.vaeSteps) {
                const double mse =
                    (rec.detach().clamp(-1, 1) - batch.images).pow(2).mean().item<double>();
                log("vae step " + std::to_string(st.step + 1) + "/" + std::to_string(o.vaeSteps) +
                    "  loss " + fmt(loss.item<double>()) + "  psnr " +
                    fmt(10 * std::log10(4.0 / mse), 3) + " dB  " +
                    fmt(double(st.step + 1 - 0) > 0 ? seconds(t0) / double(std::max(1, st.step + 1))
                                                    : 0,
                        3) +
                    " s/step");
            }
            maybeSave(false, &vaeOpt);
        }
        m.vae->eval();
        auto stats = latentStatistics(m, o.seed);
        st.scaling = stats.scaling;
        st.shift = stats.shift;
        st.rgb = stats.rgbFactors;
        log("vae done: held-out psnr " + fmt(stats.heldOutPsnr, 3) + " dB, scaling_factor " +
            fmt(st.scaling) + ", shift_factor " + fmt(st.shift));
        st.phase = 1;
        st.step = 0;
        maybeSave(true, nullptr);
    }
    result.vaeStepsDone = o.vaeSteps;

    // ---- Phase 1: text encoder + transformer, rectified flow ----
    if (st.phase == 1) {
        m.vae->eval();
        log("encoding " + std::to_string(o.encodedScenes) + " scenes to latents...");
        EncodedSet data = encodeScenes(m, o.seed, o.encodedScenes, st.scaling, st.shift);
        log("encoded in " + fmt(seconds(start), 3) + " s");
        m.textEncoder->train();
        m.transformer->train();
        auto t0 = Clock::now();
        const int firstStep = st.step;
        for (; st.step < o.ditSteps; ++st.step) {
            if (cancelled() || outOfTime()) {
                maybeSave(true, &ditOpt);
                result.ditStepsDone = st.step;
                return result;
            }
            torch::manual_seed(int64_t(o.seed + 104729 * uint64_t(st.step + 1)));
            ditOpt.zeroGrad();
            torch::Tensor loss;
            {
                AutocastBf16 ac;
                loss = flowMatchingLoss(m, data, o.ditBatch, o.captionDropout);
            }
            loss.backward();
            ditOpt.step(lrAt(o.ditLr, st.step, o.ditSteps, 200));
            {
                torch::NoGradGuard g;
                const double d = std::min(o.emaDecay, double(st.step + 1) / double(st.step + 10));
                for (auto& p : ditParams) ema[p.first].mul_(d).add_(p.second.detach(), 1 - d);
            }
            if (st.step % 25 == 0 || st.step + 1 == o.ditSteps) {
                const double per = seconds(t0) / double(std::max(1, st.step + 1 - firstStep));
                log("transformer step " + std::to_string(st.step + 1) + "/" +
                    std::to_string(o.ditSteps) + "  loss " + fmt(loss.item<double>()) + "  " +
                    fmt(per, 3) + " s/step  " + fmt(o.ditBatch / per, 4) + " samples/s");
            }
            maybeSave(false, &ditOpt);
        }
        st.phase = 2;
        st.step = 0;
        maybeSave(true, nullptr);
    }
    result.ditStepsDone = o.ditSteps;

    // ---- Phase 2: the VAE decoder alone ----
    // After phase 0 the decoder drew large areas right but small objects with a colour cast
    // (a white disc on red decoded to (0.96, 0.97, 0.22), i.e. yellow; black to dark red): in a
    // loss averaged over all pixels an object is a few percent of it. This phase weights object
    // pixels 10x. The encoder stays frozen, so the latents the transformer learned keep
    // their meaning.
    if (st.phase == 2) {
        m.vae->eval();
        auto t0 = Clock::now();
        const int firstStep = st.step;
        for (; st.step < o.decoderSteps; ++st.step) {
            if (cancelled() || outOfTime()) {
                maybeSave(true, &decoderOpt);
                result.decoderStepsDone = st.step;
                return result;
            }
            torch::manual_seed(int64_t(o.seed + 15485863 * uint64_t(st.step + 1)));
            // Seeds of their own, after every seed phase 0 drew.
            auto batch = makeBatch(
                (o.seed % 1000) * 1000000000ull + 500000000ull + uint64_t(st.step) * o.decoderBatch,
                o.decoderBatch);
            decoderOpt.zeroGrad();
            torch::Tensor loss;
            {
                AutocastBf16 ac;
                torch::Tensor z;
                {
                    torch::NoGradGuard g;
                    auto mom = m.vae->encode(batch.images, m.probes);
                    z = mom.mean + torch::exp(0.5 * mom.logvar) * torch::randn_like(mom.mean);
                }
                auto rec = m.vae->decode(z, m.probes).to(torch::kFloat32);
                auto w = 1 + 9 * objectMask(batch);  // [B, 1, S, S]
                loss = (w * (rec - batch.images).abs()).sum() / (3 * w.sum()) +
                       0.5 * gradLoss(rec, batch.images);
            }
            loss.backward();
            decoderOpt.step(lrAt(o.decoderLr, st.step, o.decoderSteps, 20));
            if (st.step % 25 == 0 || st.step + 1 == o.decoderSteps) {
                const double per = seconds(t0) / double(std::max(1, st.step + 1 - firstStep));
                log("vae decoder step " + std::to_string(st.step + 1) + "/" +
                    std::to_string(o.decoderSteps) + "  loss " + fmt(loss.item<double>()) + "  " +
                    fmt(per, 3) + " s/step");
            }
            maybeSave(false, &decoderOpt);
        }
        st.phase = 3;
        st.step = 0;
        maybeSave(true, nullptr);
    }
    result.decoderStepsDone = o.decoderSteps;
    m.vae->eval();
    result.vaePsnr = latentStatistics(m, o.seed).heldOutPsnr;
    log("vae held-out psnr " + fmt(result.vaePsnr, 3) + " dB");

    DemoExport e;
    e.vae = stateOf(*m.vae);
    e.textEncoder = withPrefix(ema, "text_encoder.");
    e.transformer = withPrefix(ema, "transformer.");
    e.vocab = vocab;
    e.scalingFactor = st.scaling;
    e.shiftFactor = st.shift;
    e.latentRgbFactors = st.rgb;
    e.residualScaleTransformer = o.residualScaleTransformer;
    e.residualScaleVae = o.residualScaleVae;
    std::ostringstream summary;
    summary << "## Training\n\n"
            << "- seed " << o.seed << "; VAE " << o.vaeSteps << " steps at batch " << o.vaeBatch
            << "; text encoder + transformer " << o.ditSteps << " steps at batch " << o.ditBatch
            << " (EMA " << o.emaDecay << "), caption dropout " << o.captionDropout
            << "; VAE decoder alone " << o.decoderSteps << " steps at batch " << o.decoderBatch
            << ", object pixels weighted 10x\n"
            << "- VAE held-out PSNR " << fmt(result.vaePsnr, 3) << " dB\n"
            << "- latent scaling_factor " << fmt(st.scaling) << ", shift_factor " << fmt(st.shift)
            << "\n";
    e.trainingSummary = summary.str();
    exportDemoPipeline(o.outDir, e);
    result.finished = true;
    result.exportedDir = o.outDir;
    log("exported the pipeline to " + o.outDir);
    return result;
}

}  // namespace hs::demo
