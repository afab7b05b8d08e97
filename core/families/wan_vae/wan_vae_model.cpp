#include "families/wan_vae/wan_vae_model.h"

#include <algorithm>

#include "runtime/parallelism.h"

namespace hs {

namespace {

using Mode = WanResampleImpl::Mode;

}  // namespace

// ---- Encoder ------------------------------------------------------------------------------

WanEncoderImpl::WanEncoderImpl(const WanVaeConfig& cfg, const std::string& path)
    : m_nConvIn(path + ".conv_in", ProbeLevel::Layer),
      m_nNormOut(path + ".norm_out", ProbeLevel::Layer),
      m_nAct(path + ".conv_act", ProbeLevel::Op),
      m_nConvOut(path + ".conv_out", ProbeLevel::Module) {
    const auto dims = cfg.encoderDims();
    m_convIn = register_module("conv_in", WanCausalConv3d(cfg.inChannels, dims[0], 3, 3));
    double scale = 1.0;
    auto next = [&]() { return path + ".down_blocks." + std::to_string(m_entries.size()); };
    for (int i = 0; i < cfg.levels(); ++i) {
        int in = dims[i];
        const int out = dims[i + 1];
        for (int r = 0; r < cfg.numResBlocks; ++r) {
            Entry e;
            e.res = WanResidualBlock(in, out, next(), ProbeLevel::Module);
            m_downBlocks->push_back(e.res);
            m_entries.push_back(e);
            if (std::find(cfg.attnScales.begin(), cfg.attnScales.end(), scale) !=
                cfg.attnScales.end()) {
                Entry a;
                a.attn = WanAttentionBlock(out, next(), ProbeLevel::Module);
                m_downBlocks->push_back(a.attn);
                m_entries.push_back(a);
            }
            in = out;
        }
        if (i != cfg.levels() - 1) {
            Entry d;
            const Mode mode = cfg.temperalDownsample[i] ? Mode::Downsample3d : Mode::Downsample2d;
            d.resample = WanResample(out, mode, next(), ProbeLevel::Module);
            m_downBlocks->push_back(d.resample);
            m_entries.push_back(d);
            scale /= 2.0;
        }
    }
    register_module("down_blocks", m_downBlocks);
    m_midBlock = register_module("mid_block", WanMidBlock(dims.back(), path + ".mid_block"));
    m_normOut = register_module("norm_out", WanRMSNorm(dims.back(), false));
    m_convOut = register_module("conv_out", WanCausalConv3d(dims.back(), 2 * cfg.zDim, 3, 3));
}

torch::Tensor WanEncoderImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = probes.point(m_nConvIn, m_convIn->forward(x));  // [B, C0, H, W]
    for (auto& e : m_entries) {
        if (e.res) h = e.res->forward(h, probes);
        if (e.attn) h = e.attn->forward(h, probes);
        if (e.resample) h = e.resample->forward(h, probes);  // [B, C, H / 2, W / 2]
    }
    h = m_midBlock->forward(h, probes);  // [B, C_last, h, w]
    h = probes.point(m_nNormOut, m_normOut->forward(h));
    h = probes.point(m_nAct, torch::silu_(h));
    return probes.point(m_nConvOut, m_convOut->forward(h));  // [B, 2 z_dim, h, w]
}

// ---- UpBlock ------------------------------------------------------------------------------

WanUpBlockImpl::WanUpBlockImpl(int in, int out, int numResBlocks, bool upsample, bool temporal,
                               const std::string& path)
    // Without an upsampler the block's output is its last resnet's stream.
    : m_name(path, ProbeLevel::Module, !upsample) {
    for (int j = 0; j <= numResBlocks; ++j) {
        m_resnetList.emplace_back(j == 0 ? in : out, out, path + ".resnets." + std::to_string(j),
                                  ProbeLevel::Layer);
        m_resnets->push_back(m_resnetList.back());
    }
    register_module("resnets", m_resnets);
    if (upsample) {
        m_up = WanResample(out, temporal ? Mode::Upsample3d : Mode::Upsample2d,
                           path + ".upsamplers.0", ProbeLevel::Layer);
        m_upsamplers->push_back(m_up);
        register_module("upsamplers", m_upsamplers);
    }
}

torch::Tensor WanUpBlockImpl::forward(const torch::Tensor& x, ProbeContext& probes) {
    auto h = x;                                              // [B, Cin, H, W]
    for (auto& r : m_resnetList) h = r->forward(h, probes);  // [B, Cout, H, W]
    if (m_up) h = m_up->forward(h, probes);                  // [B, Cout / 2, 2H, 2W]
    return probes.point(m_name, h);
}

// ---- Decoder ------------------------------------------------------------------------------

WanDecoderImpl::WanDecoderImpl(const WanVaeConfig& cfg, const std::string& path)
    : m_nConvIn(path + ".conv_in", ProbeLevel::Layer),
      m_nNormOut(path + ".norm_out", ProbeLevel::Layer),
      m_nAct(path + ".conv_act", ProbeLevel::Op),
      m_nConvOut(path + ".conv_out", ProbeLevel::Module) {
    const auto dims = cfg.decoderDims();
    const int levels = cfg.levels();
    m_convIn = register_module("conv_in", WanCausalConv3d(cfg.zDim, dims[0], 3, 3));
    m_midBlock = register_module("mid_block", WanMidBlock(dims[0], path + ".mid_block"));
    for (int i = 0; i < levels; ++i) {
        // Every block after the first starts from its predecessor's upsampler: dim / 2 channels.
        const int in = i > 0 ? dims[i] / 2 : dims[i];
        const bool up = i != levels - 1;
        // temperal_upsample = reversed(temperal_downsample)
        const bool temporal = up && cfg.temperalDownsample[levels - 2 - i];
        m_blocks.emplace_back(in, dims[i + 1], cfg.numResBlocks, up, temporal,
                              path + ".up_blocks." + std::to_string(i));
        m_upBlocks->push_back(m_blocks.back());
    }
    register_module("up_blocks", m_upBlocks);
    m_normOut = register_module("norm_out", WanRMSNorm(dims.back(), false));
    m_convOut = register_module("conv_out", WanCausalConv3d(dims.back(), cfg.outChannels, 3, 3));
}

torch::Tensor WanDecoderImpl::forward(const torch::Tensor& z, ProbeContext& probes) {
    auto h = probes.point(m_nConvIn, m_convIn->forward(z));  // [B, C0, h, w]
    h = m_midBlock->forward(h, probes);                      // [B, C0, h, w]
    for (auto& b : m_blocks) h = b->forward(h, probes);      // [B, C_last, h * f, w * f]
    h = probes.point(m_nNormOut, m_normOut->forward(h));
    h = probes.point(m_nAct, torch::silu_(h));
    return probes.point(m_nConvOut, m_convOut->forward(h));  // [B, out_channels, H, W]
}

// ---- AutoencoderKLWan ---------------------------------------------------------------------

WanVaeImpl::WanVaeImpl(WanVaeConfig cfg, const std::string& component) : m_cfg(std::move(cfg)) {
    const std::string prefix = component.empty() ? "" : component + ".";
    m_encoderIn = prefix + "encoder.conv_in";
    m_nQuant = {prefix + "quant_conv", ProbeLevel::Module};
    m_nPostQuant = {prefix + "post_quant_conv", ProbeLevel::Module};
    m_encoder = register_module("encoder", WanEncoder(m_cfg, prefix + "encoder"));
    const int z = m_cfg.zDim;
    m_quantConv = register_module("quant_conv", WanCausalConv3d(2 * z, 2 * z, 1, 1));
    m_postQuantConv = register_module("post_quant_conv", WanCausalConv3d(z, z, 1, 1));
    m_decoder = register_module("decoder", WanDecoder(m_cfg, prefix + "decoder"));
}

namespace {
// The widest full-resolution convolution's multiply-adds: 3x3, C0 -> C0 channels.
int64_t fullResolutionConvMacs(int64_t c0, int64_t pixels) {
    return pixels * 9 * c0 * c0;
}
}  // namespace

VaeMoments WanVaeImpl::encode(const torch::Tensor& x, ProbeContext& probes) {
    SmallWork work(fullResolutionConvMacs(m_cfg.baseDim, x.size(0) * x.size(2) * x.size(3)));
    const auto& w = m_encoder->inputWeight();
    auto h = probes.enter(m_encoderIn, onDeviceOf(x, w), w);  // [B, Cin, H, W]
    h = m_encoder->forward(h, probes);                        // [B, 2 z_dim, h, w]
    h = probes.point(m_nQuant, m_quantConv->forward(h));
    auto halves = h.chunk(2, 1);  // DiagonalGaussianDistribution
    VaeMoments m;
    m.mean = halves[0].contiguous();                  // [B, z_dim, h, w]
    m.logvar = torch::clamp(halves[1], -30.0, 20.0);  // [B, z_dim, h, w]
    return m;
}

torch::Tensor WanVaeImpl::decode(const torch::Tensor& z, ProbeContext& probes) {
    const int64_t f = m_cfg.downFactor();
    SmallWork work(
        fullResolutionConvMacs(m_cfg.decoderBaseDim, z.size(0) * z.size(2) * f * z.size(3) * f));
    const auto& w = m_postQuantConv->weight;
    auto h = probes.enter(m_nPostQuant.name, onDeviceOf(z, w), w);  // [B, z_dim, h, w]
    h = probes.point(m_nPostQuant, m_postQuantConv->forward(h));
    h = m_decoder->forward(h, probes);  // [B, out_channels, H, W]
    return torch::clamp(h, -1.0, 1.0);  // diffusers' _decode clamps the frames
}

}  // namespace hs
