#pragma once
// The run options that generate, compare and bisect share (prompt, seed, steps, model ...).
#include <string>
#include <vector>

#include "cli/command.h"
#include "records/run_types.h"

namespace hs::cli {

// Option names read by runConfigFrom (for Args::allowOnly).
const std::vector<std::string>& runOptionNames();
// Usage lines for them, to append to a command's help (a literal, so help texts concatenate).
#define HS_RUN_OPTIONS_HELP                                                                      \
    "run options:\n"                                                                             \
    "  --prompt TEXT      what to draw (default: empty: the model's unconditional picture)\n"    \
    "  --negative TEXT    negative prompt (used when --guidance > 1)\n"                          \
    "  --seed N           noise seed (default 0); the same seed gives the same noise anywhere\n" \
    "  --steps N          sampling steps (default 20)\n"                                         \
    "  --guidance G       classifier-free guidance scale (default 4; <= 1 turns it off)\n"       \
    "  --width W, --height H   image size (default 64 x 64, the demo model's size)\n"            \
    "  --shift S          scheduler shift override\n"                                            \
    "  --model DIR        diffusers pipeline folder (default: the embedded demo model)\n"        \
    "  --device D         cpu (default) or cuda:N\n"                                             \
    "  --probe-level L    off, module, layer (default) or op\n"

// RunConfig from --prompt --negative --seed --steps --guidance --width --height --device
// --probe-level --model --shift --plan (the demo model when --model is not given).
// Throws UsageError / PlanParseError.
RunConfig runConfigFrom(const Args& args);

// Options plus `extra`, for allowOnly.
std::vector<std::string> withRunOptions(std::vector<std::string> extra);

}  // namespace hs::cli
