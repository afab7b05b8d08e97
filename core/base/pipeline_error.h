#pragma once
#include <stdexcept>

namespace hs {

// A pipeline that cannot be loaded or a run it cannot do (missing component, parts that do not
// fit together, settings out of range), in one plain sentence.
class PipelineError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace hs
