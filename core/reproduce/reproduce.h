#pragma once
// Reading how an image was made: its PNG text chunks, as ComfyUI's graph (the API graph, else
// the UI workflow) or an A1111 / Forge infotext.
#include <string>

#include "reproduce/png_metadata.h"
#include "reproduce/reproduce_settings.h"

namespace hs {

// Throws FileError naming the image: not a PNG, no metadata Halfscope reads, or metadata that
// does not read (with the reason: a cycle, a missing node, a cap).
ReproduceSettings readReproduceSettings(const std::string& imagePath);

// The same from the chunks' texts (what readReproduceSettings does after reading them); `name`
// is used in messages.
ReproduceSettings reproduceSettingsFrom(const ImageMetadata& m, const std::string& name);

}  // namespace hs
