#include "families/unet/unet_ldm_layout.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace hs {

namespace {

using Table = std::vector<UnetKeyPair>;

std::string num(int64_t i) {
    return std::to_string(i);
}

// "<ldm>.weight" / "<ldm>.bias" -> "<diffusers>.weight" / "<diffusers>.bias".
void addPair(Table& t, const std::string& ldm, const std::string& diffusers) {
    for (const char* p : {".weight", ".bias"}) t.push_back({ldm + p, diffusers + p});
}

// LDM's ResBlock -> diffusers' ResnetBlock2D (the renames of update_unet_resnet_ldm_to_diffusers);
// the 1x1 shortcut exists exactly when the channel count changes.
void addResnet(Table& t, const std::string& ldm, const std::string& diffusers, bool shortcut) {
    static const std::pair<const char*, const char*> parts[] = {{"in_layers.0", "norm1"},
                                                                {"in_layers.2", "conv1"},
                                                                {"emb_layers.1", "time_emb_proj"},
                                                                {"out_layers.0", "norm2"},
                                                                {"out_layers.3", "conv2"}};
    for (const auto& [from, to] : parts) addPair(t, ldm + "." + from, diffusers + "." + to);
    if (shortcut) addPair(t, ldm + ".skip_connection", diffusers + ".conv_shortcut");
}

// LDM's SpatialTransformer and diffusers' Transformer2DModel name their parts alike.
void addAttention(Table& t, const std::string& ldm, const std::string& diffusers, int depth) {
    const auto same = [&](const std::string& tail) { t.push_back({ldm + tail, diffusers + tail}); };
    for (const char* part : {".norm", ".proj_in", ".proj_out"})
        addPair(t, ldm + part, diffusers + part);
    for (int b = 0; b < depth; ++b) {
        const std::string tb = ".transformer_blocks." + num(b) + ".";
        for (const char* attn : {"attn1.", "attn2."}) {
            for (const char* w : {"to_q", "to_k", "to_v"}) same(tb + attn + w + ".weight");
            addPair(t, ldm + tb + attn + "to_out.0", diffusers + tb + attn + "to_out.0");
        }
        for (const char* part : {"norm1", "norm2", "norm3", "ff.net.0.proj", "ff.net.2"})
            addPair(t, ldm + tb + part, diffusers + tb + part);
    }
}

}  // namespace

std::vector<UnetKeyPair> unetLdmKeyTable(const UnetLdmStructure& s) {
    const auto& c = s.channels;
    const int n = static_cast<int>(c.size()), layers = s.layersPerBlock;
    Table t;
    addPair(t, "time_embed.0", "time_embedding.linear_1");
    addPair(t, "time_embed.2", "time_embedding.linear_2");
    if (s.addEmbedding) {
        addPair(t, "label_emb.0.0", "add_embedding.linear_1");
        addPair(t, "label_emb.0.2", "add_embedding.linear_2");
    }
    addPair(t, "input_blocks.0.0", "conv_in");
    // LDM numbers every resnet, attention and downsampler of the encoder in one sequence.
    int block = 1;
    for (int l = 0; l < n; ++l) {
        const std::string down = "down_blocks." + num(l);
        for (int j = 0; j < layers; ++j, ++block) {
            const int64_t in = j > 0 ? c[l] : c[std::max(l - 1, 0)];
            const std::string ib = "input_blocks." + num(block);
            addResnet(t, ib + ".0", down + ".resnets." + num(j), in != c[l]);
            if (s.downDepth[l] > 0)
                addAttention(t, ib + ".1", down + ".attentions." + num(j), s.downDepth[l]);
        }
        if (l + 1 < n)
            addPair(t, "input_blocks." + num(block++) + ".0.op", down + ".downsamplers.0.conv");
    }
    addResnet(t, "middle_block.0", "mid_block.resnets.0", false);
    addAttention(t, "middle_block.1", "mid_block.attentions.0", s.midDepth);
    addResnet(t, "middle_block.2", "mid_block.resnets.1", false);
    // The decoder's blocks run deepest first: up block u has level n - 1 - u's width. Its
    // resnets take the previous output plus a skip (diffusers' CrossAttnUpBlock2D channels).
    int ob = 0;
    for (int u = 0; u < n; ++u) {
        const int l = n - 1 - u;
        const std::string up = "up_blocks." + num(u);
        for (int j = 0; j <= layers; ++j, ++ob) {
            const int64_t prev = j > 0 ? c[l] : c[std::min(l + 1, n - 1)];
            const int64_t skip = j < layers ? c[l] : c[std::max(l - 1, 0)];
            const std::string o = "output_blocks." + num(ob);
            addResnet(t, o + ".0", up + ".resnets." + num(j), prev + skip != c[l]);
            const int depth = s.upDepth[u][j];
            if (depth > 0) addAttention(t, o + ".1", up + ".attentions." + num(j), depth);
            if (j == layers && u + 1 < n)
                addPair(t, o + (depth > 0 ? ".2" : ".1") + ".conv", up + ".upsamplers.0.conv");
        }
    }
    addPair(t, "out.0", "conv_norm_out");
    addPair(t, "out.2", "conv_out");
    return t;
}

namespace {

// What the UNet's shapes say about the model, read from the whole file.
struct SdTraits {
    bool found = false;
    int64_t inChannels = 0;
    int64_t context = 0;  // cross-attention width (attn2.to_k's input); 0 when not readable
    bool linear = false;  // proj_in is a linear (SD 2.x, SDXL), not a 1x1 convolution
    bool labelEmb = false;
};

SdTraits traitsAt(const WeightMap& all, const std::string& p) {
    SdTraits t;
    auto conv = all.find(p + "input_blocks.0.0.weight");  // [C0, in, 3, 3]
    if (conv == all.end() || conv->second.dim() != 4) return t;
    t.found = true;
    t.inChannels = conv->second.size(1);
    auto k = all.find(p + "middle_block.1.transformer_blocks.0.attn2.to_k.weight");  // [C, ctx]
    if (k != all.end() && k->second.dim() == 2) t.context = k->second.size(1);
    auto proj = all.find(p + "middle_block.1.proj_in.weight");
    t.linear = proj != all.end() && proj->second.dim() == 2;
    t.labelEmb = all.count(p + "label_emb.0.0.weight") > 0;
    return t;
}

std::string nameOf(const SdTraits& t) {
    std::string name;
    if (t.labelEmb)
        name = t.context == 2048 ? "SDXL base" : t.context == 1280 ? "SDXL refiner" : "SDXL-style";
    else if (t.context == 768)
        name = "SD 1.x";
    else if (t.context == 1024)
        name = "SD 2.x";
    else
        name = t.linear ? "SD 2.x-style" : "SD 1.x-style";
    if (t.inChannels == 9)
        name += " inpainting";
    else if (t.inChannels == 8)
        name += " InstructPix2Pix-style";
    return name;
}

bool hasPrefix(const WeightMap& all, const std::string& prefix) {
    auto it = all.lower_bound(prefix);
    return it != all.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

std::string listText(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + num(v[i]);
    return s + "]";
}

int64_t rows(const LayoutKeys& k, const std::string& key, int64_t dims) {
    const torch::Tensor& t = k.peek(key);
    if (t.dim() != dims)
        k.fail("tensor '" + k.fileKey(key) + "' has shape " + shapeText(t.sizes()) + ", expected " +
               num(dims) + " dimensions");
    return k.size(key, 0);
}

// Transformer blocks of the attention at `prefix` ("input_blocks.1.1."), 0 when there is none.
int depthAt(const LayoutKeys& k, const std::string& prefix) {
    if (!k.has(prefix + "proj_in.weight")) return 0;
    const int d = k.countBlocks(prefix + "transformer_blocks.", "transformer block");
    if (d == 0)
        k.fail("the attention at '" + k.fileKey(prefix) + "*' has no transformer blocks ('" +
               k.fileKey(prefix + "transformer_blocks.0.*") + "')");
    return d;
}

// Reads the block structure from the keys, as ComfyUI's detect_unet_config does: the encoder's
// input blocks are resnets (in_layers) with or without an attention, and downsamplers (op)
// between levels.
UnetLdmStructure readStructure(const LayoutKeys& k) {
    UnetLdmStructure s;
    const int inputBlocks = k.countBlocks("input_blocks.", "input block");
    std::vector<std::vector<int>> levels(1);  // per level, per resnet: its attention's depth
    for (int i = 1; i < inputBlocks; ++i) {
        const std::string b = "input_blocks." + num(i) + ".";
        if (k.has(b + "0.op.weight")) {
            if (levels.back().empty())
                k.fail("input block " + num(i) + " is a downsampler with no resnet before it");
            levels.emplace_back();
            continue;
        }
        if (!k.has(b + "0.in_layers.0.weight"))
            k.fail("input block " + num(i) + " is neither a resnet ('" +
                   k.fileKey(b + "0.in_layers.0.weight") + "') nor a downsampler ('" +
                   k.fileKey(b + "0.op.weight") + "')");
        const int64_t ch = rows(k, b + "0.out_layers.3.weight", 4);
        const int level = static_cast<int>(levels.size()) - 1;
        if (levels.back().empty())
            s.channels.push_back(ch);
        else if (ch != s.channels.back())
            k.fail("input block " + num(i) + " has " + num(ch) +
                   " channels, the other resnets of " + "level " + num(level) + " " +
                   num(s.channels.back()));
        levels.back().push_back(depthAt(k, b + "1."));
    }
    if (levels.back().empty())
        k.fail(inputBlocks <= 1 ? "no resnets ('" + k.fileKey("input_blocks.1.*") + "')"
                                : "the last input block is a downsampler: no deepest level");
    const int n = static_cast<int>(levels.size());
    s.layersPerBlock = static_cast<int>(levels[0].size());
    for (int l = 0; l < n; ++l) {
        const auto& d = levels[l];
        if (static_cast<int>(d.size()) != s.layersPerBlock)
            k.fail("level " + num(l) + " has " + num(d.size()) + " resnets, level 0 has " +
                   num(s.layersPerBlock) + " (diffusers' layers_per_block is one number here)");
        if (std::count(d.begin(), d.end(), d[0]) != static_cast<long>(d.size()))
            k.fail("the attentions of level " + num(l) +
                   " differ in transformer depth or presence: not a UNet2DConditionModel layout");
        s.downDepth.push_back(d[0]);
    }
    if (k.countBlocks("middle_block.", "middle block part") != 3 ||
        !k.has("middle_block.1.proj_in.weight"))
        k.fail("the middle block is not resnet, attention, resnet ('" +
               k.fileKey("middle_block.1.proj_in.weight") +
               "' missing): UNets without a middle attention are not supported");
    s.midDepth = depthAt(k, "middle_block.1.");
    const int outputBlocks = k.countBlocks("output_blocks.", "output block");
    if (outputBlocks != n * (s.layersPerBlock + 1))
        k.fail("there are " + num(outputBlocks) + " output blocks; " + num(n) + " levels of " +
               num(s.layersPerBlock) + " resnets need " + num(n * (s.layersPerBlock + 1)));
    for (int u = 0, ob = 0; u < n; ++u) {
        s.upDepth.emplace_back();
        for (int j = 0; j <= s.layersPerBlock; ++j, ++ob)
            s.upDepth.back().push_back(depthAt(k, "output_blocks." + num(ob) + ".1."));
        const auto& d = s.upDepth.back();
        if (std::count(d.begin(), d.end(), 0) % static_cast<long>(d.size()) != 0)
            k.fail("up block " + num(u) + " has attention after some of its resnets only");
    }
    s.addEmbedding = k.has("label_emb.0.0.weight");
    return s;
}

// SGM's text_time conditioning: label_emb reads [pooled projection | time ids x embed dim]. The
// pooled width is the OpenCLIP projection's (embedders.1 in a base file, embedders.0 in a
// refiner, which conditions on 5 time ids instead of 6); without it, or when the widths do not
// divide, SDXL's 256.
int64_t additionTimeEmbedDim(const WeightMap& all, int64_t addIn) {
    const bool base = all.count(
                          "conditioner.embedders.0.transformer.text_model.embeddings."
                          "token_embedding.weight") > 0;
    const auto it = all.find(std::string("conditioner.embedders.") + (base ? "1" : "0") +
                             ".model.text_projection");
    if (it == all.end() || it->second.dim() != 2) return 256;
    const int64_t rest = addIn - it->second.size(1), ids = base ? 6 : 5;
    return rest > 0 && rest % ids == 0 ? rest / ids : 256;
}

// diffusers' attention_head_dim (the head count): see the header.
nlohmann::json headsFor(const LayoutKeys& k, const std::vector<int64_t>& ch, bool linear,
                        std::string& rule) {
    if (!linear) {
        rule = "8 heads (SD 1.x)";
        for (int64_t c : ch)
            if (c % 8)
                throw ConfigError(k.where() + "width " + num(c) +
                                  " is not divisible by SD 1.x's 8 heads");
        return 8;
    }
    int64_t headDim = 64;
    for (int64_t c : ch)
        if (c % 64) headDim = 8;
    rule = headDim == 64 ? "64-wide heads" : "8-wide heads (test-sized widths)";
    std::vector<int64_t> heads;
    for (int64_t c : ch) {
        if (c % headDim)
            throw ConfigError(k.where() + "width " + num(c) +
                              " is not a multiple of 64 nor of 8: cannot infer attention heads");
        heads.push_back(c / headDim);
    }
    return heads;
}

// transformer_layers_per_block: one number when every attention (and the middle's) has the same
// depth (SD 1.x/2.x: 1, the refiner: 4), else one per level (SDXL: [1, 2, 10]); levels without
// attention get 1, or the middle's depth for the deepest (diffusers gives the middle block the
// last level's depth).
nlohmann::json depthsFor(const LayoutKeys& k, const UnetLdmStructure& s, bool& reversedDiffers,
                         nlohmann::json& reverse) {
    std::vector<int64_t> perLevel;
    bool uniform = true;
    for (int d : s.downDepth) {
        perLevel.push_back(d > 0 ? d : 1);
        uniform &= d == 0 || d == s.midDepth;
    }
    if (s.downDepth.back() == 0) perLevel.back() = s.midDepth;
    if (perLevel.back() != s.midDepth)
        k.fail("the middle block has " + num(s.midDepth) + " transformer blocks and the deepest " +
               "level " + num(perLevel.back()) + ": diffusers gives both one depth");
    // The up path mirrors the down path unless reverse_transformer_layers_per_block says not.
    reversedDiffers = false;
    const int n = static_cast<int>(s.channels.size());
    nlohmann::json rev = nlohmann::json::array();
    for (int u = 0; u < n; ++u) {
        nlohmann::json block = nlohmann::json::array();
        for (int d : s.upDepth[u]) {
            reversedDiffers |= d > 0 && d != perLevel[n - 1 - u];
            block.push_back(d > 0 ? d : 1);
        }
        rev.push_back(block);
    }
    reverse = reversedDiffers ? rev : nlohmann::json(nullptr);
    if (uniform && !reversedDiffers) return s.midDepth;
    return perLevel;
}

ConvertedComponent convertUnet(LayoutKeys& k, const WeightMap& all) {
    const UnetLdmStructure s = readStructure(k);
    const auto& ch = s.channels;
    const int n = static_cast<int>(ch.size());
    const torch::Tensor convIn = k.peek("input_blocks.0.0.weight");  // [C0, in, k, k]
    if (convIn.dim() != 4 || convIn.size(0) != ch[0])
        k.fail("tensor '" + k.fileKey("input_blocks.0.0.weight") + "' has shape " +
               shapeText(convIn.sizes()) + ", expected [" + num(ch[0]) + ", in, k, k]");
    for (int64_t c : ch)
        if (c % 32)
            throw ConfigError(k.where() + "width " + num(c) +
                              " is not a multiple of the 32 norm groups of LDM's UNets");
    const int64_t timeDim = rows(k, "time_embed.0.weight", 2);  // [4 C0, C0]
    const int64_t outChannels = rows(k, "out.2.weight", 4);     // [out, C0, k, k]
    const int64_t outKernel = k.size("out.2.weight", 2);
    const int64_t inChannels = k.size("input_blocks.0.0.weight", 1);
    const torch::Tensor toK = k.peek("middle_block.1.transformer_blocks.0.attn2.to_k.weight");
    if (toK.dim() != 2)
        k.fail("tensor '" + k.fileKey("middle_block.1.transformer_blocks.0.attn2.to_k.weight") +
               "' has shape " + shapeText(toK.sizes()) + ", expected [inner, context]");
    const int64_t context = k.size("middle_block.1.transformer_blocks.0.attn2.to_k.weight", 1);
    const bool linear = k.peek("middle_block.1.proj_in.weight").dim() == 2;
    // [time_embed, addition inputs]
    const int64_t addIn = s.addEmbedding ? k.matrixSize("label_emb.0.0.weight", 1) : 0;
    const int64_t timeEmbedDim = s.addEmbedding ? additionTimeEmbedDim(all, addIn) : 0;

    WeightMap w;
    int64_t parameters = 0;
    for (const UnetKeyPair& p : unetLdmKeyTable(s)) {
        if (!k.has(p.ldm))
            k.fail("missing tensor '" + k.fileKey(p.ldm) + "' (diffusers' " + p.diffusers + ")");
        torch::Tensor t = k.take(p.ldm);
        parameters += t.numel();
        w[p.diffusers] = t;
    }
    if (k.has("label_emb.weight"))  // the x4 upscaler's class embedding
        k.fail("tensor '" + k.fileKey("label_emb.weight") +
               "' is a class embedding (SD x4 upscaler): not supported");
    k.finish();

    SdTraits traits;
    traits.found = true;
    traits.inChannels = inChannels;
    traits.context = context;
    traits.linear = linear;
    traits.labelEmb = s.addEmbedding;
    const std::string model = nameOf(traits);
    const bool sd2 = !s.addEmbedding && context == 1024;
    const bool inpainting = traits.inChannels == 9;
    const bool xl = s.addEmbedding && (context == 2048 || context == 1280);
    std::string headRule;
    const nlohmann::json heads = headsFor(k, ch, linear, headRule);
    bool reversedDiffers = false;
    nlohmann::json reverse;
    const nlohmann::json depths = depthsFor(k, s, reversedDiffers, reverse);
    std::vector<std::string> downTypes, upTypes;
    for (int l = 0; l < n; ++l)
        downTypes.push_back(s.downDepth[l] ? "CrossAttnDownBlock2D" : "DownBlock2D");
    for (int u = 0; u < n; ++u)
        upTypes.push_back(s.upDepth[u][0] ? "CrossAttnUpBlock2D" : "UpBlock2D");
    // diffusers' image sizes: SD 2.x 768 (SD 2.1), SDXL 1024, the rest 512; latents are / 8.
    const int sampleSize = xl ? 128 : sd2 && !inpainting ? 96 : 64;
    const bool upcast = sd2 && !inpainting;
    const nlohmann::json null;

    ConvertedComponent c{"unet", "UNet2DConditionModel", {}, std::move(w)};
    c.config = {
        {"_class_name", c.className},
        {"act_fn", "silu"},
        {"addition_embed_type", s.addEmbedding ? nlohmann::json("text_time") : null},
        {"addition_embed_type_num_heads", 64},
        {"addition_time_embed_dim", s.addEmbedding ? nlohmann::json(timeEmbedDim) : null},
        {"attention_head_dim", heads},
        {"attention_type", "default"},
        {"block_out_channels", ch},
        {"center_input_sample", false},
        {"class_embed_type", null},
        {"class_embeddings_concat", false},
        {"conv_in_kernel", convIn.size(2)},
        {"conv_out_kernel", outKernel},
        {"cross_attention_dim", context},
        {"cross_attention_norm", null},
        {"down_block_types", downTypes},
        {"downsample_padding", 1},
        {"dropout", 0.0},
        {"dual_cross_attention", false},
        {"encoder_hid_dim", null},
        {"encoder_hid_dim_type", null},
        {"flip_sin_to_cos", true},
        {"freq_shift", 0},
        {"in_channels", traits.inChannels},
        {"layers_per_block", s.layersPerBlock},
        {"mid_block_only_cross_attention", null},
        {"mid_block_scale_factor", 1},
        {"mid_block_type", "UNetMidBlock2DCrossAttn"},
        {"norm_eps", 1e-5},
        {"norm_num_groups", 32},
        {"num_attention_heads", null},
        {"num_class_embeds", null},
        {"only_cross_attention", false},
        {"out_channels", outChannels},
        {"projection_class_embeddings_input_dim", s.addEmbedding ? nlohmann::json(addIn) : null},
        {"resnet_out_scale_factor", 1.0},
        {"resnet_skip_time_act", false},
        {"resnet_time_scale_shift", "default"},
        {"reverse_transformer_layers_per_block", reverse},
        {"sample_size", sampleSize},
        {"time_cond_proj_dim", null},
        {"time_embedding_act_fn", null},
        {"time_embedding_dim", timeDim == 4 * ch[0] ? null : nlohmann::json(timeDim)},
        {"time_embedding_type", "positional"},
        {"timestep_post_act", null},
        {"transformer_layers_per_block", depths},
        {"up_block_types", upTypes},
        {"upcast_attention", upcast},
        {"use_linear_projection", linear}};

    std::ostringstream d;
    d << c.className << ", LDM layout" << (k.prefix().empty() ? "" : " under " + k.prefix()) << ": "
      << model;
    if (inpainting) d << " (9 input channels: latents, mask, masked image)";
    d << ", " << parameterCountText(parameters) << " parameters, " << n << " levels "
      << listText(ch) << ", " << s.layersPerBlock << " layers per block, transformer depth "
      << (depths.is_array() ? listText(depths.get<std::vector<int64_t>>()) : depths.dump())
      << ", context " << context << ", " << (linear ? "linear" : "convolution") << " projections, "
      << k.dtypeName() << "; assumed: " << headRule << ", 32 norm groups";
    if (s.addEmbedding) d << ", addition_time_embed_dim " << timeEmbedDim;
    if (upcast)
        d << ", v-prediction at 768 px with upcast_attention (diffusers takes SD 2.1's config for "
             "any 2.x file; a 2.x-base file is epsilon at 512 px)";
    if (context == 2048 && hasPrefix(all, "conditioner.embedders.") &&
        !hasPrefix(all, "conditioner.embedders.1."))
        d << "; the file holds no second text encoder (conditioner.embedders.1.model.*): give one "
             "with --text-encoder-2";
    c.description = d.str();
    return c;
}

}  // namespace

SingleFileLayout unetLdmLayout() {
    // LDM's UNetModel parts; an unknown key among them is an error, anything else under the
    // prefix is not the UNet's.
    return {
        "Stable Diffusion UNet (LDM layout)",
        {"model.diffusion_model.", ""},
        {"input_blocks.", "middle_block.", "output_blocks.", "time_embed.", "label_emb.", "out."},
        markerKeys({"input_blocks.0.0.weight", "time_embed.0.weight"}),
        convertUnet,
        "",
        sdSingleFileHeadline};
}

SingleFileLayout unetLdmEmaOnlyLayout() {
    SingleFileLayout l;
    l.name = "Stable Diffusion UNet EMA copies";
    l.prefixes = {"model_ema."};
    l.roots = {""};
    l.detect = [](const WeightMap& all, const std::string& p) {
        return all.count(p + "diffusion_modelinput_blocks00weight") &&
               !all.count("model.diffusion_model.input_blocks.0.0.weight");
    };
    l.convert = [](LayoutKeys& k, const WeightMap&) -> ConvertedComponent {
        k.fail(
            "missing tensor 'model.diffusion_model.input_blocks.0.0.weight' (the UNet's "
            "conv_in) and every other model.diffusion_model.* weight: the file holds the UNet "
            "only as LDM's EMA copies (" +
            num(static_cast<int64_t>(k.keys().size())) +
            " model_ema.* tensors, keys without their dots), which Halfscope does not read. "
            "Extract the EMA weights into model.diffusion_model.* first (diffusers' "
            "from_single_file or convert_original_stable_diffusion_to_diffusers.py with "
            "--extract_ema)");
    };
    return l;
}

std::string sdModelName(const WeightMap& all) {
    for (const char* p : {"model.diffusion_model.", ""}) {
        const SdTraits t = traitsAt(all, p);
        if (t.found && all.count(std::string(p) + "time_embed.0.weight")) return nameOf(t);
    }
    return "";
}

}  // namespace hs
