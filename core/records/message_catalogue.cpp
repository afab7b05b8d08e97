// The engine's sentence templates (see message.h). An id, once released, keeps its meaning: a
// changed sentence gets a new id, so stored reports never render with a template that does not
// fit their arguments. widgets/controls/engine_messages.cpp lists the same templates for lupdate.
#include "records/message.h"

namespace hs {

const std::vector<MessageTemplate>& messageCatalogue() {
    static const std::vector<MessageTemplate> catalogue = {
        // Image verdicts: the name, then the explanation (diagnosis/image_verdict.cpp).
        {"verdict.ok", "ok"},
        {"verdict.nonfinite", "nan/inf"},
        {"verdict.black", "black"},
        {"verdict.flat", "flat"},
        {"image.nonfinite", "%1 NaN and %2 Inf values of %3; saved as a PNG they turn black"},
        {"image.black", "mean level %1, brightest %2"},
        {"image.flat", "std %1 around level %2"},
        {"image.ok", "mean level %1, std %2"},

        // The first non-finite value (diagnosis/first_failure.cpp). %1 the kind (+Inf, -Inf,
        // NaN), %2 the point; %5 (or %4) the format; the id ends in how it ran.
        {"first_failure.probe_step.native", "%1 first at %2 (block %3, step %4, %5 native)"},
        {"first_failure.probe_step.emulated", "%1 first at %2 (block %3, step %4, %5 emulated)"},
        {"first_failure.probe.native", "%1 first at %2 (block %3, %4 native)"},
        {"first_failure.probe.emulated", "%1 first at %2 (block %3, %4 emulated)"},
        {"first_failure.record_step",
         "%1 first at %2 after step %3 (no probe point held it: probing was off or too coarse)"},
        {"first_failure.record",
         "%1 first at %2 (no probe point held it: probing was off or too coarse)"},
        {"first_failure.input_step", "; the point before it, %1 (step %2), had |max| %3"},
        {"first_failure.input", "; the point before it, %1, had |max| %2"},

        // Headroom (diagnosis/headroom.cpp).
        {"headroom.unreliable",
         "this run already holds non-finite values (first at %1): the magnitudes after it say "
         "nothing about fp16"},

        // Advice headlines (diagnosis/advice.cpp).
        {"advice.fp16_failed_step.native",
         "the first %1 appeared at %2 (step %3), running in fp16 (native): a value passed fp16's "
         "largest finite value, 65504"},
        {"advice.fp16_failed.native",
         "the first %1 appeared at %2, running in fp16 (native): a value passed fp16's largest "
         "finite value, 65504"},
        {"advice.fp16_failed_step.emulated",
         "the first %1 appeared at %2 (step %3), running in fp16 (emulated): a value passed fp16's "
         "largest finite value, 65504"},
        {"advice.fp16_failed.emulated",
         "the first %1 appeared at %2, running in fp16 (emulated): a value passed fp16's largest "
         "finite value, 65504"},
        {"advice.predicted_step",
         "this run is clean, but in fp16 %1 would overflow at step %2 (max |x| %3 >= 65520, "
         "which rounds to Inf)"},
        {"advice.predicted",
         "this run is clean, but in fp16 %1 would overflow (max |x| %2 >= 65520, which rounds "
         "to Inf)"},
        {"advice.clean", "no non-finite value"},
        {"advice.clean_headroom",
         "no non-finite value; the point closest to fp16's limit keeps %1 bits of headroom"},
        {"advice.not_fp16_step",
         "fp16 is not the problem: the first %1 appeared at %2 (step %3), which ran in %4"},
        {"advice.not_fp16",
         "fp16 is not the problem: the first %1 appeared at %2, which ran in %3"},

        // Advice notes.
        {"advice.note.input_headroom",
         "the point before it, %1, had |max| %2 (%3 bits below 65504)"},
        {"advice.note.thin_headroom",
         "less than one bit of headroom: another prompt, seed or size may overflow in fp16"},
        {"advice.note.bisection_early",
         "the bisection stopped early (%1): its block set passes but may not be the smallest"},
        {"advice.note.bisection_cannot",
         "a bisection with all %1 candidate blocks in %2 still failed: the cause lies outside "
         "those blocks"},
        {"advice.note.bisect_hint",
         "a precision bisection over the %1 %2 blocks finds the fewest to keep out of fp16 "
         "(about %3 trial runs or more)"},
        {"advice.note.input_finite",
         "its input, %1, was finite (|max| %2): the operation itself produced it (a division by "
         "zero, the log or square root of a negative number) or its weights hold non-finite "
         "values"},
        {"advice.note.input_nonfinite", "its input, %1, held no finite value"},
        {"advice.note.cpu_fp16",
         "on this CPU fp16 is emulated (compute in fp32, outputs rounded): it saves memory but "
         "no time, while bf16 runs natively with fp32's range"},
        {"advice.note.cpu_fp16.bf16_emulated",
         "on this CPU fp16 is emulated (compute in fp32, outputs rounded): it saves memory but "
         "no time, and bf16 is emulated too: it keeps fp32's range but saves no time either"},
        {"advice.note.no_fp16_cores", "%1 has no fp16 tensor cores: fp16 saves memory only"},
        {"advice.note.too_big",
         "even the failing plan's weights, %1, are more than the %2's %3: the model needs "
         "offloading (CPU or block by block) or a smaller format whatever the fix"},
        {"advice.note.bf16_stored",
         "the %1 is stored in bf16 and ran in fp16: bf16-trained weights can produce activations "
         "above 65504"},
        // The target note: one opening, then the run device, then the ending.
        {"advice.target.gpu", "advice for a GPU of compute capability %1"},
        {"advice.target.gpu_memory", "advice for a GPU of compute capability %1 with %2"},
        {"advice.target.named", "advice for a %1 (compute capability %2)"},
        {"advice.target.named_memory", "advice for a %1 (compute capability %2, %3)"},
        {"advice.target.run_device", "; the run itself was on %1"},
        {"advice.target.memory_known", ": ranks, costs and weight totals speak for that GPU"},
        {"advice.target.memory_unknown",
         ": ranks and costs speak for that GPU (its memory is unknown: give it to check the "
         "weights)"},

        // Fixes: the action, then the cost in pieces.
        {"advice.action.component", "run the %1 in %2"},
        {"advice.action.components2", "run the %1 and %2 in %3"},
        {"advice.action.components3", "run the %1 and %2 and %3 in %4"},
        {"advice.action.blocks", "keep %1 in %2"},
        {"advice.action.check_inputs", "check the weights and inputs of %1 for NaN or Inf"},
        {"advice.cost.fp32_weights", "its weights: %1 MB more than fp16"},
        {"advice.cost.no_extra", "no extra weight memory"},
        {"advice.cost.blocks", "%1 of %2 blocks"},
        {"advice.cost.predicted", " (predicted from the overflow headroom; not yet verified)"},
        {"advice.cost.fp32_blocks",
         "; about %1 MB more weights than fp16 (if the blocks are of equal size)"},
        {"advice.cost.no_extra_after", "; no extra weight memory"},
        {"advice.cost.bf16_range", "; bf16 keeps fp32's range with 8 bits of precision"},
        {"advice.cost.fits", "; fits: %1 of weights in the %2's %3"},
        {"advice.cost.too_big", "; %1 needs %2 of weights, more than the %3's %4"},
        {"advice.cost.check_inputs",
         "no precision change fixes this; `halfscope-cli inspect` counts non-finite weights"},
        {"advice.speed.cpu_bf16_native", "; bf16 runs natively on this CPU (oneDNN)"},
        {"advice.speed.cpu_bf16_emulated", "; bf16 is emulated on this CPU at fp32's speed"},
        {"advice.speed.gpu_bf16_native", "; bf16 is native on %1"},
        {"advice.speed.gpu_bf16_slow",
         "; on %1 bf16 runs, slow (no bf16 tensor cores: bf16 is emulated and slow below compute "
         "capability 8.0)"},
        {"advice.speed.cpu_fp32", "; as fast as fp16 on this CPU (fp16 is emulated in fp32 here)"},
        {"advice.speed.gpu_fp32_slower", "; slower than fp16 on %1 (no fp16 tensor cores)"},
        {"advice.speed.gpu_fp32_same", "; about as fast as fp16 on %1 (it has no fast fp16)"},

        // Remedies (diagnosis/remedies.cpp): the action (blocks, or "_whole" components), the
        // cost on the target in pieces, the table's sentence (the best row's action first).
        {"remedy.action.format", "%1 in %2"},
        {"remedy.action.format_whole", "the whole %1 in %2"},
        {"remedy.action.clamp", "clamp %1"},
        {"remedy.action.clamp_whole", "clamp the whole %1"},
        {"remedy.action.scale", "scale %1 by 2^-%2"},
        {"remedy.action.scale_whole", "scale the whole %1 by 2^-%2"},
        {"remedy.action.fp32_residual", "fp32 residual stream in %1"},
        {"remedy.action.fp32_residual_whole", "fp32 residual stream in the whole %1"},
        {"remedy.cost.bf16_fast", "no extra memory; bf16 runs at full speed there"},
        {"remedy.cost.bf16_slow",
         "no extra memory, but bf16 runs slowly there (no bf16 tensor cores below compute "
         "capability 8.0)"},
        {"remedy.cost.fp32", "+%1 MB of weights (blocks of equal size assumed)"},
        {"remedy.cost.fp32_tensor_cores", "; these blocks lose fp16 tensor cores"},
        {"remedy.cost.clamp", "no memory; one clip per output, negligible time"},
        {"remedy.cost.scale",
         "no memory; two exact multiplications by 2^%1 per value, negligible time"},
        {"remedy.cost.fp32_residual",
         "no weight memory; the residual stream's activations take twice the memory, a cast per "
         "sub-layer"},
        {"remedy.cost.weights_within", "; the model's weights: %1 GB, within its %2 GB"},
        {"remedy.cost.weights_over", "; the model's weights: %1 GB, more than its %2 GB"},
        {"remedy.message.none_tried", "no remedy was tried: no failing block was found"},
        {"remedy.message.none_pass",
         "none of the %1 remedies tried makes the run right (finite and within tolerance of %2)"},
        {"remedy.message.best",
         " fixes the run with the fewest changes: image difference %1 to the reference"},
        {"remedy.message.psnr", " (PSNR %1 dB)"},
        {"remedy.message.passing", "; %1 of %2 remedies pass"},

        // A bisection or remedy trial: why it passed or failed (diagnosis/bisection.cpp). The
        // verdict's name is its own piece between trial.verdict_open and trial.verdict_close.
        {"trial.not_run", "the trial did not run: %1"},
        {"trial.nonfinite", "%1 non-finite values"},
        {"trial.verdict_open", " (verdict "},
        {"trial.verdict_close", ")"},
        {"trial.finite_but", "all finite but the image is "},
        {"trial.difference_above", "difference %1 to the reference is above the tolerance %2"},
        {"trial.passes", "passes: all finite"},
        {"trial.passes_verdict", ", verdict "},
        {"trial.passes_difference", ", difference %1 <= %2"},

        // The bisection's result (diagnosis/bisection.cpp, pipeline/precision_searcher.cpp).
        // %1 kept, %2 candidates, %3 the safe format, %4 the kept blocks, %5 the trials.
        {"bisection.fixed", "keeping %1 of %2 blocks in %3 (%4) fixes the run; found in %5 trials"},
        {"bisection.fixed_one",
         "keeping %1 of %2 blocks in %3 (%4) fixes the run; found in 1 trial"},
        {"bisection.cannot_fix_open", "even with all %1 candidate blocks in %2 the run fails ("},
        {"bisection.cannot_fix_close", "): the cause lies outside these blocks"},
        {"bisection.cancelled", "cancelled after %1 trials"},
        {"bisection.cancelled_one", "cancelled after 1 trial"},
        {"bisection.limit", "stopped at the limit after %1 trials"},
        {"bisection.limit_one", "stopped at the limit after 1 trial"},
        {"bisection.best_so_far",
         "; the smallest passing set so far keeps %1 of %2 blocks in %3 (%4) and may not be "
         "minimal"},
        {"bisection.none_passed", " before any plan passed"},
        {"bisection.no_candidates", "no candidate blocks to bisect"},
        {"bisection.plan_passes", "the plan %1 does not fail: no NaN or Inf and the image is "},
        {"bisection.no_fp16",
         "no component runs in fp16 under this plan, so no block can be moved out of fp16; the "
         "failure does not come from fp16 overflow"},
        {"bisection.remedies_only", "no bisection: the remedies were tried without format changes"},

        // How bf16 runs on the CPU (numerics/cpu_bf16.cpp), then the mode chosen.
        {"cpu_bf16.emulated",
         "bf16 emulated (fp32 compute, weights and every op output rounded to bf16, as a GPU "
         "stores them)"},
        {"cpu_bf16.native", "bf16 native (oneDNN, bf16 instructions)"},
        {"cpu_bf16.native_slow",
         "bf16 native (oneDNN without bf16 instructions: about 13x slower than fp32, and it "
         "accumulates in bf16 in places)"},
        {"cpu_bf16.mode.emulated", "; mode emulated"},
        {"cpu_bf16.mode.native", "; mode native"},
        {"cpu_bf16.mode.auto", "; mode auto"},

        // How the weights are held (pipeline/memory_check.cpp, pipeline/pipeline.cpp).
        {"memory.whole.available",
         "all components loaded whole: %1 in this plan; budget %2 available"},
        {"memory.whole.env",
         "all components loaded whole: %1 in this plan; budget %2 (HALFSCOPE_MEMORY_LIMIT_MB)"},
        {"memory.whole.gpu_cap",
         "all components loaded whole: %1 in this plan; budget %2 (GPU memory cap)"},
        {"memory.whole.unknown", "all components loaded whole: %1 in this plan; budget unknown"},
        {"memory.streamed", "%1 streamed block by block: %2 stored, %3 per block in %4"},
        {"memory.streamed_emulated",
         "%1 streamed block by block: %2 stored, %3 per block in fp32 (emulated %4)"},
        {"memory.separator", ", "},
        {"memory.rest_whole", "; %1 loaded whole (%2)"},
        {"memory.budget.available", "; budget %1 available"},
        {"memory.budget.env", "; budget %1 (HALFSCOPE_MEMORY_LIMIT_MB)"},
        {"memory.budget.gpu_cap", "; budget %1 (GPU memory cap)"},
        {"memory.text_encoders_freed", "; text encoders freed after each prompt is encoded"},

        // The fp16 check from weights at load time (inspect/weight_check.cpp,
        // diagnosis/weight_risk.cpp): a heading, then per component its verdict and worst module.
        {"weight_check.done", "fp16 check from weights (%1 ms): "},
        {"weight_check.skipped",
         "fp16 check from weights: skipped for %1 MiB of weights (halfscope-cli inspect runs it)"},
        {"weight_check.failed", "fp16 check from weights: not available (%1)"},
        {"weight_check.separator", "; "},
        {"weight_check.safe", "%1 fp16 safe"},
        {"weight_check.at_risk", "%1 at risk"},
        {"weight_check.will_overflow", "%1 will overflow"},
        {"weight_check.measured", " (%1, clean-run peak %2)"},
        {"weight_check.stored", " (%1, stored weight %2)"},
        {"weight_check.estimated", " (%1, estimated peak %2)"},
        {"weight_check.none", "no weights"},

        // The HTML report's section headings and the summary's labels (report/html_*.cpp).
        {"report.section.summary", "Summary"},
        {"report.section.environment", "Environment"},
        {"report.section.components", "Model and components"},
        {"report.section.plans", "Configuration and precision plans"},
        {"report.section.steps", "Step curves"},
        {"report.section.previews", "Previews"},
        {"report.section.heatmap", "Layer heatmap"},
        {"report.section.first_failure", "First failure"},
        {"report.section.headroom", "Overflow headroom to fp16"},
        {"report.section.divergence", "Latent divergence from %1"},
        {"report.section.bisection", "Precision bisection"},
        {"report.section.remedies", "Remedies, ranked"},
        {"report.section.advice", "Advice"},
        {"report.label.verdict", "Verdict"},
        {"report.label.first_failure", "First non-finite value:"},
        {"report.label.diagnosis", "Diagnosis:"},
        {"report.label.suggested_fix", "Suggested fix:"},
    };
    return catalogue;
}

}  // namespace hs
