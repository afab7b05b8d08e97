#pragma once
// A component as it is loaded: read from a diffusers / transformers folder, or converted from a
// single-file checkpoint into the key names and config its family reads.
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

// A component folder, or one part of a single .safetensors file: `part` names its slot
// ("transformer", "vae" ...), empty for a file that holds one. `slot` gets the part's slot (""
// for a folder). Throws FileError / WeightError naming the file, and for a file holding several
// parts without `part`, or not `part`, says which it holds.
OpenedComponent openComponentAt(const std::string& path, const std::string& part = "",
                                std::string* slot = nullptr);

}  // namespace hs
