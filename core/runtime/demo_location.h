#pragma once
// Where the data shipped with Halfscope is (the embedded demo model, the bundled tokenizers), so
// the studio and the CLI need no path on first launch.
#include <string>

namespace hs {

// First existing of: $HALFSCOPE_DEMO_MODEL; <executable>/../share/halfscope/demo-model
// (installed; from <prefix>\bin\halfscope.exe on Windows); the source tree's resources/demo-model
// (run from the build tree). Empty when none holds a model_index.json.
std::string findDemoModel();

// A bundled tokenizer folder ("clip-l"): <prefix>/share/halfscope/tokenizers/<name> installed,
// else the source tree's resources/tokenizers/<name>. Empty when neither exists.
std::string findBundledTokenizer(const std::string& name);

}  // namespace hs
