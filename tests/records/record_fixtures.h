#pragma once
// Hand-built run records that look like what the pipeline records: 20 steps of a Flux-style
// transformer with 3 double and 3 single blocks, a 2-layer CLIP text encoder and an
// AutoencoderKL decoder, probed at layer granularity. Magnitudes follow a per-point profile;
// an optional failure point turns that point into +Inf and everything after it into NaN, as
// an fp16 overflow does.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "preview_pixels.h"
#include "records/run_types.h"

namespace hs::test {

inline TensorStats statsOf(int64_t count, double absMax, int64_t nan = 0, int64_t posInf = 0,
                           int64_t negInf = 0) {
    TensorStats s;
    s.count = count;
    s.nan = nan;
    s.posInf = posInf;
    s.negInf = negInf;
    s.finite = count - nan - posInf - negInf;
    if (s.finite > 0) {
        s.max = absMax;
        s.min = -0.8 * absMax;
        s.absMax = absMax;
        s.mean = 0.01 * absMax;
        s.std = 0.2 * absMax;
        s.overFp16 = absMax > 65504 ? std::max<int64_t>(1, count / 1000) : 0;
    }
    return s;
}

// Probe names of one pass, in call order.
using ProbePoints = std::vector<std::pair<std::string, ProbeLevel>>;

// Appends `count` numbered blocks `prefix.N`: each block's layers in call order, then the block.
inline void addProbeBlocks(ProbePoints& v, const std::string& prefix, int count,
                           std::initializer_list<const char*> layers) {
    for (int i = 0; i < count; ++i) {
        const std::string p = prefix + "." + std::to_string(i);
        for (const char* layer : layers) v.push_back({p + layer, ProbeLevel::Layer});
        v.push_back({p, ProbeLevel::Module});
    }
}

inline ProbePoints textEncoderPoints() {
    ProbePoints v{{"text_encoder.text_model.embeddings", ProbeLevel::Layer}};
    addProbeBlocks(v, "text_encoder.text_model.encoder.layers", 2, {".self_attn", ".mlp"});
    v.push_back({"text_encoder.text_model.final_layer_norm", ProbeLevel::Layer});
    return v;
}

inline ProbePoints transformerPoints() {
    ProbePoints v{{"transformer.time_text_embed", ProbeLevel::Layer},
                  {"transformer.context_embedder", ProbeLevel::Layer},
                  {"transformer.x_embedder", ProbeLevel::Layer}};
    addProbeBlocks(v, "transformer.transformer_blocks", 3,
                   {".norm1", ".attn", ".ff", ".ff_context"});
    addProbeBlocks(v, "transformer.single_transformer_blocks", 3, {".norm", ".proj_out"});
    v.push_back({"transformer.norm_out", ProbeLevel::Layer});
    v.push_back({"transformer.proj_out", ProbeLevel::Layer});
    return v;
}

inline ProbePoints vaePoints() {
    ProbePoints v{{"vae.post_quant_conv", ProbeLevel::Module},
                  {"vae.decoder.conv_in", ProbeLevel::Layer},
                  {"vae.decoder.mid_block.resnets.0", ProbeLevel::Layer},
                  {"vae.decoder.mid_block.attentions.0", ProbeLevel::Layer},
                  {"vae.decoder.mid_block", ProbeLevel::Module}};
    addProbeBlocks(v, "vae.decoder.up_blocks", 4, {".resnets.0"});
    v.push_back({"vae.decoder.conv_norm_out", ProbeLevel::Layer});
    v.push_back({"vae.decoder.conv_out", ProbeLevel::Module});
    return v;
}

struct FixtureOptions {
    int steps = 20;
    Format textFormat = Format::FP32;
    Format transformerFormat = Format::FP32;
    Format vaeFormat = Format::FP32;
    Execution fp16Execution = Execution::Emulated;  // CPU
    // |max| of a point at a step; the default stays far below 65504.
    std::function<double(const std::string&, int)> magnitude;
    // Where the run fails: that record holds +Inf, every later record (and the latents from
    // that step on, and the image) holds NaN. Nullopt: a clean run.
    std::optional<std::pair<std::string, int>> failAt;
    bool failWithNaNOnly = false;  // the failing point holds NaN, no Inf
    bool keepLatents = false;
    bool withImages = true;
    ProbeLevel probeLevel = ProbeLevel::Layer;
};

// Each of `parts` is in `text` (a failure names the part).
inline void expectHas(const std::string& text, std::initializer_list<std::string> parts) {
    for (const auto& p : parts) EXPECT_NE(text.find(p), std::string::npos) << "missing: " << p;
}

// None of `parts` is in `text`.
inline void expectHasNone(const std::string& text, std::initializer_list<std::string> parts) {
    for (const auto& p : parts) EXPECT_EQ(text.find(p), std::string::npos) << "present: " << p;
}

inline double defaultMagnitude(const std::string& name, int step) {
    double base = 4.0 + double(name.size() % 7);
    if (name.find(".ff") != std::string::npos) base *= 40;
    if (name.find("single_transformer_blocks") != std::string::npos) base *= 3;
    if (name.rfind("vae.", 0) == 0) base *= 20;
    return base * (1.0 + 0.02 * std::max(step, 0));
}

inline PreviewImage previewImage(int w, int h, int step, bool full, bool nan) {
    // NaN pixels are magenta, as the engine paints them.
    return paintedPreview(
        w, h, step, full,
        [&](int x, int y) -> std::array<int, 3> {
            if (nan) return {255, 0, 255};
            return {x * 255 / std::max(1, w - 1), y * 255 / std::max(1, h - 1),
                    (step * 37 + 40) % 256};
        },
        [&](int, int) { return nan ? 1 : 0; });
}

inline RunRecord makeRun(const FixtureOptions& o = {}) {
    RunRecord r;
    r.config.modelDir = "/models/demo <flux>";
    r.config.prompt = "a red fox & a \"blue\" <b>bird</b>";
    r.config.negativePrompt = "blurry";
    r.config.seed = 42;
    r.config.steps = o.steps;
    r.config.guidance = 3.5;
    r.config.width = 64;
    r.config.height = 64;
    r.config.shift = 1.15;
    r.config.probeLevel = o.probeLevel;
    r.config.keepLatents = o.keepLatents;
    r.config.decodeEvery = 5;
    r.config.plan.add("transformer", o.transformerFormat);
    r.config.plan.add("vae", o.vaeFormat);
    PrecisionPlan eff;
    eff.add("text_encoder", Format::BF16);
    eff.add("transformer", Format::BF16);
    eff.add("vae", Format::FP32);
    eff.add("text_encoder", o.textFormat);
    eff.add("transformer", o.transformerFormat);
    eff.add("vae", o.vaeFormat);
    r.effectivePlan = eff.toString();
    auto exec = [&](Format f) { return f == Format::FP16 ? o.fp16Execution : Execution::Native; };
    r.components = {
        {"text_encoder", Role::TextEncoder, "CLIPTextModel", "BF16", 1200000, o.textFormat,
         exec(o.textFormat)},
        {"transformer", Role::Denoiser, "FluxTransformer2DModel", "BF16", 12000000,
         o.transformerFormat, exec(o.transformerFormat)},
        {"vae", Role::Vae, "AutoencoderKL", "F32", 3000000, o.vaeFormat, exec(o.vaeFormat)},
    };
    auto mag = o.magnitude ? o.magnitude
                           : std::function<double(const std::string&, int)>(defaultMagnitude);
    bool failed = false;
    auto add = [&](const std::string& name, ProbeLevel g, int step, Format f) {
        if (int(g) > int(o.probeLevel)) return;
        ProbeRecord p;
        p.name = name;
        p.granularity = g;
        p.step = step;
        p.format = f;
        p.execution = exec(f);
        const int64_t n = 4096;
        if (!failed && o.failAt && o.failAt->first == name && o.failAt->second == step) {
            failed = true;
            p.stats = o.failWithNaNOnly ? statsOf(n, 1.0, 7) : statsOf(n, 70000.0, 0, 12, 3);
        } else if (failed) {
            p.stats = statsOf(n, std::nan(""), n);
        } else {
            p.stats = statsOf(n, mag(name, step));
        }
        r.probes.push_back(p);
    };
    for (auto& [name, g] : textEncoderPoints()) add(name, g, -1, o.textFormat);
    r.textEmbedding = failed ? statsOf(2 * 77 * 64, 0, 2 * 77 * 64) : statsOf(2 * 77 * 64, 28.0);
    for (int s = 0; s < o.steps; ++s) {
        for (auto& [name, g] : transformerPoints()) add(name, g, s, o.transformerFormat);
        StepRecord st;
        st.step = s;
        st.sigma = 1.0 - double(s) / o.steps;
        st.timestep = st.sigma * 1000;
        const bool bad = failed;
        const int64_t n = 16 * 8 * 8;
        st.latent = bad ? statsOf(n, 0, n) : statsOf(n, 3.0 - 0.05 * s);
        st.velocity = bad ? statsOf(n, 0, n) : statsOf(n, 2.0);
        st.denoised = bad ? statsOf(n, 0, n) : statsOf(n, 1.5);
        st.seconds = 0.25 + 0.001 * s;
        if (o.keepLatents) {
            st.latentValues.resize(n);
            for (int64_t i = 0; i < n; ++i)
                st.latentValues[i] = bad ? std::nanf("") : float(std::sin(0.1 * double(i) + s));
        }
        r.steps.push_back(st);
        if (o.withImages) {
            r.previews.push_back(previewImage(8, 8, s, false, bad));
            if ((s + 1) % 5 == 0) r.previews.push_back(previewImage(16, 16, s, true, bad));
        }
    }
    for (auto& [name, g] : vaePoints()) add(name, g, -1, o.vaeFormat);
    const int64_t pixels = 3 * 64 * 64;
    r.image = failed ? statsOf(pixels, 0, pixels) : statsOf(pixels, 0.97);
    if (o.withImages) {
        r.finalImage = previewImage(16, 16, -1, true, failed);
        PreviewImage saved = previewImage(16, 16, -1, true, false);
        if (failed) std::fill(saved.rgb.begin(), saved.rgb.end(), 0);
        saved.nonFinite = r.finalImage->nonFinite;
        r.savedImage = saved;
    }
    r.verdict = failed ? "nan/inf" : "ok";
    r.verdictExplanation =
        failed ? "12288 NaN and 0 Inf values of 12288; saved as a PNG they turn black"
               : "mean level 0.48, std 0.21";
    if (failed) {
        for (size_t i = 0; i < r.probes.size(); ++i)
            if (r.probes[i].stats.nonFinite() > 0) {
                FirstNonFinite f;
                f.at = r.probes[i];
                if (i > 0) f.input = r.probes[i - 1];
                f.index = i;
                r.firstNonFinite = f;
                break;
            }
    }
    r.seconds = 6.5;
    r.estimate = RunEstimate{7.25, 1.5e9, 1.25e9, 2.5e8};
    return r;
}

}  // namespace hs::test
