#pragma once
// The fp16 check from weights as one line for a load log (CLI generate, the studio), without
// LibTorch in the header so Qt code can include it. See diagnosis/weight_risk.h.
#include <cstdint>
#include <string>

#include "records/message.h"

namespace hs {

// Past this many bytes of safetensors weights the load-time check is skipped: it reads every
// weight once, which for a large model would cost a noticeable part of a run (and, in the studio,
// hold the window); `halfscope-cli inspect` runs it on demand.
constexpr uint64_t kLoadTimeWeightCheckMaxBytes = uint64_t(256) << 20;

// Bytes of *.safetensors under `path` (a file: its size).
uint64_t safetensorsBytes(const std::string& path);

// "fp16 check from weights (12 ms): text_encoder fp16 safe; transformer at risk
// (context_embedder, estimated peak 2.11e+04); vae fp16 safe", or why it was skipped. Never
// throws.
std::string loadTimeWeightCheck(const std::string& modelPath,
                                uint64_t maxBytes = kLoadTimeWeightCheckMaxBytes);
// The same line as a message, for a reader in another language.
MessageText loadTimeWeightCheckMessage(const std::string& modelPath,
                                       uint64_t maxBytes = kLoadTimeWeightCheckMaxBytes);

}  // namespace hs
