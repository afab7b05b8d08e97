#pragma once
// Shared helpers for the engine tests.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "io/safetensors_header.h"
#include "models/common/named_tensors.h"
#include "models/common/weights.h"
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

// `s` repeated to at least 1 MiB: a hostile prompt.
inline std::string megabyteOf(const std::string& s) {
    std::string out;
    while (out.size() < (size_t(1) << 20)) out += s;
    return out;
}

// A 1 MiB prompt and a short prefix of it that gives the same first ids ("": none does).
struct MegabytePrompt {
    const char* name;
    std::string text;
    std::string reference;
};

// The worst relative error of `got` against every out.* of `ref`, each of which `got` must hold
// in its shape (1e9 when one is missing); `compared` (when given) gets how many were compared.
inline double worstOutputError(const NamedTensors& got, const NamedTensors& ref,
                               size_t* compared = nullptr) {
    double worst = 0;
    size_t n = 0;
    for (const auto& kv : ref) {
        if (kv.first.rfind("out.", 0) != 0) continue;
        EXPECT_TRUE(got.count(kv.first)) << kv.first;
        if (!got.count(kv.first)) return 1e9;
        EXPECT_EQ(got.at(kv.first).sizes(), kv.second.sizes()) << kv.first;
        worst = std::max(worst, relErr(got.at(kv.first), kv.second));
        ++n;
    }
    if (compared) *compared = n;
    return worst;
}

// Every tensor of the .safetensors file `path`, copied out of the mapped file.
NamedTensors readTensorsFile(const std::string& path);

// Writes `text` to `path` as it is, creating its folder.
void writeTextFile(const std::string& path, const std::string& text);

// The golden vae, clip and flux folders linked as `pipeline`'s vae, text_encoder and transformer.
void linkGoldenFluxComponents(const std::string& pipeline);

// Writes `j` (indented) to `path`, creating its folder.
void writeJsonFile(const std::string& path, const nlohmann::json& j);

// Writes `w` (each key prefixed with `prefix`) as the .safetensors file `path`, creating its
// folder.
void writeWeightsFile(const std::string& path, const WeightMap& w, const std::string& prefix = "");

// Scales the weights that write into a transformer's residual streams, their keys matching the
// regular expression `writers`, by `c`; those of them that `isMlp` picks (an MLP's output layer)
// by c * `mlpGain`. Throws std::logic_error unless exactly `expected` keys matched: the layout
// changed.
void scaleStreamWriters(WeightMap& w, const std::string& writers,
                        const std::function<bool(const std::string&)>& isMlp, double c,
                        double mlpGain, int expected);

// A fresh temporary directory, removed by the caller's TearDown if it wants.
std::string tempDir(const std::string& tag);

// A test with a folder of its own, m_dir (fresh, named after the test suite), removed after it.
class TempDirTest : public ::testing::Test {
protected:
    void SetUp() override {
        m_dir = tempDir(::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name());
    }
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(m_dir, ec);
    }
    std::string path(const std::string& name) const { return m_dir + "/" + name; }

    std::string m_dir;
};

// Runs `fn`, expecting a FileError whose message names `file` and contains `needle`.
template <typename Fn>
void expectFileError(Fn fn, const std::string& file, const std::string& needle) {
    try {
        fn();
        ADD_FAILURE() << "no error; expected '" << needle << "'";
    } catch (const FileError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(file), std::string::npos) << what;
        EXPECT_NE(what.find(needle), std::string::npos)
            << "expected '" << needle << "' in: " << what;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not a FileError: " << e.what();
    }
}

// The message of the E that `fn` throws, "no error" when it returns. Another exception is a
// failure (its message is returned).
template <typename E = std::exception, typename Fn>
std::string messageOf(Fn fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        if (!dynamic_cast<const E*>(&e))
            ADD_FAILURE() << "not the expected kind of error: " << e.what();
        return e.what();
    }
    return "no error";
}

// `haystack` (a std::string or a char*) holds `needle`; a failure prints the haystack.
#define EXPECT_HAS(haystack, needle) \
    EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

// Names a parameterised test's instances by their case's `label`, as in
// INSTANTIATE_TEST_SUITE_P(Flux, FamilyGolden, ::testing::Values(goldenFlux()), test::CaseLabel()):
// "Flux/FamilyGolden.MatchesTheReference/golden".
struct CaseLabel {
    template <class Case>
    std::string operator()(const ::testing::TestParamInfo<Case>& info) const {
        return info.param.label;
    }
};

// INSTANTIATE_TEST_SUITE_P of the cases `...`, named by their labels.
#define HS_CASES(Prefix, Suite, ...) \
    INSTANTIATE_TEST_SUITE_P(Prefix, Suite, ::testing::Values(__VA_ARGS__), ::hs::test::CaseLabel())

// Prints a parameterised test's case by its label, as gtest shows its GetParam().
template <class Case>
auto operator<<(std::ostream& os, const Case& c) -> decltype((void)c.label, os) {
    return os << c.label;
}

// Runs halfscope-cli with `args` (shell syntax) and returns what it printed; `status` gets its
// exit status. stderr is merged into the output unless `stdoutOnly`.
std::string runCli(const std::string& args, int& status, bool stdoutOnly = false);

}  // namespace hs::test
