#include "pipeline/opened_component.h"

#include "io/model_folder.h"

namespace hs {

OpenedComponent openFolderComponent(const std::string& dir) {
    ComponentFolder f = openComponent(dir);
    return {f.className, "", ComponentSource{f.dir, f.config, weightMapOf(f.weights)}};
}

}  // namespace hs
