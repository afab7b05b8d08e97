#pragma once
// Shared helpers for the engine tests.
#include <torch/torch.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "numerics/cpu_bf16.h"

namespace hs::test {

// Sets the CPU's bf16 mode for a scope (the mode is process-wide, like the thread count).
class ScopedCpuBf16 {
public:
    explicit ScopedCpuBf16(CpuBf16 m) : m_old(cpuBf16Mode()) { setCpuBf16Mode(m); }
    ~ScopedCpuBf16() { setCpuBf16Mode(m_old); }
    ScopedCpuBf16(const ScopedCpuBf16&) = delete;
    ScopedCpuBf16& operator=(const ScopedCpuBf16&) = delete;

private:
    CpuBf16 m_old;
};

// The bf16 modes a test can compare on this CPU: emulated always, native only where the CPU has
// bf16 instructions (without them oneDNN's bf16 is ~13x slower and accumulates in bf16).
inline std::vector<CpuBf16> bf16ModesHere() {
    if (cpuHasBf16Instructions()) return {CpuBf16::Emulated, CpuBf16::Native};
    return {CpuBf16::Emulated};
}

inline const char* noBf16InstructionsReason() {
    return "this CPU has no bf16 instructions (AVX512-BF16, AMX or Arm BF16): native bf16 is "
           "not the fast, GPU-like mode here, so there is nothing to compare the emulated mode "
           "with";
}

// Sets $HALFSCOPE_MEMORY_LIMIT_MB (decimal megabytes) for a scope.
struct ScopedMemoryLimit {
    explicit ScopedMemoryLimit(const std::string& mb) {
        setenv("HALFSCOPE_MEMORY_LIMIT_MB", mb.c_str(), 1);
    }
    ~ScopedMemoryLimit() { unsetenv("HALFSCOPE_MEMORY_LIMIT_MB"); }
    ScopedMemoryLimit(const ScopedMemoryLimit&) = delete;
    ScopedMemoryLimit& operator=(const ScopedMemoryLimit&) = delete;
};

inline std::string dataPath(const std::string& rel) {
    return std::string(HALFSCOPE_TEST_DATA) + "/" + rel;
}

// The ids a CLIP text encoder needs to read the shipped demo tokenizer (its vocab_size,
// bos_token_id and eos_token_id), for fixtures that pair that tokenizer with encoders of their own.
inline nlohmann::json demoTokenIds() {
    std::ifstream f(dataPath("../../resources/demo-model/text_encoder/config.json"));
    const auto c = nlohmann::json::parse(f);
    return {{"vocab_size", c.at("vocab_size")},
            {"bos_token_id", c.at("bos_token_id")},
            {"eos_token_id", c.at("eos_token_id")}};
}

// max |a - b| / max |b|: the relative error the golden tests report.
inline double relErr(const torch::Tensor& a, const torch::Tensor& b) {
    auto af = a.to(torch::kFloat64), bf = b.to(torch::kFloat64);
    double denom = bf.abs().max().item<double>();
    double diff = (af - bf).abs().max().item<double>();
    return denom > 0 ? diff / denom : diff;
}

// A fresh temporary directory, removed by the caller's TearDown if it wants.
std::string tempDir(const std::string& tag);

// Runs halfscope-cli with `args` (shell syntax) and returns what it printed; `status` gets its
// exit status. stderr is merged into the output unless `stdoutOnly`.
std::string runCli(const std::string& args, int& status, bool stdoutOnly = false);

}  // namespace hs::test
