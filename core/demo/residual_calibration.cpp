#include "demo/residual_calibration.h"

#include <cmath>

#include "demo/dataset.h"
#include "demo/demo_config.h"
#include "families/clip/clip_text_model.h"
#include "families/flux/flux_latents.h"
#include "families/flux/flux_transformer.h"
#include "families/vae/autoencoder_kl.h"
#include "text/clip_tokenizer.h"

namespace hs::demo {

namespace {

bool isResidualStream(const std::string& n) {
    // Module-level outputs of the blocks: "transformer.transformer_blocks.3",
    // "transformer.transformer_blocks.3.context", "transformer.single_transformer_blocks.1".
    const auto blocks = n.find("transformer_blocks.");
    if (blocks == std::string::npos) return false;
    const auto rest = n.find('.', blocks + 19);
    return rest == std::string::npos || n.compare(rest, std::string::npos, ".context") == 0;
}

double peakOf(ProbeContext& p, bool (*keep)(const std::string&)) {
    double m = 0;
    for (const auto& r : p.records())
        if (keep(r.name) && std::isfinite(r.stats.absMax)) m = std::max(m, r.stats.absMax);
    return m;
}

bool isDecoderStream(const std::string& n) {
    return n == "vae.decoder.conv_in" || n == "vae.decoder.mid_block" ||
           n.rfind("vae.decoder.up_blocks.", 0) == 0;
}

}  // namespace

double transformerResidualPeak(ClipTextModel& text, FluxTransformer& flux,
                               const ClipTokenizer& tok) {
    torch::NoGradGuard noGrad;
    const torch::Device cpu(torch::kCPU);
    const int count = 16;
    const Batch batch = makeBatch(kHeldOutSeedBase + 2000000000ull, count, 16);
    std::vector<int64_t> ids;
    for (int i = 0; i <= count; ++i) {
        auto v = tok.encodePadded(i < count ? batch.captions[i] : std::string(), kTextLength);
        ids.insert(ids.end(), v.begin(), v.end());
    }
    ProbeContext quiet(PrecisionPlan(), cpu, ProbeLevel::Off);
    auto emb = text->forward(torch::tensor(ids).view({count + 1, kTextLength}), quiet);

    torch::manual_seed(0);
    FluxInputs in;
    in.hiddenStates = packLatents(torch::randn({count + 1, 4, 16, 16}));  // pure noise: sigma 1
    in.encoderHiddenStates = emb.lastHiddenState;
    in.pooledProjections = emb.poolerOutput;
    in.timestep = torch::ones({count + 1});
    in.imgIds = prepareLatentImageIds(8, 8);
    in.txtIds = prepareTextIds(kTextLength);
    ProbeContext tp(PrecisionPlan(), cpu, ProbeLevel::Module);
    flux->forward(in, tp);
    return peakOf(tp, isResidualStream);
}

ResidualPeaks measureResidualPeaks(const DemoExport& e, const std::string& tokenizerDir) {
    torch::NoGradGuard noGrad;
    ResidualPeaks peaks;
    const torch::Device cpu(torch::kCPU);
    const PrecisionPolicy loader(PrecisionPlan(), cpu);
    const int n = int(e.vocab.tokens.size());
    auto text = loadClipText(textEncoderConfig(n, n - 2, n - 1, n - 1), e.textEncoder, loader);
    auto flux = loadFluxTransformer(transformerConfig(), e.transformer, loader);
    auto vae = loadAutoencoderKL(vaeConfig(e.scalingFactor, e.shiftFactor), e.vae, loader);
    text->eval();
    flux->eval();
    vae->eval();
    peaks.transformer =
        transformerResidualPeak(text, flux, ClipTokenizer::fromFolder(tokenizerDir));
    peaks.vaeDecoder = vaeDecoderResidualPeak(vae, kImageSize);
    return peaks;
}

double vaeDecoderResidualPeak(AutoencoderKL& vae, int imageSize) {
    torch::NoGradGuard noGrad;
    const torch::Device cpu(torch::kCPU);
    ProbeContext quiet(PrecisionPlan(), cpu, ProbeLevel::Off);
    ProbeContext vp(PrecisionPlan(), cpu, ProbeLevel::Layer);
    const Batch batch = makeBatch(kHeldOutSeedBase + 2000000000ull, 16, imageSize);
    auto mean = vae->encode(batch.images, quiet).mean;  // [16, 4, 16, 16] decoder-space latents
    vae->decode(mean, vp);
    return peakOf(vp, isDecoderStream);
}

double residualScaleFor(double peak, double target) {
    if (!(peak > 0) || peak >= target) return 1.0;
    return std::exp2(std::ceil(std::log2(target / peak)));
}

}  // namespace hs::demo
