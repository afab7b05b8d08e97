#include "records/run_types.h"

namespace hs {

std::string roleName(Role r) {
    switch (r) {
        case Role::TextEncoder:
            return "text_encoder";
        case Role::TextEncoder2:
            return "text_encoder_2";
        case Role::Denoiser:
            return "denoiser";
        case Role::Vae:
            return "vae";
        case Role::Adapter:
            return "adapter";
        case Role::Other:
            return "other";
    }
    return "other";
}

std::optional<Role> parseRole(const std::string& text) {
    for (Role r : {Role::TextEncoder, Role::TextEncoder2, Role::Denoiser, Role::Vae, Role::Adapter,
                   Role::Other})
        if (text == roleName(r)) return r;
    return std::nullopt;
}

Role legacyRoleOf(const std::string& name) {
    if (name == "vae") return Role::Vae;
    if (name == "text_encoder") return Role::TextEncoder;
    if (name == "text_encoder_2") return Role::TextEncoder2;
    return Role::Denoiser;
}

const ComponentInfo* componentWithRole(const std::vector<ComponentInfo>& components, Role r) {
    for (const auto& c : components)
        if (c.role == r) return &c;
    return nullptr;
}

Role roleOf(const std::vector<ComponentInfo>& components, const std::string& name) {
    for (const auto& c : components)
        if (c.name == name) return c.role;
    return Role::Other;
}

}  // namespace hs
