#pragma once
// The run options that generate, compare and bisect share (prompt, seed, steps, model ...).
#include <string>
#include <vector>

#include "cli/command.h"
#include "denoising/strategy.h"
#include "records/run_types.h"

namespace hs::cli {

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
    "  --device D         cpu (default) or cuda:N\n" HS_GPU_MEMORY_HELP                            \
    "  --probe-level L    off, module, layer (default) or op\n"

// --gpu-memory, in every command that takes --device.
#define HS_GPU_MEMORY_HELP                                                                       \
    "  --gpu-memory GB    cap what the run may take of a CUDA device's memory (GB of 2^30\n"     \
    "                     bytes, as info's memory_gib), to see whether a model fits a smaller\n" \
    "                     GPU; refused on the CPU. A --target GPU with a memory size (t4: 16\n"  \
    "                     GB) implies its size on a CUDA device\n"

// --gpu-memory GB, else the memory of a --target GPU (t4: 16 GB) when `device` is a CUDA device:
// caps what the run may take of it (runtime/gpu_memory.h). Call before the model loads. Returns
// the note for the run's record ("GPU memory capped at 16 GB of 139.8 on cuda:0 (--gpu-memory
// 16)"); empty when nothing is capped. Throws UsageError for a cap that is not a positive number,
// exceeds the device's memory, or is given for the CPU.
std::string applyGpuMemoryOption(const Args& args, const std::string& device);

// The message for a command stopped by running out of memory (runtime/gpu_memory.h), with the
// device, its cap and the ways out, from the command's options.
std::string outOfMemoryText(const Args& args, const std::string& error);

// RunConfig from --prompt --negative --seed --steps --guidance --width --height --device
// --probe-level --model --shift --plan (the demo model when --model is not given).
// Throws UsageError / PlanParseError.
RunConfig runConfigFrom(const Args& args);

// The model's steps, guidance and image size for the options not given.
void applyModelDefaults(const Args& args, const RunDefaults& defaults, RunConfig& cfg);

// Options plus `extra`, for allowOnly.
std::vector<std::string> withRunOptions(std::vector<std::string> extra);

}  // namespace hs::cli
