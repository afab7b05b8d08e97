#include "demo/trainer.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <sstream>

#include "demo/adamw.h"
#include "demo/base_checkpoint.h"
#include "demo/caption_grammar.h"
#include "demo/dataset.h"
#include "demo/demo_config.h"
#include "demo/demo_export.h"
#include "demo/demo_tokenizer.h"
#include "demo/train_models.h"
#include "io/safetensors.h"
#include "numerics/cpu_bf16.h"

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

// "held-out psnr 27 dB, shapes read back 87%": the two numbers a VAE phase is judged by.
std::string vaeQuality(const LatentStatistics& s) {
    return "held-out psnr " + fmt(s.heldOutPsnr, 3) + " dB, shapes read back " +
           fmt(100 * s.heldOutShapes, 3) + "%";
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

// [B, 1, S, S] mask -> 1 within 2 pixels of an outline (dilated minus eroded), else 0.
torch::Tensor outlineBand(const torch::Tensor& mask) {
    const auto dilated = torch::max_pool2d(mask, 5, 1, 2);
    const auto eroded = 1 - torch::max_pool2d(1 - mask, 5, 1, 2);
    return dilated - eroded;
}

// The VAE trains on crops of this many pixels of the 128-pixel scenes, at a multiple of 8 (one
// latent pixel) so the latent grid lines up with a whole picture's. It is convolutional, so a crop
// teaches it the same function at a quarter of the cost per sample: the whole pictures at batch
// 16 reached 19.2 dB held-out PSNR after 1000 steps (17 minutes), too blurry to tell a star.
constexpr int64_t kVaeCrop = 64;

// One random crop position for the whole batch, from torch's generator (seeded per step).
torch::Tensor cropped(const torch::Tensor& images, const torch::Tensor& offset) {
    const int64_t y = offset[0].item<int64_t>() * 8, x = offset[1].item<int64_t>() * 8;
    return images.narrow(2, y, kVaeCrop).narrow(3, x, kVaeCrop).contiguous();
}

torch::Tensor cropOffset() {
    return torch::randint((kImageSize - kVaeCrop) / 8 + 1, {2}, torch::kInt64);
}

struct State {
    int phase = 0;  // 0 VAE, 1 transformer, 2 VAE decoder, 3 done
    int step = 0;
    double scaling = 1, shift = 0;
    std::vector<double> rgb;
    double seconds = 0;  // wall-clock training time of the invocations before this one
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
    r << "image=" << kImageSize << ";vae_crop=" << kVaeCrop << ";captions=grammar;seed=" << o.seed
      << ";vae=" << o.vaeSteps << "x" << o.vaeBatch << "@" << o.vaeLr << ";dit=" << o.ditSteps
      << "x" << o.ditBatch << "@" << o.ditLr << ";ema=" << o.emaDecay
      << ";dropout=" << o.captionDropout << ";scenes=" << o.encodedScenes
      << ";decoder=" << o.decoderSteps << "x" << o.decoderBatch << "@" << o.decoderLr;
    if (!o.base.empty()) r << ";base=" << fs::absolute(o.base).lexically_normal().string();
    if (o.objectWeight != 1) r << ";object_weight=" << o.objectWeight;  // older states hold 1
    if (o.heldOutScenes != 256) r << ";held_out=" << o.heldOutScenes;   // and 256
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
                      {"rgb", rgb.str()},
                      {"seconds", fmt(s.seconds, 17)}});
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

// One phase's step loop, shared by the three phases: stop and save when cancelled or out of
// time, seed the step, one optimizer step on the loss under bf16 autocast, progress every 25
// steps, a checkpoint every few minutes.
struct Phase {
    std::string name;  // in the progress lines: "vae", "transformer", "vae decoder"
    int total = 0;
    AdamW* opt = nullptr;
    double lr = 0;
    int warmup = 0;
    uint64_t seedStride = 0;  // each step seeds seed + stride * (step + seedOffset)
    int seedOffset = 0;
    std::function<torch::Tensor()> loss;                     // this step's loss
    std::function<void()> afterStep;                         // optional: the EMA update
    std::function<std::string(const torch::Tensor&)> extra;  // optional: more progress
};

using NamedParams = std::vector<std::pair<std::string, torch::Tensor>>;

// The parameter sets the three phases train.
struct ParamSets {
    NamedParams dit;      // text encoder + transformer ("text_encoder.", "transformer." keys)
    NamedParams vae;      // the whole VAE
    NamedParams decoder;  // the VAE's decoder and post_quant_conv
};

ParamSets paramSetsOf(TrainModels& m) {
    ParamSets s;
    for (auto& p : m.textEncoder->named_parameters(true))
        s.dit.emplace_back("text_encoder." + p.key(), p.value());
    for (auto& p : m.transformer->named_parameters(true))
        s.dit.emplace_back("transformer." + p.key(), p.value());
    for (auto& p : m.vae->named_parameters(true)) s.vae.emplace_back(p.key(), p.value());
    for (auto& p : s.vae)
        if (p.first.rfind("decoder.", 0) == 0 || p.first.rfind("post_quant_conv.", 0) == 0)
            s.decoder.push_back(p);
    return s;
}

TrainModels seededModels(const TrainOptions& o, const BpeVocabulary& vocab,
                         const fs::path& stateDir) {
    fs::create_directories(stateDir);
    writeTokenizerFolder((stateDir / "tokenizer").string(), vocab, kTextLength);
    torch::manual_seed(int64_t(o.seed));
    return makeTrainModels(vocab, (stateDir / "tokenizer").string());
}

class Trainer {
public:
    explicit Trainer(const TrainOptions& o);
    TrainResult run();

private:
    void log(const std::string& s) const {
        if (m_o.log) m_o.log(s);
    }
    bool stopRequested() const {
        return (m_o.cancel && m_o.cancel->load()) ||
               (m_o.minutes > 0 && seconds(m_start) > m_o.minutes * 60);
    }
    void maybeSave(bool force, const AdamW* opt);
    void resume();
    // Runs `p` from the current step; false when stopped (the state is saved).
    bool runPhase(const Phase& p);
    void nextPhase();
    bool trainVae();
    bool trainVaeFromBase();
    void loadBase();
    bool trainTransformer();
    bool trainDecoder();
    void exportModel();

    const TrainOptions& m_o;
    const Clock::time_point m_start = Clock::now();
    const fs::path m_stateDir;  // beside the output folder: the export replaces that as a whole
    const BpeVocabulary m_vocab;
    TrainModels m_m;
    ParamSets m_params;
    AdamW m_vaeOpt, m_ditOpt, m_decoderOpt;
    WeightMap m_ema;  // of the text encoder and transformer: what gets exported
    State m_st;
    std::optional<BaseCheckpoint> m_base;
    TrainResult m_result;
    Clock::time_point m_lastSave = Clock::now();
};

Trainer::Trainer(const TrainOptions& o)
    : m_o(o),
      m_stateDir(fs::path(o.outDir + ".train-state")),
      m_vocab(learnBpe(grammarWords())),
      m_m(seededModels(o, m_vocab, m_stateDir)),
      m_params(paramSetsOf(m_m)),
      m_vaeOpt(m_params.vae, {}),
      m_ditOpt(m_params.dit, {o.ditLr, 0.9, 0.99, 1e-8, 0.01, 1.0}),
      m_decoderOpt(m_params.decoder, {o.decoderLr, 0.9, 0.99, 1e-8, 0.0, 1.0}) {
    if (!o.base.empty()) loadBase();
    for (auto& p : m_params.dit) m_ema[p.first] = p.second.detach().clone();
}

void Trainer::loadBase() {
    m_base = loadBaseCheckpoint(m_o.base);
    const int rows = transplantTextEncoder(*m_base, m_m.tokenizer, m_m.textEncoder);
    copyInto(*m_m.transformer, m_base->transformer, "the base transformer");
    const int vaeTensors = growVae(*m_base, m_m.vae);
    m_st.scaling = m_base->scaling;
    m_st.shift = m_base->shift;
    m_st.rgb = m_base->rgbFactors;
    log("base " + m_o.base + ": " + std::to_string(rows) +
        " token rows carried over by string, transformer residual scale " +
        fmt(m_base->residualScale) + " undone, latents of " + std::to_string(m_base->imageSize) +
        "-pixel scenes; VAE grown around " + std::to_string(vaeTensors) +
        " base tensors (decoder residual scale " + fmt(m_base->vaeResidualScale) + " undone)");
}

void Trainer::resume() {
    const fs::path file = m_stateDir / kStateFile;
    if (!m_o.resume || !fs::exists(file)) return;
    auto f = SafetensorsFile::open(file.string());
    WeightMap all;
    for (const auto& t : f->tensors()) all[t.name] = f->tensor(t.name).clone();
    const auto& md = f->metadata();
    // States saved before the recipe was recorded carry no key and are accepted as they are.
    if (md.count("recipe") && md.at("recipe") != recipeOf(m_o))
        throw std::runtime_error(file.string() + " was saved by another recipe (" +
                                 md.at("recipe") +
                                 "); resume with the same options, or remove the folder to "
                                 "start over (this run: " +
                                 recipeOf(m_o) + ")");
    m_st.phase = std::stoi(md.at("phase"));
    m_st.step = std::stoi(md.at("step"));
    m_st.scaling = std::stod(md.at("scaling"));
    m_st.shift = std::stod(md.at("shift"));
    std::istringstream rs(md.at("rgb"));
    for (std::string v; std::getline(rs, v, ',');) m_st.rgb.push_back(std::stod(v));
    if (md.count("seconds")) m_st.seconds = std::stod(md.at("seconds"));
    copyInto(*m_m.vae, withPrefix(all, "vae."), "vae");
    copyInto(*m_m.textEncoder, withPrefix(all, "text_encoder."), "text_encoder");
    copyInto(*m_m.transformer, withPrefix(all, "transformer."), "transformer");
    const int64_t adamStep = std::stoll(md.at("adam_step"));
    AdamW* opts[] = {&m_vaeOpt, &m_ditOpt, &m_decoderOpt};
    if (m_st.phase <= 2 && adamStep > 0) opts[m_st.phase]->loadState(all, "adam.", adamStep);
    if (m_st.phase >= 1)
        for (auto& kv : m_ema) kv.second.copy_(all.at("ema." + kv.first));
    log("resumed: phase " + std::to_string(m_st.phase) + ", step " + std::to_string(m_st.step));
}

void Trainer::maybeSave(bool force, const AdamW* opt) {
    if (!force && seconds(m_lastSave) < m_o.checkpointMinutes * 60) return;
    State s = m_st;
    s.seconds += seconds(m_start);
    saveState(m_stateDir, recipeOf(m_o), s, m_m, opt, m_st.phase >= 1 ? &m_ema : nullptr);
    m_lastSave = Clock::now();
    log("checkpoint saved (phase " + std::to_string(m_st.phase) + ", step " +
        std::to_string(m_st.step) + ")");
}

bool Trainer::runPhase(const Phase& p) {
    const auto t0 = Clock::now();
    const int firstStep = m_st.step;
    for (; m_st.step < p.total; ++m_st.step) {
        if (stopRequested()) {
            maybeSave(true, p.opt);
            return false;
        }
        torch::manual_seed(int64_t(m_o.seed + p.seedStride * uint64_t(m_st.step + p.seedOffset)));
        p.opt->zeroGrad();
        torch::Tensor loss;
        {
            AutocastBf16 ac;
            loss = p.loss();
        }
        loss.backward();
        p.opt->step(lrAt(p.lr, m_st.step, p.total, p.warmup));
        if (p.afterStep) p.afterStep();
        if (m_st.step % 25 == 0 || m_st.step + 1 == p.total) {
            const double per = seconds(t0) / double(std::max(1, m_st.step + 1 - firstStep));
            log(p.name + " step " + std::to_string(m_st.step + 1) + "/" + std::to_string(p.total) +
                "  loss " + fmt(loss.item<double>()) + "  " +
                (p.extra ? p.extra(loss) + "  " : std::string()) + fmt(per, 3) + " s/step");
        }
        maybeSave(false, p.opt);
    }
    return true;
}

void Trainer::nextPhase() {
    ++m_st.phase;
    m_st.step = 0;
    maybeSave(true, nullptr);
}

// Phase 0: the VAE (L1 + edge loss + a small KL).
bool Trainer::trainVae() {
    m_m.vae->train();
    torch::Tensor rec, images;
    Phase p{"vae", m_o.vaeSteps, &m_vaeOpt, m_o.vaeLr, 50, 7919, 0};
    p.loss = [&] {
        auto batch = makeBatch(
            (m_o.seed % 1000) * 1000000000ull + uint64_t(m_st.step) * m_o.vaeBatch, m_o.vaeBatch);
        images = cropped(batch.images, cropOffset());
        auto mom = m_m.vae->encode(images, m_m.probes);
        auto z = mom.mean + torch::exp(0.5 * mom.logvar) * torch::randn_like(mom.mean);
        rec = m_m.vae->decode(z, m_m.probes).to(torch::kFloat32);
        auto kl = 0.5 * (mom.mean.pow(2) + mom.logvar.exp() - 1 - mom.logvar).mean();
        return (rec - images).abs().mean() + 0.5 * gradLoss(rec, images) +
               kVaeKlWeight * kl.to(torch::kFloat32);
    };
    p.extra = [&](const torch::Tensor&) {
        const double mse = (rec.detach().clamp(-1, 1) - images).pow(2).mean().item<double>();
        return "psnr " + fmt(10 * std::log10(4.0 / mse), 3) + " dB";
    };
    if (!runPhase(p)) return false;
    m_m.vae->eval();
    auto stats = latentStatistics(m_m, m_o.seed, m_o.heldOutScenes);
    m_st.scaling = stats.scaling;
    m_st.shift = stats.shift;
    m_st.rgb = stats.rgbFactors;
    log("vae done: " + vaeQuality(stats) + ", scaling_factor " + fmt(m_st.scaling) +
        ", shift_factor " + fmt(m_st.shift));
    return true;
}

// Phase 0 with a base checkpoint: this VAE, grown from the base's by a level (growVae), learns to
// work at the full size on the base's latent space, so the base transformer's latents keep their
// meaning: its decoder draws the full-size scene from the base encoder's latents of the base-size
// one (object pixels weighted 10x, as in phase 2), its encoder gives those latents back from the
// full-size picture. Whole pictures, not crops: a crop's latents lose their context at its edges.
bool Trainer::trainVaeFromBase() {
    m_m.vae->train();
    torch::Tensor rec, images;
    if (m_o.vaeSteps == 0) return true;  // the grown VAE as it is: nothing to measure twice
    if (m_st.step == 0)
        log("grown vae before training: " +
            vaeQuality(latentStatistics(m_m, m_o.seed, m_o.heldOutScenes)));
    Phase p{"vae", m_o.vaeSteps, &m_vaeOpt, m_o.vaeLr, 20, 7919, 0};
    p.loss = [&] {
        const uint64_t first =
            (m_o.seed % 1000) * 1000000000ull + uint64_t(m_st.step) * m_o.vaeBatch;
        const Batch full = makeBatch(first, m_o.vaeBatch);
        torch::Tensor mean, logvar;
        {
            torch::NoGradGuard g;
            auto mom = m_base->vae->encode(makeBatch(first, m_o.vaeBatch, m_base->imageSize).images,
                                           m_m.probes);  // [B, 4, 16, 16]
            mean = mom.mean.to(torch::kFloat32);
            logvar = mom.logvar.to(torch::kFloat32);
        }
        images = full.images;  // [B, 3, S, S]
        auto z = mean + torch::exp(0.5 * logvar) * torch::randn_like(mean);
        rec = m_m.vae->decode(z, m_m.probes).to(torch::kFloat32);
        auto w = 1 + 9 * objectMask(full);  // [B, 1, S, S]
        auto decoder =
            (w * (rec - images).abs()).sum() / (3 * w.sum()) + 0.5 * gradLoss(rec, images);
        auto mom = m_m.vae->encode(images, m_m.probes);
        auto encoder = torch::mse_loss(mom.mean.to(torch::kFloat32), mean) +
                       0.01 * torch::mse_loss(mom.logvar.to(torch::kFloat32), logvar);
        return decoder + encoder;
    };
    p.extra = [&](const torch::Tensor&) {
        const double mse = (rec.detach().clamp(-1, 1) - images).pow(2).mean().item<double>();
        return "psnr " + fmt(10 * std::log10(4.0 / mse), 3) + " dB";
    };
    if (!runPhase(p)) return false;
    m_m.vae->eval();
    log("vae done: " + vaeQuality(latentStatistics(m_m, m_o.seed, m_o.heldOutScenes)) +
        "; the base's scaling_factor " + fmt(m_st.scaling) + " and shift_factor " +
        fmt(m_st.shift) + " stay");
    return true;
}

// Phase 1: text encoder + transformer, rectified flow, on scenes encoded once.
bool Trainer::trainTransformer() {
    m_m.vae->eval();
    if (m_o.ditSteps == 0) return true;  // a refit of the VAE alone: nothing to encode
    log("encoding " + std::to_string(m_o.encodedScenes) + " scenes to latents...");
    const EncodedSet data = m_base ? encodeScenes(m_m, m_base->vae, m_base->imageSize, m_o.seed,
                                                  m_o.encodedScenes, m_st.scaling, m_st.shift)
                                   : encodeScenes(m_m, m_m.vae, kImageSize, m_o.seed,
                                                  m_o.encodedScenes, m_st.scaling, m_st.shift);
    log("encoded in " + fmt(seconds(m_start), 3) + " s");
    m_m.textEncoder->train();
    m_m.transformer->train();
    Phase p{"transformer", m_o.ditSteps, &m_ditOpt, m_o.ditLr, 200, 104729, 1};
    p.loss = [&] {
        return flowMatchingLoss(m_m, data, m_o.ditBatch, m_o.captionDropout, m_o.objectWeight);
    };
    p.afterStep = [&] {
        torch::NoGradGuard g;
        const double d = std::min(m_o.emaDecay, double(m_st.step + 1) / double(m_st.step + 10));
        for (auto& q : m_params.dit) m_ema[q.first].mul_(d).add_(q.second.detach(), 1 - d);
    };
    return runPhase(p);
}

// Phase 2: the VAE decoder alone. After phase 0 the decoder drew large areas right but small
// objects with a colour cast (a white disc on red decoded to (0.96, 0.97, 0.22), i.e. yellow;
// black to dark red): in a loss averaged over all pixels an object is a few percent of it. This
// phase weights object pixels 10x. The encoder stays frozen, so the latents the transformer
// learned keep their meaning.
// With a base checkpoint the decoder draws whole pictures from the base encoder's latents (the
// ones the transformer learned), and the band of +-2 pixels around each object's outline weighs
// 10x more again: a decoder grown to 128 pixels drew squares as rounded blobs that read back as
// circles, and corners are a few pixels of the picture.
bool Trainer::trainDecoder() {
    m_m.vae->eval();
    Phase p{"vae decoder", m_o.decoderSteps, &m_decoderOpt, m_o.decoderLr, 20, 15485863, 1};
    p.loss = [&] {
        // Seeds of their own, after every seed phase 0 drew.
        const uint64_t first = (m_o.seed % 1000) * 1000000000ull + 500000000ull +
                               uint64_t(m_st.step) * m_o.decoderBatch;
        const Batch batch = makeBatch(first, m_o.decoderBatch);
        torch::Tensor images, w, z;
        {
            torch::NoGradGuard g;
            VaeMoments mom;
            if (m_base) {
                images = batch.images;  // [B, 3, S, S]
                // The same scenes at the base's size; a base of this size takes them as they are.
                mom = m_base->vae->encode(
                    m_base->imageSize == kImageSize
                        ? images
                        : makeBatch(first, m_o.decoderBatch, m_base->imageSize).images,
                    m_m.probes);
                const torch::Tensor mask = objectMask(batch);  // [B, 1, S, S]
                w = 1 + 9 * mask + 10 * outlineBand(mask);
            } else {
                const torch::Tensor at = cropOffset();
                images = cropped(batch.images, at);
                mom = m_m.vae->encode(images, m_m.probes);
                w = 1 + 9 * cropped(objectMask(batch), at);  // [B, 1, crop, crop]
            }
            z = mom.mean + torch::exp(0.5 * mom.logvar) * torch::randn_like(mom.mean);
        }
        auto rec = m_m.vae->decode(z, m_m.probes).to(torch::kFloat32);
        return (w * (rec - images).abs()).sum() / (3 * w.sum()) + 0.5 * gradLoss(rec, images);
    };
    p.afterStep = [&] {
        if ((m_st.step + 1) % 250 == 0 && m_st.step + 1 < m_o.decoderSteps)
            log("vae decoder at step " + std::to_string(m_st.step + 1) + ": " +
                vaeQuality(latentStatistics(m_m, m_o.seed, m_o.heldOutScenes)));
    };
    return runPhase(p);
}

void Trainer::exportModel() {
    m_m.vae->eval();
    const LatentStatistics stats = latentStatistics(m_m, m_o.seed, m_o.heldOutScenes);
    m_result.vaePsnr = stats.heldOutPsnr;
    m_result.vaeShapes = stats.heldOutShapes;
    log("vae " + vaeQuality(stats));
    DemoExport e;
    e.vae = stateOf(*m_m.vae);
    e.textEncoder = withPrefix(m_ema, "text_encoder.");
    e.transformer = withPrefix(m_ema, "transformer.");
    e.vocab = m_vocab;
    e.scalingFactor = m_st.scaling;
    e.shiftFactor = m_st.shift;
    e.latentRgbFactors = m_st.rgb;
    e.residualScaleTransformer = m_o.residualScaleTransformer;
    e.residualScaleVae = m_o.residualScaleVae;
    std::ostringstream summary;
    summary << "## Training\n\n";
    const int grownLevels =
        m_base ? m_m.vae->config().levels() - m_base->vae->config().levels() : 0;
    if (m_base)
        summary << "- refitted from a demo checkpoint of " << m_base->imageSize
                << "-pixel scenes: its transformer and latent space kept (its residual scale "
                << fmt(m_base->residualScale)
                << " undone before training), its text encoder's token rows carried over by "
                   "token string, "
                << (grownLevels ? "its VAE grown by " + std::to_string(grownLevels) +
                                      " level(s), each starting as the identity\n"
                                : std::string("its VAE carried over\n"))
                << "- seed " << m_o.seed << "; VAE " << m_o.vaeSteps << " steps at batch "
                << m_o.vaeBatch
                << " on whole pictures (the decoder from the base encoder's latents, the "
                   "encoder to them); text encoder + transformer ";
    else
        summary << "- seed " << m_o.seed << "; VAE " << m_o.vaeSteps << " steps at batch "
                << m_o.vaeBatch << " on " << kVaeCrop
                << "-pixel crops; text encoder + transformer ";
    summary << m_o.ditSteps << " steps at batch " << m_o.ditBatch << ", lr " << m_o.ditLr
            << " (EMA " << m_o.emaDecay << "), caption dropout " << m_o.captionDropout
            << (m_o.objectWeight != 1 ? ", object latents weighted " + fmt(m_o.objectWeight) + "x"
                                      : std::string())
            << "; VAE decoder alone " << m_o.decoderSteps << " steps at batch " << m_o.decoderBatch
            << (m_base ? " (whole pictures from the base's latents), object pixels weighted 10x "
                         "and a 2-pixel band on each outline 10x more\n"
                       : " (crops), object pixels weighted 10x\n")
            << "- " << fmt((m_st.seconds + seconds(m_start)) / 60, 3)
            << " minutes of wall-clock time on " << at::get_num_threads() << " threads"
            << (cpuHasBf16Instructions() ? " with bf16 autocast" : " in fp32") << "\n"
            << "- VAE held-out PSNR " << fmt(m_result.vaePsnr, 3) << " dB; "
            << fmt(100 * m_result.vaeShapes, 3)
            << "% of held-out one-object reconstructions read back as the shape drawn\n"
            << "- latent scaling_factor " << fmt(m_st.scaling) << ", shift_factor "
            << fmt(m_st.shift) << "\n";
    if (m_base && !m_base->training.empty())
        summary << "\n### The base checkpoint's training\n\n" << m_base->training;
    e.trainingSummary = summary.str();
    exportDemoPipeline(m_o.outDir, e);
    m_result.finished = true;
    m_result.exportedDir = m_o.outDir;
    log("exported the pipeline to " + m_o.outDir);
}

TrainResult Trainer::run() {
    resume();
    // Each phase: trained from where the state left it, then marked done in the state.
    struct {
        bool (Trainer::*train)();
        int TrainResult::*done;
        int total;
    } phases[] = {{m_base ? &Trainer::trainVaeFromBase : &Trainer::trainVae,
                   &TrainResult::vaeStepsDone, m_o.vaeSteps},
                  {&Trainer::trainTransformer, &TrainResult::ditStepsDone, m_o.ditSteps},
                  {&Trainer::trainDecoder, &TrainResult::decoderStepsDone, m_o.decoderSteps}};
    for (int i = 0; i < 3; ++i) {
        if (m_st.phase == i) {
            if (!(this->*phases[i].train)()) {
                m_result.*phases[i].done = m_st.step;
                return m_result;
            }
            nextPhase();
        }
        m_result.*phases[i].done = phases[i].total;
    }
    exportModel();
    return m_result;
}

}  // namespace

TrainResult trainDemo(const TrainOptions& o) {
    return Trainer(o).run();
}

}  // namespace hs::demo
