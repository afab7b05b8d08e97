#pragma once
// The run options that generate, compare and bisect share (prompt, seed, steps, model ...).
#include <string>
#include <vector>

#include "cli/command.h"
#include "denoising/strategy.h"
#include "records/run_types.h"

namespace hs::cli {

// The studio's first prompt and seed (widgets/controls/studio_settings.cpp), so that a default
// run names the same first failing layer from the command line and in the studio.
inline constexpr const char* kDefaultPrompt = "a large red circle in the centre, blue background";
inline constexpr unsigned long long kDefaultSeed = 1;

// Option names read by runConfigFrom (for Args::allowOnly).
const std::vector<std::string>& runOptionNames();
// Usage lines for them, to append to a command's help (a literal, so help texts concatenate).
#define HS_RUN_OPTIONS_HELP                                                                        \
    "run options:\n"                                                                               \
    "  --prompt TEXT      what to draw (default, as the studio's: \"a large red circle in the\n"   \
    "                     centre, blue background\"; --prompt '' for the model's\n"                \
    "                     unconditional picture)\n"                                                \
    "  --negative TEXT    negative prompt (used when --guidance > 1)\n"                            \
    "  --seed N           noise seed (default 1, as the studio's); the same seed gives the same\n" \
    "                     noise anywhere\n"                                                        \
    "  --steps N          sampling steps (default: the model's; 20 for the demo, 28 FLUX.1-dev,\n" \
    "                     4 schnell, 50 SD / SDXL / Anima / Qwen-Image, 35 Cosmos-Predict2)\n"     \
    "  --guidance G       guidance scale (default: the model's; 4 for the demo, where <= 1\n"      \
    "                     turns classifier-free guidance off; FLUX.1-dev 3.5 into its guidance\n"  \
    "                     embedding; schnell ignores it; 7.5 SD, 5 SDXL, 4 Anima, 7\n"             \
    "                     Cosmos-Predict2; Qwen-Image's true_cfg_scale 4, with --negative only)\n" \
    "  --width W, --height H   image size (default 64 x 64; the demo model: the size it was\n"     \
    "                     trained at, its VAE's sample_size)\n"                                    \
    "  --shift S          scheduler shift override (flow-matching models)\n"                       \
    "  --scheduler NAME   sampler for SD / SDXL models: euler, euler_a, ddim, dpmpp_2m,\n"         \
    "                     dpmpp_2m_karras, pndm (default: the model's own scheduler)\n"            \
    "  --prediction-type T  epsilon, v_prediction or sample in place of the model's (an SD 2.x\n"  \
    "                     single file is taken as v_prediction, as diffusers does)\n"              \
    "  --model DIR|FILE   diffusers pipeline folder, or a single-file checkpoint such as\n"        \
    "                     flux1-dev.safetensors (default: the embedded demo model)\n"              \
    "  --vae FILE, --text-encoder FILE, --text-encoder-2 FILE, --text-encoder-3 FILE\n"            \
    "                     the rest of a file set (ae.safetensors, clip_l.safetensors,\n"           \
    "                     t5xxl_fp16.safetensors; SD3: clip_l, clip_g, t5xxl), or a\n"             \
    "                     replacement for a folder's component\n"                                  \
    "  --tokenizer DIR, --tokenizer-2 DIR, --tokenizer-3 DIR\n"                                    \
    "                     tokenizer folders (CLIP or Qwen vocab.json + merges.txt; T5\n"           \
    "                     spiece.model, also Anima's); single files: found beside the files,\n"    \
    "                     CLIP-L's and Qwen2's are bundled\n"                                      \
    "  --device D         cpu (default) or cuda:N\n"                                               \
    "  --probe-level L    off, module, layer (default) or op\n"

// RunConfig from --prompt --negative --seed --steps --guidance --width --height --device
// --probe-level --model --shift --plan (the demo model when --model is not given).
// Throws UsageError / PlanParseError.
RunConfig runConfigFrom(const Args& args);

// The model's steps, guidance and image size for the options not given.
void applyModelDefaults(const Args& args, const RunDefaults& defaults, RunConfig& cfg);

// Options plus `extra`, for allowOnly.
std::vector<std::string> withRunOptions(std::vector<std::string> extra);

}  // namespace hs::cli
