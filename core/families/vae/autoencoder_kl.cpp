#include "families/vae/autoencoder_kl.h"

#include "runtime/parallelism.h"

namespace hs {

namespace {

using Kind = VaeSamplingBlockImpl::Kind;

}  // namespace

// ---- Encoder ------------------------------------------------------------------------------

VaeEncoderImpl::VaeEncoderImpl(const AutoencoderKLConfig& cfg, const std::string& path)
    : m_nConvIn(path + ".conv_in", ProbeLevel::Layer),
      m_nNormOut(path + ".conv_norm_out", ProbeLevel::Layer),
      m_nAct(path + ".conv_act", ProbeLevel::Op),
      m_nConvOut(path + ".conv_out", ProbeLevel::Module) {
    const auto& ch = cfg.blockOutChannels;
    const int g = cfg.normNumGroups;
    m_convIn = register_module("conv_in", vaeConv2dLayer(cfg.inChannels, ch.front(), 3, 1, 1));
    int out = ch.front();
    for (int i = 0; i < cfg.levels(); ++i) {
        const int in = out;
        out = ch[i];
        const bool last = i == cfg.levels() - 1;
        m_blocks.emplace_back(Kind::DownEncoder, in, out, cfg.layersPerBlock, g, !last,
                              path + ".down_blocks." + std::to_string(i));
        m_downBlocks->push_back(m_blocks.back());
    }
    register_module("down_blocks", m_downBlocks);
    m_midBlock = register_module(
        "mid_block", VaeMidBlock2D(ch.back(), g, cfg.midBlockAddAttention, path + ".mid_block"));
    m_convNormOut = register_module("conv_norm_out", vaeGroupNormLayer(g, ch.back()));
    m_convOut =
        register_module("conv_out", vaeConv2dLayer(ch.back(), 2 * cfg.latentChannels, 3, 1, 1));
}

torch::Tensor VaeEncoderImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_nConvIn, m_convIn->forward(x));  // [B, C0, H, W]
    for (auto& b : m_blocks) h = b->forward(h, probes);      // [B, C_last, H/f, W/f]
    h = m_midBlock->forward(h, probes);                      // [B, C_last, H/f, W/f]
    h = probes.point(m_nNormOut, m_convNormOut->forward(h));
    h = probes.point(m_nAct, torch::silu_(h));
    return probes.point(m_nConvOut, m_convOut->forward(h));  // [B, 2Cl, h, w]
}

// ---- Decoder ------------------------------------------------------------------------------

VaeDecoderImpl::VaeDecoderImpl(const AutoencoderKLConfig& cfg, const std::string& path)
    : m_nConvIn(path + ".conv_in", ProbeLevel::Layer),
      m_nNormOut(path + ".conv_norm_out", ProbeLevel::Layer),
      m_nAct(path + ".conv_act", ProbeLevel::Op),
      m_nConvOut(path + ".conv_out", ProbeLevel::Module) {
    const std::vector<int> rev(cfg.blockOutChannels.rbegin(), cfg.blockOutChannels.rend());
    const int g = cfg.normNumGroups;
    m_convIn = register_module("conv_in", vaeConv2dLayer(cfg.latentChannels, rev.front(), 3, 1, 1));
    m_midBlock = register_module(
        "mid_block", VaeMidBlock2D(rev.front(), g, cfg.midBlockAddAttention, path + ".mid_block"));
    int out = rev.front();
    for (int i = 0; i < cfg.levels(); ++i) {
        const int prev = out;
        out = rev[i];
        const bool last = i == cfg.levels() - 1;
        m_blocks.emplace_back(Kind::UpDecoder, prev, out, cfg.layersPerBlock + 1, g, !last,
                              path + ".up_blocks." + std::to_string(i));
        m_upBlocks->push_back(m_blocks.back());
    }
    register_module("up_blocks", m_upBlocks);
    m_convNormOut = register_module("conv_norm_out", vaeGroupNormLayer(g, rev.back()));
    m_convOut = register_module("conv_out", vaeConv2dLayer(rev.back(), cfg.outChannels, 3, 1, 1));
}

torch::Tensor VaeDecoderImpl::forward(const torch::Tensor& z, ProbeContext& probes) {
    auto h = probes.point(m_nConvIn, m_convIn->forward(z));  // [B, C_last, h, w]
    h = m_midBlock->forward(h, probes);                      // [B, C_last, h, w]
    for (auto& b : m_blocks) h = b->forward(h, probes);      // [B, C0, h*f, w*f]
    h = probes.point(m_nNormOut, m_convNormOut->forward(h));
    h = probes.point(m_nAct, torch::silu_(h));
    return probes.point(m_nConvOut, m_convOut->forward(h));  // [B, 3, H, W]
}

// ---- AutoencoderKL ------------------------------------------------------------------------

AutoencoderKLImpl::AutoencoderKLImpl(AutoencoderKLConfig cfg, const std::string& component)
    : m_cfg(std::move(cfg)), m_component(component) {
    const std::string prefix = component.empty() ? "" : component + ".";
    m_encoderIn = prefix + "encoder.conv_in";
    m_decoderIn = prefix + "decoder.conv_in";
    m_nQuant = {prefix + "quant_conv", ProbeLevel::Module};
    m_nPostQuant = {prefix + "post_quant_conv", ProbeLevel::Module};
    m_encoder = register_module("encoder", VaeEncoder(m_cfg, prefix + "encoder"));
    m_decoder = register_module("decoder", VaeDecoder(m_cfg, prefix + "decoder"));
    const int cl = m_cfg.latentChannels;
    if (m_cfg.useQuantConv)
        m_quantConv = register_module("quant_conv", vaeConv2dLayer(2 * cl, 2 * cl, 1, 1, 0));
    if (m_cfg.usePostQuantConv)
        m_postQuantConv = register_module("post_quant_conv", vaeConv2dLayer(cl, cl, 1, 1, 0));
}

namespace {
// The widest convolution's multiply-adds: 3x3, C0 -> C0 channels at full resolution.
int64_t fullResolutionConvMacs(const AutoencoderKLConfig& c, int64_t pixels) {
    const int64_t c0 = c.blockOutChannels.front();
    return pixels * 9 * c0 * c0;
}
}  // namespace

VaeMoments AutoencoderKLImpl::encode(const torch::Tensor& x, ProbeContext& probes) {
    SmallWork work(fullResolutionConvMacs(m_cfg, x.size(0) * x.size(2) * x.size(3)));
    // The image enters encoder.conv_in in that layer's format, as every family's inputs enter.
    const auto& w = m_encoder->inputWeight();
    auto moments = m_encoder->forward(probes.enter(m_encoderIn, onDeviceOf(x, w), w),
                                      probes);  // [B, 2Cl, h, w]
    if (m_quantConv) moments = probes.point(m_nQuant, m_quantConv->forward(moments));
    // diffusers DiagonalGaussianDistribution: chunk along channels, clamp logvar.
    auto halves = moments.chunk(2, 1);
    VaeMoments m;
    m.mean = halves[0].contiguous();                  // [B, Cl, h, w]
    m.logvar = torch::clamp(halves[1], -30.0, 20.0);  // [B, Cl, h, w]
    return m;
}

torch::Tensor AutoencoderKLImpl::decode(const torch::Tensor& z, ProbeContext& probes) {
    const int64_t f = m_cfg.downFactor();
    SmallWork work(fullResolutionConvMacs(m_cfg, z.size(0) * z.size(2) * f * z.size(3) * f));
    // The latents enter the first layer (post_quant_conv or decoder.conv_in) in its format.
    const auto& w = m_postQuantConv ? m_postQuantConv->weight : m_decoder->inputWeight();
    auto h = probes.enter(m_postQuantConv ? m_nPostQuant.name : m_decoderIn, onDeviceOf(z, w),
                          w);  // [B, Cl, h, w]
    if (m_postQuantConv) h = probes.point(m_nPostQuant, m_postQuantConv->forward(h));
    // diffusers Decoder casts the mid block's output to the up blocks' dtype; every layer here
    // casts its own input (asTypeOf), which covers that and any finer plan.
    return m_decoder->forward(h, probes);  // [B, out_channels, H, W]
}

}  // namespace hs
