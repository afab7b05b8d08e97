// Stand-ins for the numerics of loading weights into a module (numerics/format.cpp,
// precision_policy.cpp, precision_plan.cpp), which weights.cpp references and fuzz_single_file
// never reaches: detection and conversion only rename, reshape and split tensors. Without them
// the target would pull in the whole numerics layer (and clang 14 rejects format.cpp's
// __builtin_cpu_supports("f16c")). Reaching any of them is a bug in the target: abort.
#include <cstdlib>

#include "numerics/format.h"
#include "records/precision_plan.h"
#include "numerics/precision_policy.h"

namespace hs {

torch::ScalarType scalarTypeOf(Format) {
    std::abort();
}

torch::Tensor roundTo(const torch::Tensor&, Format) {
    std::abort();
}

bool globMatch(const std::string&, const std::string&) {
    std::abort();
}

torch::ScalarType PrecisionPolicy::computeTypeFor(const std::string&) const {
    std::abort();
}

const PrecisionPolicy::PathInfo& PrecisionPolicy::info(const std::string&) const {
    std::abort();
}

}  // namespace hs
