#pragma once
// The LDM / CompVis (SD 1.x, 2.x) and SGM (SDXL) layout of the Stable Diffusion UNet
// (model.diffusion_model.input_blocks / middle_block / output_blocks / time_embed / label_emb /
// out), converted to diffusers' UNet2DConditionModel keys as diffusers' convert_ldm_unet_checkpoint
// does, with a config.json inferred from the shapes alone as ComfyUI's detect_unet_config does
// (diffusers' create_unet_diffusers_config_from_ldm reads the LDM yaml instead).
//
// Which model a file holds follows diffusers' infer_diffusers_model_type: the cross-attention
// width says SD 1.x (768), SD 2.x (1024), SDXL base (2048, with label_emb) or SDXL refiner
// (1280, with label_emb); 9 input channels say inpainting. What the file does not store is
// assumed, and the component's description says so:
//  - heads: diffusers' attention_head_dim is the head count. Convolution projections (SD 1.x)
//    get 8 heads everywhere; linear projections (SD 2.x, SDXL) 64-wide heads, a list of
//    width / 64 per level ([5, 10, 20, 20], [5, 10, 20]). Test-sized linear UNets whose widths
//    are not multiples of 64 get 8-wide heads;
//  - 32 norm groups, SDXL's addition_time_embed_dim 256;
//  - SD 2.x: v-prediction at 768 px and upcast_attention, as diffusers assumes for any 2.x file
//    (it takes SD 2.1's config); a 2.x-base file (epsilon, 512 px) holds the same shapes.
#include <string>
#include <vector>

#include "models/single_file.h"

namespace hs {

// The block structure of a UNet2DConditionModel, as the LDM keys spell it.
struct UnetLdmStructure {
    std::vector<int64_t> channels;  // block_out_channels, one per level
    int layersPerBlock = 0;         // resnets per down block (an up block has one more)
    // Transformer blocks per attention of each down level, 0 for a level without attention.
    std::vector<int> downDepth;
    // Per up block (diffusers' order, deepest first), per resnet (layersPerBlock + 1); 0: none.
    std::vector<std::vector<int>> upDepth;
    int midDepth = 1;           // the middle block's transformer blocks
    bool addEmbedding = false;  // SDXL's label_emb.0 (diffusers' add_embedding)
};

// One tensor's key in both layouts.
struct UnetKeyPair {
    std::string ldm;        // "input_blocks.1.0.in_layers.0.weight" (prefix removed)
    std::string diffusers;  // "down_blocks.0.resnets.0.norm1.weight"
};

// Every tensor of a UNet of structure `s`, in both layouts. The one table the conversion reads
// (and a writer of LDM files can read backwards).
std::vector<UnetKeyPair> unetLdmKeyTable(const UnetLdmStructure& s);

SingleFileLayout unetLdmLayout();

// A checkpoint that holds the UNet only as LDM's EMA copies (model_ema.diffusion_model*, keys
// with their dots removed) and not its model.diffusion_model.* weights: recognised so that it
// is refused with a WeightError saying what is missing, instead of opening without a UNet.
SingleFileLayout unetLdmEmaOnlyLayout();

// What an SD checkpoint is, from its UNet: "SD 1.x", "SD 2.x inpainting", "SDXL base",
// "SDXL refiner", "SD 1.x-style" (a test-sized or unknown cross-attention width) ...; "" when
// `all` holds no LDM UNet under model.diffusion_model.
std::string sdModelName(const WeightMap& all);

// SingleFileLayout::headline of an SD checkpoint: "SDXL base, SGM layout: UNet 2.57 B, two text
// encoders, VAE; fp16 weights" (unet_ldm_headline.cpp); "" when `f` has no UNet.
std::string sdSingleFileHeadline(const SingleFileContents& f, const WeightMap& all);

}  // namespace hs
