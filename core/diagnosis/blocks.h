#pragma once
// Block names of probe paths: the unit a precision plan can move to another format without
// catching its neighbours, and the candidates of a precision bisection.
//   transformer.transformer_blocks.3.attn.to_q       -> transformer.transformer_blocks.3
//   transformer.single_transformer_blocks.0.proj_out -> transformer.single_transformer_blocks.0
//   vae.decoder.up_blocks.1.resnets.0.conv1          -> vae.decoder.up_blocks.1
//   vae.decoder.mid_block.attentions.0.to_q          -> vae.decoder.mid_block
//   vae.encoder.down_blocks.2.downsamplers.0         -> vae.encoder.down_blocks.2
//   text_encoder.text_model.encoder.layers.5.mlp     -> text_encoder.text_model.encoder.layers.5
//   unet.down_blocks.1 / unet.up_blocks.2 / unet.mid_block (UNet denoisers)
// Anything else maps to its component-level module: transformer.x_embedder.linear ->
// transformer.x_embedder, vae.decoder.conv_in -> vae.decoder.conv_in (not vae.decoder, whose
// plan rule would also catch the up blocks), text_encoder.text_model.embeddings.token_embedding
// -> text_encoder.text_model.embeddings.
// The rules do not depend on the component's name, so text_encoder_2 or a UNet named
// "denoiser" get the same treatment. No LibTorch.
#include <string>
#include <vector>

#include "records/probe_types.h"

namespace hs {

struct RunRecord;

// First path segment: "text_encoder", "transformer", "vae" ...; the whole path if it has no dot.
std::string componentOf(const std::string& path);
// The block `path` belongs to (see above). A path that is itself a block maps to itself.
std::string blockOf(const std::string& path);
// True when `block` is a numbered block or a mid block (not a component-level module such as
// transformer.x_embedder).
bool isRepeatedBlock(const std::string& block);

// The distinct blocks of `component` (all components when empty) in the order their first probe
// was recorded: the call order of the first forward pass that reached them. These are the
// candidates for bisection; `repeatedOnly` drops component-level modules (embedders, norm_out).
// A block that is an ancestor path of another listed block is left out (its plan rule would
// catch the other one too).
std::vector<std::string> blocksInCallOrder(const std::vector<ProbeRecord>& probes,
                                           const std::string& component = "",
                                           bool repeatedOnly = false);
std::vector<std::string> blocksInCallOrder(const RunRecord& run, const std::string& component = "",
                                           bool repeatedOnly = false);

// Short human form of a list of blocks, grouping numbered ones into ranges:
//   {transformer.transformer_blocks.0, .1, .2, transformer.single_transformer_blocks.1}
//   -> "transformer_blocks 0-2, single_transformer_blocks 1"
// The component prefix is dropped when all blocks share it.
std::string describeBlocks(const std::vector<std::string>& blocks);

}  // namespace hs
