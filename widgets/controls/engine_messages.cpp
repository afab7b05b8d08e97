// The engine's sentence templates (core/records/message_catalogue.cpp) for Qt's lupdate:
// the English template is the source text in context "Engine". The studio renders a message with
// QCoreApplication::translate("Engine", template) (engine_text.h). Tests/widgets keeps this list
// equal to the engine's catalogue: add a template there and here together.
#include <QtGlobal>

#include "engine_text.h"

namespace engine_text {

const std::vector<std::pair<const char*, const char*>>& templateList() {
    static const std::vector<std::pair<const char*, const char*>> list = {
        {"verdict.ok", QT_TRANSLATE_NOOP("Engine", "ok")},
        {"verdict.nonfinite", QT_TRANSLATE_NOOP("Engine", "nan/inf")},
        {"verdict.black", QT_TRANSLATE_NOOP("Engine", "black")},
        {"verdict.flat", QT_TRANSLATE_NOOP("Engine", "flat")},
        {"image.nonfinite",
         QT_TRANSLATE_NOOP("Engine",
                           "%1 NaN and %2 Inf values of %3; saved as a PNG they turn black")},
        {"image.black", QT_TRANSLATE_NOOP("Engine", "mean level %1, brightest %2")},
        {"image.flat", QT_TRANSLATE_NOOP("Engine", "std %1 around level %2")},
        {"image.ok", QT_TRANSLATE_NOOP("Engine", "mean level %1, std %2")},
        {"first_failure.probe_step.native",
         QT_TRANSLATE_NOOP("Engine", "%1 first at %2 (block %3, step %4, %5 native)")},
        {"first_failure.probe_step.emulated",
         QT_TRANSLATE_NOOP("Engine", "%1 first at %2 (block %3, step %4, %5 emulated)")},
        {"first_failure.probe.native",
         QT_TRANSLATE_NOOP("Engine", "%1 first at %2 (block %3, %4 native)")},
        {"first_failure.probe.emulated",
         QT_TRANSLATE_NOOP("Engine", "%1 first at %2 (block %3, %4 emulated)")},
        {"first_failure.record_step",
         QT_TRANSLATE_NOOP("Engine",
                           "%1 first at %2 after step %3 (no probe point held it: probing was off "
                           "or too coarse)")},
        {"first_failure.record",
         QT_TRANSLATE_NOOP(
             "Engine", "%1 first at %2 (no probe point held it: probing was off or too coarse)")},
        {"first_failure.input_step",
         QT_TRANSLATE_NOOP("Engine", "; the point before it, %1 (step %2), had |max| %3")},
        {"first_failure.input",
         QT_TRANSLATE_NOOP("Engine", "; the point before it, %1, had |max| %2")},
        {"headroom.unreliable",
         QT_TRANSLATE_NOOP("Engine",
                           "this run already holds non-finite values (first at %1): the magnitudes "
                           "after it say nothing about fp16")},
        {"advice.fp16_failed_step.native",
         QT_TRANSLATE_NOOP("Engine",
                           "the first %1 appeared at %2 (step %3), running in fp16 (native): a "
                           "value passed fp16's largest finite value, 65504")},
        {"advice.fp16_failed.native",
         QT_TRANSLATE_NOOP("Engine",
                           "the first %1 appeared at %2, running in fp16 (native): a value passed "
                           "fp16's largest finite value, 65504")},
        {"advice.fp16_failed_step.emulated",
         QT_TRANSLATE_NOOP("Engine",
                           "the first %1 appeared at %2 (step %3), running in fp16 (emulated): a "
                           "value passed fp16's largest finite value, 65504")},
        {"advice.fp16_failed.emulated",
         QT_TRANSLATE_NOOP("Engine",
                           "the first %1 appeared at %2, running in fp16 (emulated): a value "
                           "passed fp16's largest finite value, 65504")},
        {"advice.predicted_step",
         QT_TRANSLATE_NOOP("Engine",
                           "this run is clean, but in fp16 %1 would overflow at step %2 (max |x| "
                           "%3 >= 65520, which rounds to Inf)")},
        {"advice.predicted", QT_TRANSLATE_NOOP("Engine",
                                               "this run is clean, but in fp16 %1 would overflow "
                                               "(max |x| %2 >= 65520, which rounds to Inf)")},
        {"advice.clean", QT_TRANSLATE_NOOP("Engine", "no non-finite value")},
        {"advice.clean_headroom",
         QT_TRANSLATE_NOOP(
             "Engine",
             "no non-finite value; the point closest to fp16's limit keeps %1 bits of headroom")},
        {"advice.not_fp16_step",
         QT_TRANSLATE_NOOP(
             "Engine",
             "fp16 is not the problem: the first %1 appeared at %2 (step %3), which ran in %4")},
        {"advice.not_fp16",
         QT_TRANSLATE_NOOP(
             "Engine", "fp16 is not the problem: the first %1 appeared at %2, which ran in %3")},
        {"advice.note.input_headroom",
         QT_TRANSLATE_NOOP("Engine",
                           "the point before it, %1, had |max| %2 (%3 bits below 65504)")},
        {"advice.note.thin_headroom",
         QT_TRANSLATE_NOOP(
             "Engine",
             "less than one bit of headroom: another prompt, seed or size may overflow in fp16")},
        {"advice.note.bisection_early",
         QT_TRANSLATE_NOOP(
             "Engine",
             "the bisection stopped early (%1): its block set passes but may not be the smallest")},
        {"advice.note.bisection_cannot",
         QT_TRANSLATE_NOOP("Engine",
                           "a bisection with all %1 candidate blocks in %2 still failed: the cause "
                           "lies outside those blocks")},
        {"advice.note.bisect_hint",
         QT_TRANSLATE_NOOP("Engine",
                           "a precision bisection over the %1 %2 blocks finds the fewest to keep "
                           "out of fp16 (about %3 trial runs or more)")},
        {"advice.note.input_finite",
         QT_TRANSLATE_NOOP("Engine",
                           "its input, %1, was finite (|max| %2): the operation itself produced it "
                           "(a division by zero, the log or square root of a negative number) or "
                           "its weights hold non-finite values")},
        {"advice.note.input_nonfinite",
         QT_TRANSLATE_NOOP("Engine", "its input, %1, held no finite value")},
        {"advice.note.cpu_fp16",
         QT_TRANSLATE_NOOP("Engine",
                           "on this CPU fp16 is emulated (compute in fp32, outputs rounded): it "
                           "saves memory but no time, while bf16 runs natively with fp32's range")},
        {"advice.note.cpu_fp16.bf16_emulated",
         QT_TRANSLATE_NOOP("Engine",
                           "on this CPU fp16 is emulated (compute in fp32, outputs rounded): it "
                           "saves memory but no time, and bf16 is emulated too: it keeps fp32's "
                           "range but saves no time either")},
        {"advice.note.no_fp16_cores",
         QT_TRANSLATE_NOOP("Engine", "%1 has no fp16 tensor cores: fp16 saves memory only")},
        {"advice.note.too_big",
         QT_TRANSLATE_NOOP(
             "Engine",
             "even the failing plan's weights, %1, are more than the %2's %3: the model needs "
             "offloading (CPU or block by block) or a smaller format whatever the fix")},
        {"advice.note.bf16_stored",
         QT_TRANSLATE_NOOP("Engine",
                           "the %1 is stored in bf16 and ran in fp16: bf16-trained weights can "
                           "produce activations above 65504")},
        {"advice.target.gpu",
         QT_TRANSLATE_NOOP("Engine", "advice for a GPU of compute capability %1")},
        {"advice.target.gpu_memory",
         QT_TRANSLATE_NOOP("Engine", "advice for a GPU of compute capability %1 with %2")},
        {"advice.target.named",
         QT_TRANSLATE_NOOP("Engine", "advice for a %1 (compute capability %2)")},
        {"advice.target.named_memory",
         QT_TRANSLATE_NOOP("Engine", "advice for a %1 (compute capability %2, %3)")},
        {"advice.target.run_device", QT_TRANSLATE_NOOP("Engine", "; the run itself was on %1")},
        {"advice.target.memory_known",
         QT_TRANSLATE_NOOP("Engine", ": ranks, costs and weight totals speak for that GPU")},
        {"advice.target.memory_unknown",
         QT_TRANSLATE_NOOP("Engine",
                           ": ranks and costs speak for that GPU (its memory is unknown: give it "
                           "to check the weights)")},
        {"advice.action.component", QT_TRANSLATE_NOOP("Engine", "run the %1 in %2")},
        {"advice.action.components2", QT_TRANSLATE_NOOP("Engine", "run the %1 and %2 in %3")},
        {"advice.action.components3",
         QT_TRANSLATE_NOOP("Engine", "run the %1 and %2 and %3 in %4")},
        {"advice.action.blocks", QT_TRANSLATE_NOOP("Engine", "keep %1 in %2")},
        {"advice.action.check_inputs",
         QT_TRANSLATE_NOOP("Engine", "check the weights and inputs of %1 for NaN or Inf")},
        {"advice.cost.fp32_weights",
         QT_TRANSLATE_NOOP("Engine", "its weights: %1 MB more than fp16")},
        {"advice.cost.no_extra", QT_TRANSLATE_NOOP("Engine", "no extra weight memory")},
        {"advice.cost.blocks", QT_TRANSLATE_NOOP("Engine", "%1 of %2 blocks")},
        {"advice.cost.predicted",
         QT_TRANSLATE_NOOP("Engine", " (predicted from the overflow headroom; not yet verified)")},
        {"advice.cost.fp32_blocks",
         QT_TRANSLATE_NOOP(
             "Engine", "; about %1 MB more weights than fp16 (if the blocks are of equal size)")},
        {"advice.cost.no_extra_after", QT_TRANSLATE_NOOP("Engine", "; no extra weight memory")},
        {"advice.cost.bf16_range",
         QT_TRANSLATE_NOOP("Engine", "; bf16 keeps fp32's range with 8 bits of precision")},
        {"advice.cost.fits", QT_TRANSLATE_NOOP("Engine", "; fits: %1 of weights in the %2's %3")},
        {"advice.cost.too_big",
         QT_TRANSLATE_NOOP("Engine", "; %1 needs %2 of weights, more than the %3's %4")},
        {"advice.cost.check_inputs",
         QT_TRANSLATE_NOOP(
             "Engine",
             "no precision change fixes this; `halfscope-cli inspect` counts non-finite weights")},
        {"advice.speed.cpu_bf16_native",
         QT_TRANSLATE_NOOP("Engine", "; bf16 runs natively on this CPU (oneDNN)")},
        {"advice.speed.cpu_bf16_emulated",
         QT_TRANSLATE_NOOP("Engine", "; bf16 is emulated on this CPU at fp32's speed")},
        {"advice.speed.gpu_bf16_native", QT_TRANSLATE_NOOP("Engine", "; bf16 is native on %1")},
        {"advice.speed.gpu_bf16_slow",
         QT_TRANSLATE_NOOP("Engine",
                           "; on %1 bf16 runs, slow (no bf16 tensor cores: bf16 is emulated and "
                           "slow below compute capability 8.0)")},
        {"advice.speed.cpu_fp32",
         QT_TRANSLATE_NOOP("Engine",
                           "; as fast as fp16 on this CPU (fp16 is emulated in fp32 here)")},
        {"advice.speed.gpu_fp32_slower",
         QT_TRANSLATE_NOOP("Engine", "; slower than fp16 on %1 (no fp16 tensor cores)")},
        {"advice.speed.gpu_fp32_same",
         QT_TRANSLATE_NOOP("Engine", "; about as fast as fp16 on %1 (it has no fast fp16)")},
        {"remedy.action.format", QT_TRANSLATE_NOOP("Engine", "%1 in %2")},
        {"remedy.action.format_whole", QT_TRANSLATE_NOOP("Engine", "the whole %1 in %2")},
        {"remedy.action.clamp", QT_TRANSLATE_NOOP("Engine", "clamp %1")},
        {"remedy.action.clamp_whole", QT_TRANSLATE_NOOP("Engine", "clamp the whole %1")},
        {"remedy.action.scale", QT_TRANSLATE_NOOP("Engine", "scale %1 by 2^-%2")},
        {"remedy.action.scale_whole", QT_TRANSLATE_NOOP("Engine", "scale the whole %1 by 2^-%2")},
        {"remedy.action.fp32_residual", QT_TRANSLATE_NOOP("Engine", "fp32 residual stream in %1")},
        {"remedy.action.fp32_residual_whole",
         QT_TRANSLATE_NOOP("Engine", "fp32 residual stream in the whole %1")},
        {"remedy.cost.bf16_fast",
         QT_TRANSLATE_NOOP("Engine", "no extra memory; bf16 runs at full speed there")},
        {"remedy.cost.bf16_slow",
         QT_TRANSLATE_NOOP("Engine",
                           "no extra memory, but bf16 runs slowly there (no bf16 tensor cores "
                           "below compute capability 8.0)")},
        {"remedy.cost.fp32",
         QT_TRANSLATE_NOOP("Engine", "+%1 MB of weights (blocks of equal size assumed)")},
        {"remedy.cost.fp32_tensor_cores",
         QT_TRANSLATE_NOOP("Engine", "; these blocks lose fp16 tensor cores")},
        {"remedy.cost.clamp",
         QT_TRANSLATE_NOOP("Engine", "no memory; one clip per output, negligible time")},
        {"remedy.cost.scale",
         QT_TRANSLATE_NOOP(
             "Engine", "no memory; two exact multiplications by 2^%1 per value, negligible time")},
        {"remedy.cost.fp32_residual",
         QT_TRANSLATE_NOOP("Engine",
                           "no weight memory; the residual stream's activations take twice the "
                           "memory, a cast per sub-layer")},
        {"remedy.cost.weights_within",
         QT_TRANSLATE_NOOP("Engine", "; the model's weights: %1 GB, within its %2 GB")},
        {"remedy.cost.weights_over",
         QT_TRANSLATE_NOOP("Engine", "; the model's weights: %1 GB, more than its %2 GB")},
        {"remedy.message.none_tried",
         QT_TRANSLATE_NOOP("Engine", "no remedy was tried: no failing block was found")},
        {"remedy.message.none_pass",
         QT_TRANSLATE_NOOP("Engine",
                           "none of the %1 remedies tried makes the run right (finite and within "
                           "tolerance of %2)")},
        {"remedy.message.best",
         QT_TRANSLATE_NOOP(
             "Engine",
             " fixes the run with the fewest changes: image difference %1 to the reference")},
        {"remedy.message.psnr", QT_TRANSLATE_NOOP("Engine", " (PSNR %1 dB)")},
        {"remedy.message.passing", QT_TRANSLATE_NOOP("Engine", "; %1 of %2 remedies pass")},
        {"report.section.summary", QT_TRANSLATE_NOOP("Engine", "Summary")},
        {"report.section.environment", QT_TRANSLATE_NOOP("Engine", "Environment")},
        {"report.section.components", QT_TRANSLATE_NOOP("Engine", "Model and components")},
        {"report.section.plans", QT_TRANSLATE_NOOP("Engine", "Configuration and precision plans")},
        {"report.section.steps", QT_TRANSLATE_NOOP("Engine", "Step curves")},
        {"report.section.previews", QT_TRANSLATE_NOOP("Engine", "Previews")},
        {"report.section.heatmap", QT_TRANSLATE_NOOP("Engine", "Layer heatmap")},
        {"report.section.first_failure", QT_TRANSLATE_NOOP("Engine", "First failure")},
        {"report.section.headroom", QT_TRANSLATE_NOOP("Engine", "Overflow headroom to fp16")},
        {"report.section.divergence", QT_TRANSLATE_NOOP("Engine", "Latent divergence from %1")},
        {"report.section.bisection", QT_TRANSLATE_NOOP("Engine", "Precision bisection")},
        {"report.section.remedies", QT_TRANSLATE_NOOP("Engine", "Remedies, ranked")},
        {"report.section.advice", QT_TRANSLATE_NOOP("Engine", "Advice")},
        {"report.label.verdict", QT_TRANSLATE_NOOP("Engine", "Verdict")},
        {"report.label.first_failure", QT_TRANSLATE_NOOP("Engine", "First non-finite value:")},
        {"report.label.diagnosis", QT_TRANSLATE_NOOP("Engine", "Diagnosis:")},
        {"report.label.suggested_fix", QT_TRANSLATE_NOOP("Engine", "Suggested fix:")},
    };
    return list;
}

}  // namespace engine_text
