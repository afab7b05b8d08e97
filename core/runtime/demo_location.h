#pragma once
// Where the embedded demo model is, so the studio and the CLI need no path on first launch.
#include <string>

namespace hs {

// First existing of: $HALFSCOPE_DEMO_MODEL; <executable>/../share/halfscope/demo-model
// (installed); the source tree's resources/demo-model (run from the build tree).
// Empty when none holds a model_index.json.
std::string findDemoModel();

}  // namespace hs
