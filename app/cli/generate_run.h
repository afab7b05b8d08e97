#pragma once
// One text-to-image run as `generate` makes it, shared with `reproduce`: load the model, fill
// what the options left to the model, run with progress on stderr, write the PNG, print the
// summary (or --json), and --report / advice.
#include <functional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "denoising/strategy.h"
#include "records/run_types.h"

namespace hs::cli {

// Called once the model is loaded, with its defaults: completes `cfg` and returns notes for the
// run's record (what ran otherwise than asked).
using AfterLoad = std::function<std::vector<std::string>(const RunDefaults&, RunConfig&)>;

// Returns the exit status (exitStatusOf the record). Throws what loading and running throw;
// Cancelled on Ctrl-C, with no PNG written.
int generateImage(const Args& args, RunConfig cfg, const std::string& out,
                  const AfterLoad& afterLoad);

}  // namespace hs::cli
