#pragma once
// Shared helpers for the engine tests.
#include <torch/torch.h>

#include <string>

namespace hs::test {

inline std::string dataPath(const std::string& rel) {
    return std::string(HALFSCOPE_TEST_DATA) + "/" + rel;
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
