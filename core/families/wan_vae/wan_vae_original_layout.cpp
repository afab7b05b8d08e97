#include "families/wan_vae/wan_vae_original_layout.h"

#include <sstream>

#include "families/wan_vae/wan_vae_config.h"

namespace hs {

namespace {

// Wan's ResidualBlock: residual = [RMS_norm, SiLU, CausalConv3d, RMS_norm, SiLU, Dropout,
// CausalConv3d], shortcut a 1x1x1 conv when the width changes. Returns its output width.
int64_t moveResidual(LayoutKeys& k, WeightMap& w, const std::string& from, const std::string& to) {
    const int64_t out = k.size(from + ".residual.2.weight", 0);  // [out, in, 3, 3, 3]
    w[to + ".norm1.gamma"] = k.take(from + ".residual.0.gamma");
    k.movePair(w, from + ".residual.2", to + ".conv1");
    w[to + ".norm2.gamma"] = k.take(from + ".residual.3.gamma");
    k.movePair(w, from + ".residual.6", to + ".conv2");
    if (k.has(from + ".shortcut.weight")) k.movePair(w, from + ".shortcut", to + ".conv_shortcut");
    return out;
}

void moveAttention(LayoutKeys& k, WeightMap& w, const std::string& from, const std::string& to) {
    w[to + ".norm.gamma"] = k.take(from + ".norm.gamma");
    k.movePair(w, from + ".to_qkv", to + ".to_qkv");
    k.movePair(w, from + ".proj", to + ".proj");
}

// A resampler: resample.1 (the 2D conv) and, in the temporal modes, time_conv. Returns whether
// it has time_conv.
bool moveResample(LayoutKeys& k, WeightMap& w, const std::string& from, const std::string& to) {
    k.movePair(w, from + ".resample.1", to + ".resample.1");
    if (!k.has(from + ".time_conv.weight")) return false;
    k.movePair(w, from + ".time_conv", to + ".time_conv");
    return true;
}

void moveHeadAndMiddle(LayoutKeys& k, WeightMap& w, const std::string& side) {
    k.movePair(w, side + ".conv1", side + ".conv_in");
    moveResidual(k, w, side + ".middle.0", side + ".mid_block.resnets.0");
    moveAttention(k, w, side + ".middle.1", side + ".mid_block.attentions.0");
    moveResidual(k, w, side + ".middle.2", side + ".mid_block.resnets.1");
    w[side + ".norm_out.gamma"] = k.take(side + ".head.0.gamma");
    k.movePair(w, side + ".head.2", side + ".conv_out");
}

ConvertedComponent convertWanVae(LayoutKeys& k, const WeightMap&) {
    WeightMap w;
    const int64_t base = k.size("encoder.conv1.weight", 0);  // [base, in, 3, 3, 3]
    const int64_t inChannels = k.size("encoder.conv1.weight", 1);
    // The decoder's sizes, read before its tensors move to their diffusers names.
    const int64_t z = k.size("conv2.weight", 0);                    // [z, z, 1, 1, 1]
    const int64_t decoderLast = k.size("decoder.head.0.gamma", 0);  // dec_base * dim_mult[0]
    const int64_t outChannels = k.size("decoder.head.2.weight", 0);
    moveHeadAndMiddle(k, w, "encoder");
    moveHeadAndMiddle(k, w, "decoder");
    k.movePair(w, "conv1", "quant_conv");
    k.movePair(w, "conv2", "post_quant_conv");

    // Encoder: the flat list keeps its numbering; the levels come from where the downsamplers
    // are, the widths from each level's first residual block.
    std::vector<int64_t> mult;
    std::vector<bool> temporal;
    std::vector<double> attnScales;
    int resnets = 0, levelResnets = 0;
    double scale = 1.0;
    const int n = k.countBlocks("encoder.downsamples.", "encoder block");
    for (int i = 0; i < n; ++i) {
        const std::string from = "encoder.downsamples." + std::to_string(i);
        const std::string to = "encoder.down_blocks." + std::to_string(i);
        if (k.has(from + ".residual.0.gamma")) {
            k.size(from + ".residual.2.weight", 0);  // its outputs, checked before they divide
            const int64_t out = moveResidual(k, w, from, to);
            if (levelResnets++ == 0) {
                if (out % base != 0)
                    k.fail("'" + k.fileKey(from + ".residual.2.weight") + "' has " +
                           std::to_string(out) + " outputs, not a multiple of base_dim " +
                           std::to_string(base));
                mult.push_back(out / base);
            }
        } else if (k.has(from + ".to_qkv.weight")) {
            moveAttention(k, w, from, to);
            if (attnScales.empty() || attnScales.back() != scale) attnScales.push_back(scale);
        } else if (k.has(from + ".resample.1.weight")) {
            temporal.push_back(moveResample(k, w, from, to));
            if (resnets == 0) resnets = levelResnets;
            if (levelResnets != resnets || levelResnets == 0)
                k.fail("encoder level " + std::to_string(mult.size() - 1) + " has " +
                       std::to_string(levelResnets) + " residual blocks, expected " +
                       std::to_string(resnets));
            levelResnets = 0;
            scale /= 2.0;
        } else {
            k.fail("'" + k.fileKey(from) +
                   ".*' is neither a residual, attention nor resample block");
        }
    }
    if (mult.empty()) k.fail("no encoder blocks ('" + k.fileKey("encoder.downsamples.0.*") + "')");
    if (resnets == 0) resnets = levelResnets;
    if (levelResnets != resnets || mult.size() != temporal.size() + 1)
        k.fail("the last encoder level has " + std::to_string(levelResnets) +
               " residual blocks, expected " + std::to_string(resnets));

    // Decoder: per level resnets + 1 residual blocks, then an upsampler on all but the last.
    const int levels = static_cast<int>(mult.size());
    const int m = k.countBlocks("decoder.upsamples.", "decoder block");
    int level = 0, j = 0;
    for (int i = 0; i < m; ++i) {
        const std::string from = "decoder.upsamples." + std::to_string(i);
        const std::string to = "decoder.up_blocks." + std::to_string(level);
        if (k.has(from + ".residual.0.gamma")) {
            moveResidual(k, w, from, to + ".resnets." + std::to_string(j++));
        } else if (k.has(from + ".resample.1.weight")) {
            moveResample(k, w, from, to + ".upsamplers.0");
            ++level;
            j = 0;
        } else {
            k.fail("'" + k.fileKey(from) + ".*' is neither a residual nor a resample block");
        }
    }
    if (level != levels - 1)
        k.fail("the decoder has " + std::to_string(level + 1) + " levels, the encoder " +
               std::to_string(levels));
    k.finish();

    // mult.front() >= 1: the first level's outputs are a positive multiple of base.
    const int64_t decoderBase = decoderLast / mult.front();

    ConvertedComponent c{"vae", "AutoencoderKLWan", {}, std::move(w)};
    c.config = {{"_class_name", c.className},
                {"base_dim", base},
                {"decoder_base_dim", decoderBase},
                {"z_dim", z},
                {"dim_mult", mult},
                {"num_res_blocks", resnets},
                {"attn_scales", attnScales},
                {"temperal_downsample", temporal},
                {"dropout", 0.0},
                {"in_channels", inChannels},
                {"out_channels", outChannels},
                {"is_residual", false},
                {"patch_size", nullptr}};
    std::ostringstream d;
    d << "AutoencoderKLWan (Wan 2.1 / Qwen-Image VAE), original Wan layout"
      << (k.prefix().empty() ? "" : " under " + k.prefix()) << ", base_dim " << base
      << ", dim_mult " << shapeText(mult) << ", " << resnets << " residual blocks per level, " << z
      << " latent channels, " << k.dtypeName() << "; latents_mean/std assumed: diffusers' "
      << "defaults (Wan 2.1's, kept by Qwen-Image; not stored in the file)";
    c.description = d.str();
    return c;
}

}  // namespace

SingleFileLayout wanVaeOriginalLayout() {
    return {"Wan VAE",
            {"vae.", ""},
            {"encoder.", "decoder.", "conv1.", "conv2."},
            markerKeys({"decoder.middle.0.residual.0.gamma"}),
            convertWanVae};
}

}  // namespace hs
