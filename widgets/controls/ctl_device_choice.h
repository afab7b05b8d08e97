#pragma once
// A device the studio can run on, as the precision panel shows it: what it is and how each
// format executes there. Filled by the app from the engine's device query; plain data, no
// LibTorch.
#include <QCoreApplication>
#include <QString>

#include "records/format_types.h"

struct DeviceChoice {
    Q_DECLARE_TR_FUNCTIONS(DeviceChoice)
public:
    QString id;             // "cpu" or "cuda:N" (RunConfig::device)
    QString name;           // "CPU (AVX-512 BF16)", "Tesla T4"
    int computeMajor = -1;  // CUDA compute capability, -1 when there is none (CPU)
    int computeMinor = -1;
    hs::Execution fp32 = hs::Execution::Native;
    hs::Execution bf16 = hs::Execution::Native;
    hs::Execution fp16 = hs::Execution::Native;
    QString note;  // one line, e.g. "compute capability 7.5: no native bf16; bf16 runs emulated"
    // A CUDA device's memory in GB of 2^30 bytes (0: unknown, or the CPU), and the cap a run may
    // take of it (0: none), as --gpu-memory sets it (core/runtime/gpu_memory.h): a smaller GPU
    // imposed on a larger one.
    double memoryGiB = 0;
    double memoryCapGiB = 0;

    bool hasComputeCapability() const { return computeMajor >= 0; }
    hs::Execution executionOf(hs::Format f) const;
    // "CPU" / "Tesla T4 (cuda:0, compute capability 7.5)"
    QString label() const;
    // Why `gib` cannot cap this device's memory (the CPU, not a positive number, more than the
    // device holds); empty when it can.
    QString memoryCapProblem(double gib) const;

    // The CPU as LibTorch 1.13 runs it: fp32 native, fp16 emulated (no Half kernels for matmul,
    // conv, norms: fp32 compute with fp16 rounding at every probe point), bf16 emulated the
    // same way or native (oneDNN) as the CPU's bf16 mode resolves; `bf16Instructions` says
    // whether native bf16 is fast there.
    static DeviceChoice cpu(const QString& name = QString(),
                            hs::Execution bf16 = hs::Execution::Emulated,
                            bool bf16Instructions = false);
    // A CUDA device: fp16 native; bf16 native from compute capability 8.0 (Ampere), emulated and
    // slow below it. The note is written from the capability.
    static DeviceChoice cuda(int index, const QString& name, int major, int minor,
                             double memoryGiB = 0);
};
