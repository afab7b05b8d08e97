#pragma once
// A component as the pipeline loads it: read from a diffusers / transformers folder, or
// converted from a single-file checkpoint into the key names and config its family reads.
#include <string>

#include "models/registry.h"

namespace hs {

struct OpenedComponent {
    std::string className;    // the family's class: "FluxTransformer2DModel", "T5EncoderModel"
    std::string description;  // what was detected in a single file ("" for a folder)
    ComponentSource source;   // source.dir: the folder or file, for messages
};

// The component folder `dir` (config.json + weights). Throws FileError.
OpenedComponent openFolderComponent(const std::string& dir);

}  // namespace hs
