#include "reproduce/reproduce.h"

#include <exception>

#include "io/safetensors_header.h"
#include "reproduce/a1111_infotext.h"
#include "reproduce/comfy_trace.h"
#include "reproduce/comfy_workflow.h"
#include "reproduce/png_metadata.h"

namespace hs {

ReproduceSettings reproduceSettingsFrom(const ImageMetadata& m, const std::string& name) {
    // ComfyUI's API graph is what ran; its UI graph the same, less directly.
    const char* chunk = m.prompt ? "prompt" : m.workflow ? "workflow" : "parameters";
    try {
        if (m.prompt || m.workflow) {
            const ComfyGraph g =
                m.prompt ? ComfyGraph::fromApiJson(*m.prompt) : comfyGraphFromWorkflow(*m.workflow);
            ReproduceSettings s = traceComfyGraph(g);
            s.chunk = chunk;
            return s;
        }
        if (m.parameters) return settingsFromInfotext(parseInfotext(*m.parameters));
    } catch (const std::exception& e) {  // nlohmann's errors are not runtime_errors
        if (dynamic_cast<const FileError*>(&e)) throw;
        throw FileError(name,
                        std::string("its '") + chunk + "' text chunk (" +
                            (m.parameters && !m.prompt && !m.workflow ? "A1111 / Forge infotext"
                             : m.prompt                               ? "ComfyUI API graph"
                                                                      : "ComfyUI workflow") +
                            ") does not read: " + e.what());
    }
    throw FileError(name,
                    "no metadata on how the image was made: none of the PNG text chunks "
                    "'prompt', 'workflow' (ComfyUI) or 'parameters' (A1111 / Forge)");
}

ReproduceSettings readReproduceSettings(const std::string& imagePath) {
    return reproduceSettingsFrom(readImageMetadata(imagePath), imagePath);
}

}  // namespace hs
