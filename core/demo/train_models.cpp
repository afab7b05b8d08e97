#include "demo/train_models.h"

#include <ATen/autocast_mode.h>

#include <cmath>

#include "demo/caption_grammar.h"
#include "demo/dataset.h"
#include "demo/demo_config.h"
#include "demo/prompt_following.h"
#include "families/flux/flux_latents.h"
#include "numerics/cpu_bf16.h"

namespace hs::demo {

AutocastBf16::AutocastBf16() : m_enabled(cpuHasBf16Instructions()) {
    if (!m_enabled) return;
    at::autocast::set_cpu_enabled(true);
    at::autocast::set_autocast_cpu_dtype(at::kBFloat16);
    at::autocast::increment_nesting();
}

AutocastBf16::~AutocastBf16() {
    if (!m_enabled) return;
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    at::autocast::set_cpu_enabled(false);
}

TrainModels makeTrainModels(const BpeVocabulary& vocab, const std::string& tokenizerDir) {
    TrainModels m{ClipTokenizer::fromFolder(tokenizerDir)};
    const int n = int(vocab.tokens.size());
    m.textEncoder =
        ClipTextModel(clipTextConfigFromJson(textEncoderConfig(n, n - 2, n - 1, n - 1)));
    m.transformer = FluxTransformer(FluxConfig::fromJson(transformerConfig()));
    m.vae = AutoencoderKL(AutoencoderKLConfig::fromJson(vaeConfig(1.0, 0.0)));
    nn::initialiseForTraining(*m.textEncoder);
    nn::initialiseForTraining(*m.transformer);
    nn::initialiseForTraining(*m.vae);
    torch::NoGradGuard g;
    // The posterior starts narrow (std e^-3 = 0.05 instead of 1): with unit noise the decoder
    // first sees noise only, and the VAE sat on a plateau for its first ~250 steps.
    for (auto& p : m.vae->named_parameters(true))
        if (p.key() == "quant_conv.bias")
            p.value().narrow(0, p.value().size(0) / 2, p.value().size(0) / 2).fill_(-6.0);
    for (auto& p : m.transformer->named_parameters(true)) {
        const std::string& k = p.key();
        if (k.find("norm1.linear") != std::string::npos ||
            k.find("norm1_context.linear") != std::string::npos ||
            k.find(".norm.linear") != std::string::npos || k.rfind("norm_out.linear", 0) == 0 ||
            k.rfind("proj_out.", 0) == 0)
            p.value().zero_();
    }
    return m;
}

LatentStatistics latentStatistics(TrainModels& m, uint64_t seed, int scenes) {
    torch::NoGradGuard g;
    LatentStatistics s;
    const int size = m.vae->config().sampleSize.at(0);
    auto batch = makeBatch(kHeldOutSeedBase + (seed % 1000) * 100000, scenes, size);
    auto mean = m.vae->encode(batch.images, m.probes).mean;  // [scenes, 4, 16, 16]
    auto rec = m.vae->decode(mean, m.probes).clamp(-1, 1);
    const double mse = (rec - batch.images).pow(2).mean().item<double>();
    s.heldOutPsnr = 10 * std::log10(4.0 / mse);  // peak-to-peak 2 in [-1, 1]
    PromptFollowing readBack;
    addReadings(readBack, batch, rec);
    s.heldOutShapes = readBack.shapeRate();
    s.shift = mean.mean().item<double>();
    s.scaling = 1.0 / mean.std().item<double>();
    // Least squares RGB ~ [latents, 1] per latent pixel, against the image averaged over each
    // latent pixel's area (8x8 pixels at 128).
    auto lat = ((mean - s.shift) * s.scaling).permute({0, 2, 3, 1}).reshape({-1, 4});
    auto x = torch::cat({lat, torch::ones({lat.size(0), 1})}, 1).to(torch::kFloat64);  // [P, 5]
    auto rgb = torch::avg_pool2d(batch.images, batch.images.size(2) / mean.size(2))
                   .permute({0, 2, 3, 1})
                   .reshape({-1, 3});
    auto y = rgb.to(torch::kFloat64);  // [P, 3]
    auto w = torch::matmul(torch::inverse(x.t().mm(x) + 1e-6 * torch::eye(5, torch::kFloat64)),
                           x.t().mm(y));  // [5, 3]
    auto wc = w.contiguous();
    s.rgbFactors.assign(wc.data_ptr<double>(), wc.data_ptr<double>() + 15);
    return s;
}

EncodedSet encodeScenes(TrainModels& m, AutoencoderKL& vae, int imageSize, uint64_t seed, int count,
                        double scaling, double shift) {
    torch::NoGradGuard g;
    EncodedSet d;
    std::vector<torch::Tensor> lat, cover;
    const uint64_t base = (seed % 1000) * 1000000000ull + 500000000ull;
    const int chunk = 256;
    for (int i = 0; i < count; i += chunk) {
        const int n = std::min(chunk, count - i);
        auto batch = makeBatch(base + uint64_t(i), n, imageSize);
        lat.push_back((vae->encode(batch.images, m.probes).mean.to(torch::kFloat32) - shift) *
                      scaling);
        const int64_t f = imageSize / lat.back().size(2);          // pixels per latent pixel
        cover.push_back(torch::avg_pool2d(objectMask(batch), f));  // [n, 1, 16, 16]
        d.scenes.insert(d.scenes.end(), batch.scenes.begin(), batch.scenes.end());
    }
    d.latents = torch::cat(lat);
    d.objectCover = torch::cat(cover);
    auto e = m.tokenizer.encodePadded("", kTextLength);
    d.emptyIds = torch::tensor(std::vector<int64_t>(e.begin(), e.end()), torch::kInt64);
    return d;
}

namespace {

// [N, kTextLength] int64: a training-grammar caption of each scene, phrased by its seed.
torch::Tensor captionIds(const ClipTokenizer& tokenizer, const std::vector<Scene>& scenes,
                         const std::vector<uint64_t>& seeds) {
    auto t = torch::empty({int64_t(scenes.size()), kTextLength}, torch::kInt64);
    auto acc = t.accessor<int64_t, 2>();
    for (size_t j = 0; j < scenes.size(); ++j) {
        const auto v = tokenizer.encodePadded(
            describeScene(scenes[j], seeds[j], TemplateSet::Training).text, kTextLength);
        for (int k = 0; k < kTextLength; ++k) acc[int64_t(j)][k] = int64_t(v[size_t(k)]);
    }
    return t;
}

}  // namespace

torch::Tensor flowMatchingLoss(TrainModels& m, const EncodedSet& data, int batch, double dropout,
                               double objectWeight) {
    auto idx = torch::randint(data.latents.size(0), {batch}, torch::kInt64);
    auto x0 = data.latents.index_select(0, idx);  // [B, 4, 16, 16]
    // The phrasing seeds come from torch's generator, seeded per step: a resumed run repeats them.
    auto phrasing = torch::randint(int64_t(1) << 62, {batch}, torch::kInt64);
    std::vector<Scene> scenes;
    std::vector<uint64_t> seeds;
    for (int64_t j = 0; j < batch; ++j) {
        scenes.push_back(data.scenes[size_t(idx[j].item<int64_t>())]);
        seeds.push_back(uint64_t(phrasing[j].item<int64_t>()));
    }
    auto ids = captionIds(m.tokenizer, scenes, seeds);  // [B, L]
    auto drop = torch::rand({batch}) < dropout;
    ids = torch::where(drop.unsqueeze(1), data.emptyIds.unsqueeze(0).expand_as(ids), ids);
    auto text = m.textEncoder->forward(ids, m.probes);
    auto t = torch::sigmoid(torch::randn({batch}));  // logit-normal sigma
    auto noise = torch::randn_like(x0);
    auto tt = t.view({-1, 1, 1, 1});
    auto xt = (1 - tt) * x0 + tt * noise;
    auto target = packLatents(noise - x0);  // [B, 64, 16]
    FluxInputs in;
    in.hiddenStates = packLatents(xt);
    in.encoderHiddenStates = text.lastHiddenState;
    in.pooledProjections = text.poolerOutput;
    in.timestep = t;
    in.imgIds = prepareLatentImageIds(x0.size(2) / 2, x0.size(3) / 2);
    in.txtIds = prepareTextIds(ids.size(1));
    auto v = m.transformer->forward(in, m.probes);
    if (objectWeight == 1) return torch::mse_loss(v.to(torch::kFloat32), target);
    auto w = 1 + (objectWeight - 1) * data.objectCover.index_select(0, idx);  // [B, 1, 16, 16]
    w = packLatents(w.expand_as(x0).contiguous());                            // [B, 64, 16]
    return (w * (v.to(torch::kFloat32) - target).pow(2)).sum() / w.sum();
}

}  // namespace hs::demo
