#include "families/unet/unet_model.h"

#include "runtime/parallelism.h"

namespace hs {

namespace {

std::string got(const torch::Tensor& t) {
    if (!t.defined()) return "nothing";
    return std::string(c10::toString(t.scalar_type())) + " " + shapeText(t.sizes());
}

[[noreturn]] void badInput(const std::string& key, const std::string& expected,
                           const torch::Tensor& t) {
    throw InputError("input '" + key + "': expected " + expected + ", got " + got(t));
}

bool isNumeric(const torch::Tensor& t) {
    return t.is_floating_point() || (c10::isIntegralType(t.scalar_type(), /*includeBool=*/false));
}

}  // namespace

void checkUNetInputs(const UNetConfig& c, const UNetInputs& in) {
    const std::string sampleShape =
        "a floating tensor of shape [B, " + std::to_string(c.inChannels) + ", h, w]";
    const auto& s = in.sample;
    if (!s.defined() || s.dim() != 4 || !s.is_floating_point() || s.size(0) < 1 ||
        s.size(1) != c.inChannels || s.size(2) < 1 || s.size(3) < 1)
        badInput("in.sample", sampleShape, s);
    const int64_t B = s.size(0);
    const std::string b = std::to_string(B);
    const auto& t = in.timestep;
    const bool tOk = t.defined() && isNumeric(t) &&
                     (t.dim() == 0 || (t.dim() == 1 && (t.size(0) == 1 || t.size(0) == B)));
    if (!tOk) badInput("in.timestep", "a number, [1] or [" + b + "] (the diffusion timestep)", t);
    const auto& e = in.encoderHiddenStates;
    const std::string d = std::to_string(c.contextDim());
    if (!e.defined() || e.dim() != 3 || !e.is_floating_point() || e.size(0) != B || e.size(1) < 1 ||
        e.size(2) != c.contextDim())
        badInput("in.encoder_hidden_states", "a floating tensor of shape [" + b + ", L, " + d + "]",
                 e);
    if (c.additionEmbedType != "text_time") {
        if (in.textEmbeds.defined() || in.timeIds.defined())
            throw InputError(
                std::string("input '") +
                (in.textEmbeds.defined() ? "in.text_embeds" : "in.time_ids") +
                "': this UNet takes no added conditions (addition_embed_type is null)");
        return;
    }
    // text_time: add_embedding reads [text_embeds | time embeddings of each time id].
    const int proj = c.projectionClassEmbeddingsInputDim, atd = c.additionTimeEmbedDim;
    const auto& ids = in.timeIds;
    if (!ids.defined() || ids.dim() != 2 || !isNumeric(ids) || ids.size(0) != B ||
        ids.size(1) < 1 || ids.size(1) * atd >= proj)
        badInput("in.time_ids",
                 "a tensor of shape [" + b +
                     ", n] (SDXL: n = 6, original size, crop top-left, "
                     "target size) with n x addition_time_embed_dim (" +
                     std::to_string(atd) + ") below projection_class_embeddings_input_dim (" +
                     std::to_string(proj) + ")",
                 ids);
    const int64_t p = proj - ids.size(1) * atd;
    const auto& te = in.textEmbeds;
    if (!te.defined() || te.dim() != 2 || !te.is_floating_point() || te.size(0) != B ||
        te.size(1) != p)
        badInput("in.text_embeds",
                 "a floating tensor of shape [" + b + ", " + std::to_string(p) +
                     "] (projection_class_embeddings_input_dim " + std::to_string(proj) + " - " +
                     std::to_string(ids.size(1)) + " time ids x " + std::to_string(atd) + ")",
                 te);
}

UNet2DConditionModelImpl::UNet2DConditionModelImpl(UNetConfig cfg, const std::string& component)
    : m_cfg(std::move(cfg)), m_component(component) {
    const std::string p = component.empty() ? "" : component + ".";
    m_addPath = p + "add_embedding";
    m_nConvIn = {p + "conv_in", ProbeLevel::Module};
    m_nTimeProj = {p + "time_proj", ProbeLevel::Op};
    m_nAddTimeProj = {p + "add_time_proj", ProbeLevel::Op};
    m_nEmbSum = {p + "time_embedding.sum", ProbeLevel::Op};
    m_nNormOut = {p + "conv_norm_out", ProbeLevel::Layer};
    m_nAct = {p + "conv_act", ProbeLevel::Op};
    m_nConvOut = {p + "conv_out", ProbeLevel::Module};

    const UNetConfig& c = m_cfg;
    const auto& ch = c.blockOutChannels;
    const int n = c.levels(), tdim = c.timeEmbedDim();
    m_convIn = register_module("conv_in", nn::Conv2d(c.inChannels, ch.front(), 3, 1, 1));
    m_timeEmbedding = register_module(
        "time_embedding",
        UNetTimestepEmbedding(ch.front(), tdim, p + "time_embedding", ProbeLevel::Module));
    if (c.additionEmbedType == "text_time")
        m_addEmbedding = register_module(
            "add_embedding", UNetTimestepEmbedding(c.projectionClassEmbeddingsInputDim, tdim,
                                                   m_addPath, ProbeLevel::Module));

    auto spec = [&](int i, bool cross, const std::vector<int>& layers) {
        UNetBlockSpec s;
        s.tembChannels = tdim;
        s.groups = c.normNumGroups;
        s.eps = c.normEps;
        if (cross) s.transformerLayers = layers;
        s.heads = c.numAttentionHeads[size_t(i)];
        s.crossDim = c.crossAttentionDim[size_t(i)];
        s.linearProjection = c.useLinearProjection;
        s.upcast = c.upcastAttention;
        return s;
    };
    int out = ch.front();
    for (int i = 0; i < n; ++i) {
        const int in = out;
        out = ch[size_t(i)];
        m_downs.emplace_back(in, out, c.layersPerBlock[size_t(i)],
                             spec(i, c.isCrossAttnDown(i), c.downTransformerLayers[size_t(i)]),
                             i < n - 1, c.downsamplePadding,
                             p + "down_blocks." + std::to_string(i));
        m_downBlocks->push_back(m_downs.back());
    }
    register_module("down_blocks", m_downBlocks);
    if (c.hasMidBlock())
        m_midBlock = register_module(
            "mid_block", UNetMidBlock(ch.back(), spec(n - 1, true, {c.midTransformerLayers}),
                                      c.midBlockScaleFactor, p + "mid_block"));
    // Up blocks run over the reversed channels, heads and cross widths (diffusers' reversed_*).
    out = ch.back();
    for (int i = 0; i < n; ++i) {
        const int r = n - 1 - i;  // the down block this up block mirrors
        const int prev = out;
        out = ch[size_t(r)];
        const int in = ch[size_t(std::max(r - 1, 0))];
        m_ups.emplace_back(in, prev, out, c.layersPerBlock[size_t(r)] + 1,
                           spec(r, c.isCrossAttnUp(i), c.upTransformerLayers[size_t(i)]), i < n - 1,
                           p + "up_blocks." + std::to_string(i));
        m_upBlocks->push_back(m_ups.back());
    }
    register_module("up_blocks", m_upBlocks);
    m_convNormOut =
        register_module("conv_norm_out", nn::GroupNorm(c.normNumGroups, ch.front(), c.normEps));
    m_convOut = register_module("conv_out", nn::Conv2d(ch.front(), c.outChannels, 3, 1, 1));
}

torch::Tensor UNet2DConditionModelImpl::timeEmbedding(const UNetInputs& in, int64_t B,
                                                      ProbeContext& probes) {
    const UNetConfig& c = m_cfg;
    const auto& w1 = m_timeEmbedding->linear_1->weight;
    // get_time_embed: timesteps expanded to the batch, projected in float32, then in the
    // model's dtype.
    auto t = onDeviceOf(in.timestep, w1).reshape({-1}).expand({B});  // [B]
    auto tEmb = timestepSinusoid(t, c.blockOutChannels.front(), c.flipSinToCos, c.freqShift);
    tEmb = probes.point(m_nTimeProj, asTypeOf(tEmb, w1));  // [B, C0]
    auto emb = m_timeEmbedding->forward(tEmb, probes);     // [B, T]
    if (!m_addEmbedding) return emb;
    // get_aug_embed, "text_time": add_time_proj(time_ids.flatten()) reshaped per sample,
    // concatenated after text_embeds, in emb's dtype.
    const auto& a1 = m_addEmbedding->linear_1->weight;
    auto ids = onDeviceOf(in.timeIds, a1).reshape({-1});  // [B n]
    auto timeEmbeds = timestepSinusoid(ids, c.additionTimeEmbedDim, c.flipSinToCos, c.freqShift)
                          .reshape({B, -1});                                 // [B, n atd] float32
    auto text = probes.enter(m_addPath, onDeviceOf(in.textEmbeds, a1), a1);  // [B, P]
    auto add = torch::cat({text.to(torch::kFloat32), timeEmbeds}, -1);       // [B, proj]
    add = probes.point(m_nAddTimeProj, asTypeOf(add, a1));
    auto aug = m_addEmbedding->forward(add, probes);  // [B, T]
    return probes.point(m_nEmbSum, emb + asTypeOf(aug, emb));
}

torch::Tensor UNet2DConditionModelImpl::forward(const UNetInputs& in, ProbeContext& probes) {
    checkUNetInputs(m_cfg, in);
    const auto& w = m_convIn->weight;
    const int64_t B = in.sample.size(0);
    const int64_t c0 = m_cfg.blockOutChannels.front();
    SmallWork work(B * in.sample.size(2) * in.sample.size(3) * 9 * c0 * c0);  // a level-0 conv

    auto temb = timeEmbedding(in, B, probes);  // [B, T]
    // The latents and the text states enter in conv_in's format (the pipeline holds them in the
    // model's dtype); each layer casts to its own weights' dtype from there.
    auto x = probes.enter(m_nConvIn.name, onDeviceOf(in.sample, w), w);  // [B, C, h, w]
    auto ctx = probes.enter(m_nConvIn.name, onDeviceOf(in.encoderHiddenStates, w), w);
    if (m_cfg.centerInputSample) x = x * 2 - 1.0;
    x = probes.point(m_nConvIn, m_convIn->forward(x));  // [B, C0, h, w]

    std::vector<torch::Tensor> skips{x};
    for (auto& b : m_downs) x = b->forward(x, temb, ctx, skips, probes);  // [B, Cn, h/f, w/f]
    if (m_midBlock) x = m_midBlock->forward(x, temb, ctx, probes);
    for (auto& b : m_ups) x = b->forward(x, temb, ctx, skips, probes);  // [B, C0, h, w]
    x = probes.point(m_nNormOut, m_convNormOut->forward(x));
    x = probes.point(m_nAct, torch::silu_(x));
    return probes.point(m_nConvOut, m_convOut->forward(x));  // [B, out, h, w]
}

UNet2DConditionModel loadUNet2DConditionModel(const nlohmann::json& config,
                                              const WeightMap& weights,
                                              const PrecisionPolicy& policy,
                                              const std::string& component) {
    UNet2DConditionModel model(unetConfigFromJson(config), component);
    loadWeights(*model, weights, component, policy);
    for (auto& p : model->parameters()) p.set_requires_grad(false);
    model->eval();
    return model;
}

}  // namespace hs
