#include "models/opened_component.h"

#include <filesystem>

#include "io/model_folder.h"
#include "models/single_file.h"

namespace hs {

OpenedComponent openFolderComponent(const std::string& dir) {
    ComponentFolder f = openComponent(dir);
    return {f.className, "", ComponentSource{f.dir, f.config, weightMapOf(f.weights)}};
}

OpenedComponent openComponentAt(const std::string& path, const std::string& part,
                                std::string* slot) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        if (slot) slot->clear();
        return openFolderComponent(path);
    }
    const SingleFileContents contents = readSingleFile(path);
    std::string held;
    for (const auto& c : contents.components) {
        if (part.empty() ? contents.components.size() == 1 : c.slot == part) {
            if (slot) *slot = c.slot;
            return {c.className, c.description, sourceOf(c, path)};
        }
        held += (held.empty() ? "" : ", ") + c.slot + " (" + c.className + ")";
    }
    throw WeightError(path + ": " +
                      (part.empty() ? "holds several parts: " + held + "; say which one"
                                    : "holds no '" + part + "' part (it holds " + held + ")"));
}

}  // namespace hs
