#include "ctl_device_choice.h"

hs::Execution DeviceChoice::executionOf(hs::Format f) const {
    switch (f) {
        case hs::Format::FP32:
            return fp32;
        case hs::Format::BF16:
            return bf16;
        case hs::Format::FP16:
            return fp16;
        case hs::Format::TF32:  // Ampere's tensor cores on; the CPU and older GPUs emulate it
            return hasComputeCapability() && computeMajor >= 8 ? hs::Execution::Native
                                                               : hs::Execution::Emulated;
    }
    return fp32;
}

QString DeviceChoice::label() const {
    if (!hasComputeCapability()) return name.isEmpty() ? id : name;
    return tr("%1 (%2, compute capability %3.%4)")
        .arg(name, id)
        .arg(computeMajor)
        .arg(computeMinor);
}

QString DeviceChoice::memoryCapProblem(double gib) const {
    if (!hasComputeCapability())
        return tr("A memory cap applies to a GPU: the CPU runs in the system's memory.");
    if (!(gib > 0)) return tr("The memory cap must be a positive number of GB.");
    if (memoryGiB > 0 && gib > memoryGiB)
        return tr("%1 holds %2 GB: a cap of %3 GB is more than it has.")
            .arg(label())
            .arg(memoryGiB, 0, 'f', 1)
            .arg(gib, 0, 'f', 1);
    return {};
}

DeviceChoice DeviceChoice::cpu(const QString& name, hs::Execution bf16, bool bf16Instructions) {
    DeviceChoice d;
    d.id = QStringLiteral("cpu");
    d.name = name.isEmpty() ? tr("CPU") : name;
    d.fp16 = hs::Execution::Emulated;
    d.bf16 = bf16;
    if (bf16 == hs::Execution::Emulated)
        d.note =
            tr("CPU: fp32 runs natively; fp16 and bf16 are emulated (fp32 compute, every "
               "layer's output rounded to the format, as a GPU stores it), so they overflow "
               "where a GPU would.");
    else if (bf16Instructions)
        d.note =
            tr("CPU: fp32 and bf16 run natively (bf16 through oneDNN's bf16 instructions); "
               "fp16 is emulated (fp32 compute, every layer's output rounded to fp16), so "
               "it overflows where a GPU would.");
    else
        d.note =
            tr("CPU: bf16 runs natively without bf16 instructions: about 13x slower than "
               "fp32 and not a GPU's arithmetic (Settings: bf16 on the CPU). fp16 is "
               "emulated.");
    return d;
}

DeviceChoice DeviceChoice::cuda(int index, const QString& name, int major, int minor,
                                double memoryGiB) {
    DeviceChoice d;
    d.memoryGiB = memoryGiB;
    d.id = QStringLiteral("cuda:%1").arg(index);
    d.name = name;
    d.computeMajor = major;
    d.computeMinor = minor;
    d.bf16 = major >= 8 ? hs::Execution::Native : hs::Execution::Emulated;
    if (major >= 8)
        d.note = tr("compute capability %1.%2: fp16 and bf16 run natively").arg(major).arg(minor);
    else
        d.note = tr("compute capability %1.%2: no native bf16; bf16 runs emulated and slowly")
                     .arg(major)
                     .arg(minor);
    return d;
}
