// The HTML report's own words (core/report/html_*.cpp: labels, table headings, explanations,
// plot titles; phrase() in report/html_sections.h) for Qt's lupdate. Core looks each up through
// the studio's translator (engine_text::translator()) with its English text as the source, so
// the text here must be the same: the zh_CN strings test (tests/app/test_zh_strings.cpp)
// renders a report and fails on any English left. Add a phrase there and here together.
#include <QtGlobal>

#include "engine_text.h"

namespace engine_text {

const std::vector<const char*>& reportPhraseList() {
    static const std::vector<const char*> list = {
        QT_TRANSLATE_NOOP("Engine", "text"),
        QT_TRANSLATE_NOOP("Engine", "decode"),
        QT_TRANSLATE_NOOP("Engine", "step %1"),
        QT_TRANSLATE_NOOP("Engine", "%1 bits to 65504"),
        QT_TRANSLATE_NOOP("Engine", "not in fp16"),
        QT_TRANSLATE_NOOP("Engine", "overflows in fp16"),
        QT_TRANSLATE_NOOP("Engine", "saturates (rounds to 65504)"),
        QT_TRANSLATE_NOOP("Engine", "under 1 bit"),
        QT_TRANSLATE_NOOP("Engine", "ok"),
        QT_TRANSLATE_NOOP("Engine", "point"),
        QT_TRANSLATE_NOOP("Engine", "block"),
        QT_TRANSLATE_NOOP("Engine", "peak step"),
        QT_TRANSLATE_NOOP("Engine", "bits to 65504"),
        QT_TRANSLATE_NOOP("Engine", "(%1 +Inf, %2 -Inf, %3 NaN of %4 values)"),
        QT_TRANSLATE_NOOP("Engine", "(step %1)"),
        QT_TRANSLATE_NOOP("Engine", "none"),
        QT_TRANSLATE_NOOP("Engine", "(verified)"),
        QT_TRANSLATE_NOOP("Engine", "(tried on the same prompt and seed: %1)"),
        QT_TRANSLATE_NOOP("Engine", "(not tried)"),
        QT_TRANSLATE_NOOP("Engine", "pass"),
        QT_TRANSLATE_NOOP("Engine", "fail"),
        QT_TRANSLATE_NOOP(
            "Engine",
            "Each row is a probe point in call order, each column a sampling step (“text”: text "
            "encoding, “decode”: VAE). The colour is the point's max |x| relative to fp16's limit "
            "65504, in bits of headroom. Hover a cell for its numbers."),
        QT_TRANSLATE_NOOP("Engine", "No probe points recorded (probe level %1)."),
        QT_TRANSLATE_NOOP("Engine", "%1 layer heatmap"),
        QT_TRANSLATE_NOOP("Engine", "heatmap legend"),
        QT_TRANSLATE_NOOP("Engine", "≤16 bits below"),
        QT_TRANSLATE_NOOP("Engine", "over 65504"),
        QT_TRANSLATE_NOOP("Engine", "first NaN/Inf"),
        QT_TRANSLATE_NOOP("Engine", "first non-finite value"),
        QT_TRANSLATE_NOOP(
            "Engine",
            "%1 blocks (too many points for one row each: a block's row shows its largest point)."),
        QT_TRANSLATE_NOOP("Engine",
                          "Not shown: %1 probe records at steps this run does not have, %2 rows "
                          "past the first %3 and %4 steps past the first %5."),
        QT_TRANSLATE_NOOP("Engine", "No NaN or Inf in this run."),
        QT_TRANSLATE_NOOP("Engine", "kind"),
        QT_TRANSLATE_NOOP("Engine", "component"),
        QT_TRANSLATE_NOOP("Engine", "step"),
        QT_TRANSLATE_NOOP("Engine", "outside the loop"),
        QT_TRANSLATE_NOOP("Engine", "ran in"),
        QT_TRANSLATE_NOOP("Engine", ", %1 point"),
        QT_TRANSLATE_NOOP("Engine", "point before it"),
        QT_TRANSLATE_NOOP("Engine", "How it spread"),
        QT_TRANSLATE_NOOP("Engine", "%1 non-finite values"),
        QT_TRANSLATE_NOOP("Engine", "It did not reach the image."),
        QT_TRANSLATE_NOOP("Engine",
                          "Bits of headroom = log2(65504 / max|x|) over the whole run. A value "
                          "overflows to Inf in fp16 when |x| ≥ 65520 (round to nearest even); "
                          "between 65504 and 65520 it rounds down to 65504."),
        QT_TRANSLATE_NOOP("Engine", "No probe points recorded."),
        QT_TRANSLATE_NOOP("Engine", "Caution:"),
        QT_TRANSLATE_NOOP("Engine", "Predicted first fp16 failure:"),
        QT_TRANSLATE_NOOP("Engine", "%1 (block %2, step %3), max |x| %4."),
        QT_TRANSLATE_NOOP("Engine", "%1 (block %2), max |x| %3."),
        QT_TRANSLATE_NOOP("Engine",
                          "No point reaches 65520 (fp16's largest finite value, 65504; values "
                          "from 65520 round to Inf): none is predicted to overflow in fp16. Least "
                          "headroom: %1 bits."),
        QT_TRANSLATE_NOOP("Engine",
                          "This run already failed: its first non-finite value is at %1 (fp16's "
                          "largest finite value, 65504; values from 65520 round to Inf). The "
                          "headroom figures are over its finite values; least headroom: %2 bits."),
        QT_TRANSLATE_NOOP("Engine", "%1 point predicted to overflow"),
        QT_TRANSLATE_NOOP("Engine", "%1 points predicted to overflow"),
        QT_TRANSLATE_NOOP("Engine", "(call order):"),
        QT_TRANSLATE_NOOP("Engine", "Closest to the limit"),
        QT_TRANSLATE_NOOP("Engine", "all %1 points in call order"),
        QT_TRANSLATE_NOOP(
            "Engine",
            "Relative L2 distance ||b − a|| / ||a|| of each step's latents from the first run's. A "
            "step where either side holds NaN/Inf counts as infinite (triangle)."),
        QT_TRANSLATE_NOOP("Engine", "relative L2 distance of the latents (log scale)"),
        QT_TRANSLATE_NOOP("Engine", "relative L2"),
        QT_TRANSLATE_NOOP("Engine", "note"),
        QT_TRANSLATE_NOOP("Engine", "NaN/Inf in the latents"),
        QT_TRANSLATE_NOOP("Engine", "relative L2 distance of the latents"),
        QT_TRANSLATE_NOOP("Engine",
                          "The runs did not keep their latents (RunConfig::keepLatents), so there "
                          "is nothing to compare step by step."),
        QT_TRANSLATE_NOOP("Engine", "per-step values"),
        QT_TRANSLATE_NOOP("Engine", "No bisection was run for this report."),
        QT_TRANSLATE_NOOP("Engine", "safe format"),
        QT_TRANSLATE_NOOP("Engine", "tolerance"),
        QT_TRANSLATE_NOOP("Engine", "(image difference)"),
        QT_TRANSLATE_NOOP("Engine", "candidates"),
        QT_TRANSLATE_NOOP("Engine", "kept in %1"),
        QT_TRANSLATE_NOOP("Engine", "Resulting plan"),
        QT_TRANSLATE_NOOP("Engine", "Trials"),
        QT_TRANSLATE_NOOP("Engine", "phase"),
        QT_TRANSLATE_NOOP("Engine", "blocks in %1"),
        QT_TRANSLATE_NOOP("Engine", "result"),
        QT_TRANSLATE_NOOP("Engine", "verdict"),
        QT_TRANSLATE_NOOP("Engine", "difference"),
        QT_TRANSLATE_NOOP("Engine", "s"),
        QT_TRANSLATE_NOOP("Engine", "why"),
        QT_TRANSLATE_NOOP("Engine", "No advice was computed for this report."),
        QT_TRANSLATE_NOOP("Engine", "Target device:"),
        QT_TRANSLATE_NOOP("Engine", "Device:"),
        QT_TRANSLATE_NOOP(
            "Engine",
            "(the GPU the model will run on; the run itself was on the device under Environment)"),
        QT_TRANSLATE_NOOP("Engine", "Notes"),
        QT_TRANSLATE_NOOP("Engine", "failing blocks"),
        QT_TRANSLATE_NOOP("Engine", "none found"),
        QT_TRANSLATE_NOOP("Engine", "reference"),
        QT_TRANSLATE_NOOP("Engine", "costs for"),
        QT_TRANSLATE_NOOP("Engine",
                          "Rows that pass come first, then fewer plan changes, then a smaller "
                          "image change, then the cheaper one on the target. The time per step was "
                          "measured on the machine that made this report."),
        QT_TRANSLATE_NOOP("Engine", "remedy"),
        QT_TRANSLATE_NOOP("Engine", "changes"),
        QT_TRANSLATE_NOOP("Engine", "s/step here"),
        QT_TRANSLATE_NOOP("Engine", "cost on the target"),
        QT_TRANSLATE_NOOP("Engine", "plan"),
        QT_TRANSLATE_NOOP("Engine", "run %1"),
        QT_TRANSLATE_NOOP("Engine", "%1 native"),
        QT_TRANSLATE_NOOP("Engine", "%1 emulated"),
        QT_TRANSLATE_NOOP("Engine", "(none: stored dtypes)"),
        QT_TRANSLATE_NOOP("Engine", "decoded (NaN magenta, Inf cyan)"),
        QT_TRANSLATE_NOOP("Engine", "as saved (NaN as 0)"),
        QT_TRANSLATE_NOOP("Engine", "Spread:"),
        QT_TRANSLATE_NOOP("Engine", "No NaN or Inf anywhere in the recorded run."),
        QT_TRANSLATE_NOOP("Engine", "Closest point to fp16's limit: %1 bits of headroom."),
        QT_TRANSLATE_NOOP("Engine", "Its largest value is %1 bits above fp16's limit."),
        QT_TRANSLATE_NOOP("Engine", "In fp16, %1 would overflow at step %2."),
        QT_TRANSLATE_NOOP("Engine", "In fp16, %1 would overflow."),
        QT_TRANSLATE_NOOP("Engine", "The run was cancelled before it finished."),
        QT_TRANSLATE_NOOP("Engine", "Error:"),
        QT_TRANSLATE_NOOP("Engine", "%1 steps, %2 probe records, %3 s"),
        QT_TRANSLATE_NOOP("Engine", "; estimated after its second step: %1 s"),
        QT_TRANSLATE_NOOP("Engine", ", %1 GB of memory (weights %2 GB + activations %3 GB)"),
        QT_TRANSLATE_NOOP(
            "Engine", ", %1 GB of memory (weights only: activations not measured on this device)"),
        QT_TRANSLATE_NOOP("Engine", "Advice for:"),
        QT_TRANSLATE_NOOP("Engine", "Device"),
        QT_TRANSLATE_NOOP("Engine", "Compute capability"),
        QT_TRANSLATE_NOOP("Engine", "bf16 on the CPU"),
        QT_TRANSLATE_NOOP("Engine", "Threads"),
        QT_TRANSLATE_NOOP("Engine", "Operating system"),
        QT_TRANSLATE_NOOP("Engine", "Report created"),
        QT_TRANSLATE_NOOP("Engine", "class"),
        QT_TRANSLATE_NOOP("Engine", "stored"),
        QT_TRANSLATE_NOOP("Engine", "parameters"),
        QT_TRANSLATE_NOOP("Engine", "runs in"),
        QT_TRANSLATE_NOOP("Engine", "Prompt"),
        QT_TRANSLATE_NOOP("Engine", "Negative prompt"),
        QT_TRANSLATE_NOOP("Engine", "Seed"),
        QT_TRANSLATE_NOOP("Engine", "Steps"),
        QT_TRANSLATE_NOOP("Engine", "Guidance"),
        QT_TRANSLATE_NOOP("Engine", "Size"),
        QT_TRANSLATE_NOOP("Engine", "Scheduler shift"),
        QT_TRANSLATE_NOOP("Engine", "default"),
        QT_TRANSLATE_NOOP("Engine", "Probe level"),
        QT_TRANSLATE_NOOP("Engine", "Plan (user rules)"),
        QT_TRANSLATE_NOOP("Engine", "Effective plan (stored dtypes + rules, last match wins)"),
        QT_TRANSLATE_NOOP("Engine", "latent |max| per step (log scale)"),
        QT_TRANSLATE_NOOP(
            "Engine",
            "Triangles above the plot mark steps whose latents hold NaN or Inf (no line: no finite "
            "value left). The dashed red line is fp16's largest finite value."),
        QT_TRANSLATE_NOOP("Engine", "latent min / max / mean ± std"),
        QT_TRANSLATE_NOOP("Engine", "mean"),
        QT_TRANSLATE_NOOP("Engine", "per-step table"),
        QT_TRANSLATE_NOOP("Engine", "velocity |max|"),
        QT_TRANSLATE_NOOP(
            "Engine",
            "The denoised estimate after each step (latent-to-RGB projection, or a full VAE decode "
            "where marked). NaN pixels are magenta and Inf cyan, never black."),
        QT_TRANSLATE_NOOP("Engine", "final"),
        QT_TRANSLATE_NOOP("Engine", "No previews recorded."),
        QT_TRANSLATE_NOOP("Engine", "%1 run"),
        QT_TRANSLATE_NOOP("Engine", "%1 runs side by side"),
        QT_TRANSLATE_NOOP("Engine", "created %1"),
        QT_TRANSLATE_NOOP("Engine", "This report holds no run."),
        QT_TRANSLATE_NOOP("Engine",
                          "Generated by Halfscope %1. This file is self-contained: it loads "
                          "nothing from anywhere."),
        // Engine names the report looks up as they are (nameText()): probe levels
        // (records/probe_types.cpp), bisection statuses and phases (diagnosis/bisection), the
        // spread's non-block links (diagnosis/first_failure).
        QT_TRANSLATE_NOOP("Engine", "off"),
        QT_TRANSLATE_NOOP("Engine", "module"),
        QT_TRANSLATE_NOOP("Engine", "layer"),
        QT_TRANSLATE_NOOP("Engine", "op"),
        QT_TRANSLATE_NOOP("Engine", "fixed"),
        QT_TRANSLATE_NOOP("Engine", "cannot_fix"),
        QT_TRANSLATE_NOOP("Engine", "iteration_limit"),
        QT_TRANSLATE_NOOP("Engine", "cancelled"),
        QT_TRANSLATE_NOOP("Engine", "no_candidates"),
        QT_TRANSLATE_NOOP("Engine", "verify"),
        QT_TRANSLATE_NOOP("Engine", "from_start"),
        QT_TRANSLATE_NOOP("Engine", "from_end"),
        QT_TRANSLATE_NOOP("Engine", "shrink"),
        QT_TRANSLATE_NOOP("Engine", "latents"),
        QT_TRANSLATE_NOOP("Engine", "image"),
    };
    return list;
}

}  // namespace engine_text
