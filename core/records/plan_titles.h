#pragma once
// Short titles for 2-4 precision plans shown side by side: each names only what differs between
// them, so a compared run reads "transformer fp16" instead of its whole plan (which stays in
// tooltips and under the final image).
//   {all bf16, all fp16}                        -> "bf16", "fp16"
//   {stored dtypes, transformer=fp16}           -> "stored dtypes", "transformer fp16"
//   {transformer=fp16, vae=fp16}                -> "transformer fp16", "vae fp16"
//   {transformer=fp16 + clamp, + scale:5}       -> "transformer fp16 + clamp", "transformer fp16 +
//   scale:5" {transformer=fp16, transformer=fp16}        -> "transformer fp16 #1", "transformer
//   fp16 #2"
// A plan entry is a module pattern's format (its last rule) or one of its remedies (clamp,
// scale:K, fp32-residual). An entry differs when not every plan gives it the same value (a plan
// without it counts as a value). A plan's title lists, per pattern with a differing entry, the
// format it gives there and the differing remedies it has; patterns with the same text share
// it ("text_encoder, vae fp16"); a plan that gives one format to the whole model, with no
// remedies, is just that format ("fp16"). The whole model: every one of options.components, or,
// without them, the same two or more patterns as every other plan. A plan with none of the
// differing entries is named by what it leaves at the stored dtype ("vae stored"), or "stored
// dtypes" when it is empty. Titles that come out equal get " #1", " #2" ... in plan order.
#include <string>
#include <vector>

#include "records/precision_plan.h"

namespace hs {

struct PlanTitleOptions {
    // The words a title uses besides patterns, formats and remedies (the studio translates them).
    std::string storedDtypes = "stored dtypes";  // an empty plan
    std::string stored = "stored";               // "vae stored": the stored dtype there
    // The model's components ("text_encoder", "transformer", "vae"), when known: a plan with one
    // format rule for each of them and nothing else is titled by the format alone.
    std::vector<std::string> components;
};

// One title per plan, in order. Plans beyond the comparison's 4 are handled the same way.
std::vector<std::string> planTitles(const std::vector<PrecisionPlan>& plans,
                                    const PlanTitleOptions& options = {});

// The whole plan in the same short style, e.g. "text_encoder, vae bf16; transformer fp16 +
// clamp"; options.storedDtypes when empty.
std::string planSummary(const PrecisionPlan& plan, const PlanTitleOptions& options = {});

}  // namespace hs
