#include "families/vae/vae_ldm_layout.h"

#include <optional>
#include <sstream>

namespace hs {

namespace {

// Moves "<from>.weight" and "<from>.bias" to "<to>.weight" / "<to>.bias".
// ResnetBlock2D: GroupNorm, 3x3 conv, GroupNorm, 3x3 conv, and a 1x1 shortcut convolution
// (LDM's nin_shortcut) exactly when the channel count changes.
void moveResnet(LayoutKeys& k, WeightMap& w, const std::string& from, const std::string& to,
                int64_t in, int64_t out) {
    for (const char* part : {"norm1", "conv1", "norm2", "conv2"})
        k.movePair(w, from + "." + part, to + "." + part);
    if (in != out) k.movePair(w, from + ".nin_shortcut", to + ".conv_shortcut");
}

// The middle: resnet, self-attention over the pixels, resnet, all at the deepest width. LDM
// stores the attention's q/k/v/proj_out as 1x1 convolutions [C, C, 1, 1]; diffusers as linears
// [C, C]: the same numbers, so a view.
void moveMid(LayoutKeys& k, WeightMap& w, const std::string& side, int64_t ch, bool attention) {
    moveResnet(k, w, side + ".mid.block_1", side + ".mid_block.resnets.0", ch, ch);
    moveResnet(k, w, side + ".mid.block_2", side + ".mid_block.resnets.1", ch, ch);
    if (!attention) return;
    const std::string a = side + ".mid.attn_1.", d = side + ".mid_block.attentions.0.";
    k.movePair(w, a + "norm", d + "group_norm");
    for (auto [from, to] : {std::pair<const char*, const char*>{"q", "to_q"},
                            {"k", "to_k"},
                            {"v", "to_v"},
                            {"proj_out", "to_out.0"}}) {
        const std::string key = a + from + ".weight";
        torch::Tensor t = k.take(key);
        const bool pointwise = t.dim() == 2 || (t.dim() == 4 && t.size(2) == 1 && t.size(3) == 1);
        if (!pointwise)
            k.fail("tensor '" + k.fileKey(key) + "' has shape " + shapeText(t.sizes()) +
                   ", expected [C, C] or [C, C, 1, 1]");
        w[d + to + ".weight"] = t.reshape({t.size(0), t.size(1)});
        w[d + to + ".bias"] = k.take(a + from + ".bias");
    }
}

// LDM numbers the decoder's levels from the deepest (up.0 is last to run); diffusers numbers
// them in decoding order: LDM up.j is diffusers' up_blocks.(levels - 1 - j).
void convertLevels(LayoutKeys& k, WeightMap& w, const std::vector<int64_t>& ch, int layers) {
    const int levels = static_cast<int>(ch.size());
    int64_t in = ch.front();  // conv_in -> block_out_channels[0]
    for (int i = 0; i < levels; ++i) {
        const std::string from = "encoder.down." + std::to_string(i);
        const std::string to = "encoder.down_blocks." + std::to_string(i);
        for (int j = 0; j < layers; ++j, in = ch[i])
            moveResnet(k, w, from + ".block." + std::to_string(j),
                       to + ".resnets." + std::to_string(j), in, ch[i]);
        if (i + 1 < levels) k.movePair(w, from + ".downsample.conv", to + ".downsamplers.0.conv");
    }
    in = ch.back();
    for (int i = 0; i < levels; ++i) {
        const int ldm = levels - 1 - i;
        const std::string from = "decoder.up." + std::to_string(ldm);
        const std::string to = "decoder.up_blocks." + std::to_string(i);
        for (int j = 0; j < layers + 1; ++j, in = ch[ldm])
            moveResnet(k, w, from + ".block." + std::to_string(j),
                       to + ".resnets." + std::to_string(j), in, ch[ldm]);
        if (ldm > 0) k.movePair(w, from + ".upsample.conv", to + ".upsamplers.0.conv");
    }
}

struct LatentScaling {
    double scaling;
    std::optional<double> shift;
    int sampleSize;
    std::string model;
};

bool hasPrefix(const WeightMap& all, const std::string& prefix) {
    auto it = all.lower_bound(prefix);
    return it != all.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

bool holdsSd3(const WeightMap& all) {
    return all.count("joint_blocks.0.context_block.adaLN_modulation.1.bias") ||
           all.count("model.diffusion_model.joint_blocks.0.context_block.adaLN_modulation.1.bias");
}

// diffusers' configs of the VAEs these files come with (scaling_factor, shift_factor,
// sample_size): FLUX.1, SD3, SDXL, SD 1.5.
LatentScaling scalingFor(int64_t latentChannels, const WeightMap& all) {
    if (latentChannels == 16)
        return holdsSd3(all) ? LatentScaling{1.5305, 0.0609, 1024, "SD3"}
                             : LatentScaling{0.3611, 0.1159, 1024, "FLUX.1"};
    if (latentChannels == 4)
        return hasPrefix(all, "conditioner.embedders.")
                   ? LatentScaling{0.13025, std::nullopt, 1024, "SDXL"}
                   : LatentScaling{0.18215, std::nullopt, 512, "SD 1.x/2.x"};
    return {1.0, std::nullopt, 512, "no known model"};
}

int64_t rows(LayoutKeys& k, const std::string& key) {
    const torch::Tensor& t = k.peek(key);
    if (t.dim() < 1) k.fail("tensor '" + k.fileKey(key) + "' is a scalar");
    return k.size(key, 0);
}

ConvertedComponent convertVae(LayoutKeys& k, const WeightMap& all) {
    const int levels = k.countBlocks("encoder.down.", "encoder level");
    const int upLevels = k.countBlocks("decoder.up.", "decoder level");
    if (levels == 0) k.fail("no encoder levels ('" + k.fileKey("encoder.down.0.*") + "')");
    if (upLevels != levels)
        k.fail("the encoder has " + std::to_string(levels) + " levels and the decoder " +
               std::to_string(upLevels));
    const int layers = k.countBlocks("encoder.down.0.block.", "encoder level 0 resnet");
    std::vector<int64_t> channels;
    for (int i = 0; i < levels; ++i) {
        const std::string level = "encoder.down." + std::to_string(i) + ".block.";
        const int n = k.countBlocks(level, "encoder level " + std::to_string(i) + " resnet");
        if (n != layers)
            k.fail("encoder level " + std::to_string(i) + " has " + std::to_string(n) +
                   " resnets, level 0 has " + std::to_string(layers));
        const std::string upLevel = "decoder.up." + std::to_string(i) + ".block.";
        const int m = k.countBlocks(upLevel, "decoder level " + std::to_string(i) + " resnet");
        if (m != layers + 1)  // diffusers' UpDecoderBlock2D: layers_per_block + 1 resnets
            k.fail("decoder level " + std::to_string(i) + " has " + std::to_string(m) +
                   " resnets, expected " + std::to_string(layers + 1) + " (encoder's + 1)");
        channels.push_back(rows(k, level + "0.conv1.weight"));  // [out, in, 3, 3]
    }
    const int64_t inChannels = k.size("encoder.conv_in.weight", 1);  // [C0, in, 3, 3]
    const int64_t outChannels = rows(k, "decoder.conv_out.weight");
    const int64_t latent = k.size("decoder.conv_in.weight", 1);  // [C_last, latent, 3, 3]
    const bool quant = k.has("quant_conv.weight");
    const bool postQuant = k.has("post_quant_conv.weight");
    const bool midAttention = k.has("encoder.mid.attn_1.q.weight");

    WeightMap w;
    for (const char* side : {"encoder", "decoder"}) {
        const std::string sd = side;
        k.movePair(w, sd + ".conv_in", sd + ".conv_in");
        k.movePair(w, sd + ".norm_out", sd + ".conv_norm_out");
        k.movePair(w, sd + ".conv_out", sd + ".conv_out");
        moveMid(k, w, sd, channels.back(), midAttention);
    }
    convertLevels(k, w, channels, layers);
    if (quant) k.movePair(w, "quant_conv", "quant_conv");
    if (postQuant) k.movePair(w, "post_quant_conv", "post_quant_conv");
    k.finish();

    const LatentScaling s = scalingFor(latent, all);
    ConvertedComponent c{"vae", "AutoencoderKL", {}, std::move(w)};
    std::vector<int64_t> blockOut(channels.begin(), channels.end());
    c.config = {{"_class_name", c.className},
                {"in_channels", inChannels},
                {"out_channels", outChannels},
                {"down_block_types", std::vector<std::string>(levels, "DownEncoderBlock2D")},
                {"up_block_types", std::vector<std::string>(levels, "UpDecoderBlock2D")},
                {"block_out_channels", blockOut},
                {"layers_per_block", layers},
                {"act_fn", "silu"},
                {"latent_channels", latent},
                {"norm_num_groups", 32},  // every LDM VAE; not in the file
                {"sample_size", s.sampleSize},
                {"scaling_factor", s.scaling},
                {"shift_factor", s.shift ? nlohmann::json(*s.shift) : nlohmann::json(nullptr)},
                {"latents_mean", nullptr},
                {"latents_std", nullptr},
                {"force_upcast", true},
                {"use_quant_conv", quant},
                {"use_post_quant_conv", postQuant},
                {"mid_block_add_attention", midAttention}};
    std::ostringstream d;
    d << "AutoencoderKL, LDM layout" << (k.prefix().empty() ? "" : " under " + k.prefix()) << ", "
      << levels << " levels " << shapeText(blockOut) << ", " << layers << " layers per block, "
      << latent << " latent channels, " << (quant ? "with" : "no") << " quant_conv, "
      << k.dtypeName() << "; scaling_factor " << s.scaling;
    if (s.shift) d << " and shift_factor " << *s.shift;
    d << " assumed (" << s.model << "; not stored in the file)";
    c.description = d.str();
    return c;
}

}  // namespace

SingleFileLayout vaeLdmLayout() {
    return {
        "LDM VAE",
        {"first_stage_model.", "vae.", ""},
        {"encoder.", "decoder.", "quant_conv.", "post_quant_conv."},
        markerKeys({}, {"decoder.mid.block_1.conv1.weight", "encoder.mid.block_1.conv1.weight"}),
        convertVae};
}

}  // namespace hs
