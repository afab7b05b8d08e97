#pragma once
// Stable Diffusion single files written by the tests: diffusers-keyed UNets (random weights from
// the UNet family, or real shapes as expanded tensors) rewritten in the LDM layout through the
// conversion's own key table read backwards, and CLIP text models rewritten in OpenCLIP's layout.
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "models/registry.h"
#include "families/unet/unet_ldm_layout.h"

namespace hs::test {

// The block structure a diffusers UNet2DConditionModel config describes (what the LDM keys of
// its weights spell).
inline UnetLdmStructure unetStructureOf(const nlohmann::json& c) {
    UnetLdmStructure s;
    s.channels = c.at("block_out_channels").get<std::vector<int64_t>>();
    s.layersPerBlock = c.at("layers_per_block").get<int>();
    const int n = static_cast<int>(s.channels.size());
    const nlohmann::json tl = c.value("transformer_layers_per_block", nlohmann::json(1));
    std::vector<int> depth =
        tl.is_number() ? std::vector<int>(n, tl.get<int>()) : tl.get<std::vector<int>>();
    const auto down = c.at("down_block_types").get<std::vector<std::string>>();
    const auto up = c.at("up_block_types").get<std::vector<std::string>>();
    for (int l = 0; l < n; ++l) s.downDepth.push_back(down[l] == "DownBlock2D" ? 0 : depth[l]);
    s.midDepth = depth.back();
    const nlohmann::json rev = c.value("reverse_transformer_layers_per_block", nlohmann::json());
    for (int u = 0; u < n; ++u) {
        s.upDepth.emplace_back();
        for (int j = 0; j <= s.layersPerBlock; ++j)
            s.upDepth.back().push_back(up[u] == "UpBlock2D" ? 0
                                       : rev.is_null()      ? depth[n - 1 - u]
                                                            : rev[u][j].get<int>());
    }
    s.addEmbedding = c.value("addition_embed_type", nlohmann::json()) == "text_time";
    return s;
}

// diffusers keys -> LDM keys (under `prefix`), by unetLdmKeyTable(). Throws std::out_of_range
// for a key the table names and `diffusers` lacks; returns what it mapped.
inline WeightMap unetToLdm(const WeightMap& diffusers, const nlohmann::json& config,
                           const std::string& prefix = "model.diffusion_model.") {
    WeightMap ldm;
    for (const UnetKeyPair& p : unetLdmKeyTable(unetStructureOf(config)))
        ldm[prefix + p.ldm] = diffusers.at(p.diffusers);
    return ldm;
}

// The UNet family's model of `config` (built through the registry), with random weights.
inline WeightMap randomUnet(const nlohmann::json& config, uint64_t seed) {
    const auto family = FamilyRegistry::global().require("UNet2DConditionModel", "test");
    torch::manual_seed(seed);
    auto component = family->build(ComponentSource{"test", config, {}}, "unet");
    nn::initialiseForTraining(component->module());
    WeightMap w;
    for (auto& kv : stateOf(component->module())) w.emplace(kv.first, kv.second.detach().clone());
    return w;
}

// The UNet family's parameter names and shapes for `config`, as tensors of `dtype` that take no
// memory (one element, expanded): a real-size UNet for detection and config inference.
inline WeightMap unetShapes(const nlohmann::json& config, torch::ScalarType dtype) {
    const auto family = FamilyRegistry::global().require("UNet2DConditionModel", "test");
    std::shared_ptr<Component> meta;
    {
        nn::MetaConstruction onMeta;
        meta = family->build(ComponentSource{"test", config, {}}, "unet");
    }
    WeightMap w;
    for (auto& kv : stateOf(meta->module()))
        w.emplace(kv.first, torch::zeros({1}, dtype).expand(kv.second.sizes()));
    return w;
}

// transformers' CLIP text keys -> OpenCLIP's (under `prefix`): q/k/v fused into in_proj,
// `projection` [proj, width] (transformers' text_projection.weight) stored transposed, plus
// logit_scale. `extraLayers` random resblocks are appended after the model's own.
inline WeightMap clipToOpenClip(const WeightMap& t, int layers, const std::string& prefix,
                                const torch::Tensor& projection, int extraLayers = 0) {
    WeightMap o;
    o[prefix + "token_embedding.weight"] = t.at("text_model.embeddings.token_embedding.weight");
    o[prefix + "positional_embedding"] = t.at("text_model.embeddings.position_embedding.weight");
    for (int i = 0; i < layers + extraLayers; ++i) {
        const std::string d = "text_model.encoder.layers." + std::to_string(i % layers) + ".";
        const std::string r = prefix + "transformer.resblocks." + std::to_string(i) + ".";
        auto get = [&](const std::string& key) {
            torch::Tensor x = t.at(d + key);
            return i < layers ? x : torch::randn_like(x);
        };
        for (const char* p : {"weight", "bias"}) {
            const std::string sp = std::string(".") + p;
            o[r + "attn.in_proj_" + p] =
                torch::cat({get("self_attn.q_proj" + sp), get("self_attn.k_proj" + sp),
                            get("self_attn.v_proj" + sp)});
            o[r + "attn.out_proj" + sp] = get("self_attn.out_proj" + sp);
            o[r + "ln_1" + sp] = get("layer_norm1" + sp);
            o[r + "ln_2" + sp] = get("layer_norm2" + sp);
            o[r + "mlp.c_fc" + sp] = get("mlp.fc1" + sp);
            o[r + "mlp.c_proj" + sp] = get("mlp.fc2" + sp);
        }
    }
    o[prefix + "ln_final.weight"] = t.at("text_model.final_layer_norm.weight");
    o[prefix + "ln_final.bias"] = t.at("text_model.final_layer_norm.bias");
    if (projection.defined()) o[prefix + "text_projection"] = projection.t().contiguous();
    o[prefix + "logit_scale"] = torch::tensor(4.6052f);
    return o;
}

}  // namespace hs::test
