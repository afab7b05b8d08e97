#include "models/roles.h"

#include "base/pipeline_error.h"

namespace hs {

Component* componentIn(const ComponentMap& components, const std::string& slot,
                       const std::function<bool(Component*)>& isKind, const std::string& what) {
    const auto it = components.find(slot);
    if (it == components.end() || !it->second) return nullptr;
    if (!isKind(it->second.get()))
        throw PipelineError("the '" + slot + "' component is not " + what);
    return it->second.get();
}

TextEncoderComponent* textEncoderIn(const ComponentMap& components, const std::string& slot) {
    return componentOfKindIn<TextEncoderComponent>(components, slot, "a text encoder");
}

VaeComponent* vaeIn(const ComponentMap& components, const std::string& slot) {
    return componentOfKindIn<VaeComponent>(components, slot, "a VAE");
}

}  // namespace hs
