#include "inspect/inspect_headline.h"

#include <torch/torch.h>

#include "io/scaled_fp8.h"
#include "models/single_file_support.h"

namespace hs {

std::string singleFileHeadline(const SingleFileContents& f, const WeightMap& all) {
    for (const auto& layout : singleFileLayouts()) {
        const std::string line = layout.headline ? layout.headline(f, all) : "";
        if (!line.empty()) return line;
    }
    std::string s;
    for (const auto& c : f.components)
        s += (s.empty() ? "" : ", ") + c.className + " " +
             parameterCountText(parameterCountOf(c.weights));
    return s.empty() ? s : s + "; " + weightsDtypeText(all);
}

WeightMap layoutTensorsOf(const std::vector<StTensorInfo>& tensors) {
    const bool scaled = hasScaledFp8Marker(tensors);
    WeightMap all;
    for (const auto& t : tensors) {
        if (isScaledFp8Bookkeeping(t.name, scaled)) continue;
        const auto type = scalarTypeOf(t.dtype).value_or(torch::kFloat32);  // none: float8
        all.emplace(t.name, torch::empty(t.shape, torch::TensorOptions()
                                                      .device(torch::kMeta)
                                                      .dtype(type)));
    }
    return all;
}

}  // namespace hs
