#include "demo/demo_export.h"

#include <filesystem>
#include <sstream>

#include "demo/demo_config.h"
#include "demo/massive_activations.h"
#include "demo/residual_calibration.h"
#include "io/atomic_file.h"
#include "io/safetensors.h"

namespace hs::demo {

namespace fs = std::filesystem;

namespace {

// Through AtomicFile: a file or symlink planted at a temporary name is never followed.
void writeText(const fs::path& path, const std::string& text) {
    writeFileAtomically(path.string(), text.data(), text.size());
}

void writeBf16(const fs::path& path, const WeightMap& w) {
    std::vector<std::pair<std::string, torch::Tensor>> list;
    for (const auto& kv : w)
        list.emplace_back(
            kv.first, kv.second.is_floating_point() ? kv.second.to(torch::kBFloat16) : kv.second);
    writeSafetensors(path.string(), list, {{"format", "pt"}});
}

}  // namespace

void exportDemoPipeline(const std::string& dir, const DemoExport& e) {
    const fs::path final(dir);
    fs::path staging = final;
    staging += ".partial";
    fs::remove_all(staging);
    fs::create_directories(staging);

    const int bos = int(e.vocab.tokens.size()) - 2, eos = bos + 1;
    for (const char* sub : {"text_encoder", "tokenizer", "transformer", "vae", "scheduler"})
        fs::create_directories(staging / sub);
    writeTokenizerFolder((staging / "tokenizer").string(), e.vocab, kTextLength);

    // Scales <= 0: chosen from the trained streams' peaks (residual_calibration.h).
    const ResidualPeaks peaks = measureResidualPeaks(e, (staging / "tokenizer").string());
    const double cT = e.residualScaleTransformer > 0 ? e.residualScaleTransformer
                                                     : residualScaleFor(peaks.transformer);
    const double cV =
        e.residualScaleVae > 0 ? e.residualScaleVae : residualScaleFor(peaks.vaeDecoder);
    WeightMap transformer = e.transformer, vae = e.vae;
    const auto scaledT = scaleFluxResidual(transformer, cT);
    const auto scaledV = scaleVaeDecoderResidual(vae, cV);

    writeText(staging / "model_index.json", modelIndex().dump(2) + "\n");
    writeText(staging / "text_encoder" / "config.json",
              textEncoderConfig(int(e.vocab.tokens.size()), bos, eos, eos).dump(2) + "\n");
    writeBf16(staging / "text_encoder" / "model.safetensors", e.textEncoder);
    writeText(staging / "transformer" / "config.json", transformerConfig().dump(2) + "\n");
    writeBf16(staging / "transformer" / "diffusion_pytorch_model.safetensors", transformer);
    auto vcfg = vaeConfig(e.scalingFactor, e.shiftFactor);
    vcfg["latent_rgb_factors"] = e.latentRgbFactors;
    writeText(staging / "vae" / "config.json", vcfg.dump(2) + "\n");
    writeBf16(staging / "vae" / "diffusion_pytorch_model.safetensors", vae);
    writeText(staging / "scheduler" / "scheduler_config.json", schedulerConfig().dump(2) + "\n");

    std::string readme =
        "# Halfscope demo model\n\n"
        "A small text-to-image model of shapes on coloured backgrounds, trained on CPU by\n"
        "`halfscope-cli train-demo`, stored like a diffusers pipeline folder: a CLIP-style text\n"
        "encoder (`CLIPTextModel`) that gives both the token sequence and the pooled vector, a\n"
        "Flux-style transformer (`FluxTransformer2DModel`), an `AutoencoderKL`, and a\n"
        "`FlowMatchEulerDiscreteScheduler`. Weights are stored in bf16.\n\n"
        "It draws 128x128 pictures of one or two shapes (circle, square, triangle, ring, star;\n"
        "eight colours, two sizes, five positions) on a coloured background. It was trained on\n"
        "captions from a small grammar (core/demo/caption_grammar.cpp): size, position and\n"
        "background each optional, synonyms (big / large, tiny / small / little, centre /\n"
        "center / middle ...), either adjective order, capitals, punctuation and a few words\n"
        "that mean nothing. Words outside the grammar are named as not understood.\n"
        "`halfscope-cli evaluate-demo` measures it on templates the trainer never drew.\n\n"
        "## Massive activations, on purpose\n\n"
        "Real bf16-trained models overflow in fp16 because a few activations are huge. This\n"
        "checkpoint has the same property through a function-preserving reparametrisation of\n"
        "the trained weights: every writer into a residual stream was multiplied by a constant\n"
        "c, so the stream is c times larger, and every reader of the stream normalises first\n"
        "(LayerNorm / GroupNorm, scale-invariant) or is linear with its bias scaled too.\n"
        "fp32 and bf16 compute the same function (up to the norms' eps, relatively ~eps/var,\n"
        "far below bf16's resolution), while fp16 overflows.\n\n";
    auto num = [](double v) {
        std::ostringstream o;
        o.precision(4);
        o << v;
        return o.str();
    };
    readme +=
        "Largest |activation| of the residual streams, measured in fp32 (transformer: 16\n"
        "held-out captions at the first sampling step; VAE decoder: 16 held-out scenes);\n"
        "fp16's largest value is 65504:\n\n"
        "| residual stream | before the scaling | after |\n"
        "|---|---|---|\n"
        "| transformer | " +
        num(peaks.transformer) + " | " + num(peaks.transformer * cT) +
        " |\n"
        "| VAE decoder | " +
        num(peaks.vaeDecoder) + " | " + num(peaks.vaeDecoder * cV) +
        " |\n\n"
        "c is the smallest power of two that takes the peak to at least 2^17, so only\n"
        "exponents change and bf16 stores the scaled weights exactly.\n\n";
    readme += "- transformer: c = " + num(cT) + ", scaled " + std::to_string(scaledT.size()) +
              " tensors: x_embedder, context_embedder, attn.to_out.0, attn.to_add_out,\n"
              "  ff.net.2, ff_context.net.2 (double-stream blocks), proj_out (single-stream "
              "blocks), weights and biases.\n";
    readme += "- VAE decoder: c = " + num(cV) + ", scaled " + std::to_string(scaledV.size()) +
              " tensors: decoder.conv_in, every resnet's conv2 and the mid-block attention's\n"
              "  to_out.0 (weights and biases), and the biases of every conv_shortcut and\n"
              "  upsampler conv.\n\n";
    readme += e.trainingSummary;
    writeText(staging / "README.md", readme);

    fs::path old = final;
    old += ".old";
    fs::remove_all(old);
    if (fs::exists(final)) fs::rename(final, old);
    fs::rename(staging, final);
    fs::remove_all(old);
}

}  // namespace hs::demo
