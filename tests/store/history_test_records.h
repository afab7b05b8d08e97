#pragma once
// Run records with every field filled, for the run history and history browser tests.
#include <cmath>
#include <limits>

#include "../records/preview_pixels.h"
#include "records/run_types.h"

namespace testrec {

inline hs::TensorStats stats(double base, int64_t nan = 0, int64_t inf = 0) {
    hs::TensorStats s;
    s.count = 1000;
    s.finite = 1000 - nan - inf;
    s.min = -base;
    s.max = base * 2;
    s.absMax = base * 2;
    s.mean = base / 10;
    s.std = base / 3;
    s.nan = nan;
    s.posInf = inf;
    s.negInf = 0;
    s.overFp16 = base > 65504 ? 7 : 0;
    s.subnormalFp16 = 3;
    return s;
}

inline hs::RunConfig config(const std::string& prompt) {
    hs::RunConfig c;
    c.modelDir = "/models/demo";
    c.prompt = prompt;
    c.negativePrompt = "blurry, \xE6\xA8\xA1\xE7\xB3\x8A";  // "blurry, 模糊"
    c.seed = std::numeric_limits<uint64_t>::max() - 5;      // does not fit a signed 64-bit integer
    c.steps = 4;
    c.guidance = 3.5;
    c.width = 96;
    c.height = 64;
    c.shift = 3.0;
    c.plan = hs::PrecisionPlan::parse("transformer=fp16,transformer.transformer_blocks.2=bf16");
    c.device = "cpu";
    c.probeLevel = hs::ProbeLevel::Op;
    c.decodeEvery = 2;
    c.keepLatents = true;
    return c;
}

inline std::vector<hs::ComponentInfo> components() {
    return {{"text_encoder", hs::Role::TextEncoder, "CLIPTextModel", "bf16", 123456,
             hs::Format::BF16, hs::Execution::Native},
            {"transformer", hs::Role::Denoiser, "FluxTransformer2DModel", "bf16", 9876543,
             hs::Format::FP16, hs::Execution::Emulated},
            {"vae", hs::Role::Vae, "AutoencoderKL", "fp32", 55555, hs::Format::FP32,
             hs::Execution::Native}};
}

inline hs::StepRecord step(int i) {
    hs::StepRecord s;
    s.step = i;
    s.sigma = 1.0 - 0.25 * i;
    s.timestep = 1000.0 - 250 * i;
    s.latent = stats(1.5 + i);
    s.velocity = stats(100.0 * (i + 1), i == 3 ? 12 : 0, i == 3 ? 4 : 0);
    s.denoised = stats(0.5 + i);
    s.seconds = 0.125 * (i + 1);
    s.latentValues = {float(i), -1.5f, std::numeric_limits<float>::infinity(), 0.25f};
    return s;
}

inline std::vector<hs::ProbeRecord> probesOf(int step, int n = 3) {
    std::vector<hs::ProbeRecord> out;
    for (int k = 0; k < n; ++k) {
        hs::ProbeRecord p;
        p.name = "transformer.transformer_blocks." + std::to_string(k) + ".ff";
        p.granularity = hs::ProbeLevel::Layer;
        p.step = step;
        p.format = hs::Format::FP16;
        p.execution = hs::Execution::Emulated;
        p.stats = stats(10.0 * (k + 1) * (step + 1));
        out.push_back(p);
    }
    return out;
}

// w x h RGB with a gradient; when `nanPixels`, the top row is NaN (magenta) and one pixel Inf.
inline hs::PreviewImage preview(int w, int h, int step, bool nanPixels, bool full = false) {
    return hs::test::paintedPreview(
        w, h, step, full,
        [&](int x, int y) -> std::array<int, 3> {
            if (nanPixels && y == 0) return {255, 0, 255};
            return {x * 255 / std::max(1, w - 1), y * 255 / std::max(1, h - 1),
                    (x + y + step) % 256};
        },
        [&](int x, int y) {
            if (!nanPixels) return 0;
            return (x == 0 && y == h - 1) ? 2 : y == 0 ? 1 : 0;  // the top row NaN, one pixel Inf
        });
}

inline hs::RunRecord outcome(const hs::RunConfig& cfg, int steps) {
    hs::RunRecord r;
    r.config = cfg;
    r.effectivePlan = "text_encoder=bf16,transformer=fp16,vae=fp32";
    r.components = components();
    for (int i = 0; i < steps; ++i) r.steps.push_back(step(i));
    hs::ProbeRecord te;
    te.name = "text_encoder.final_layer_norm";
    te.granularity = hs::ProbeLevel::Module;
    te.step = -1;
    te.format = hs::Format::BF16;
    te.stats = stats(4.0);
    r.probes.push_back(te);
    for (int i = 0; i < steps; ++i) {
        auto p = probesOf(i);
        r.probes.insert(r.probes.end(), p.begin(), p.end());
    }
    hs::FirstNonFinite f;
    f.at = r.probes.back();
    f.at.stats = stats(70000.0, 5, 2);
    f.input = r.probes[r.probes.size() - 2];
    f.index = r.probes.size() - 1;
    r.firstNonFinite = f;
    r.textEmbedding = stats(4.0);
    r.image = stats(1.0, 30, 0);
    r.finalImage = preview(24, 16, -1, true, true);
    r.savedImage = preview(24, 16, -1, false, true);
    r.verdict = "nan/inf";
    r.verdictExplanation = "30 of 1000 image values are NaN";
    r.seconds = 12.5;
    r.estimate = hs::RunEstimate{14.0, 3.5e9, 3.0e9, -1};  // activations unknown (a GPU)
    return r;
}

}  // namespace testrec
