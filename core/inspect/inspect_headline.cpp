#include "inspect/inspect_headline.h"

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

}  // namespace hs
