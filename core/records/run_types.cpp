#include "records/run_types.h"

#include "base/enum_names.h"

namespace hs {

namespace {
constexpr EnumName<Role> kRoleNames[] = {
    {Role::TextEncoder, "text_encoder"}, {Role::TextEncoder2, "text_encoder_2"},
    {Role::Denoiser, "denoiser"},        {Role::Vae, "vae"},
    {Role::Adapter, "adapter"},          {Role::Other, "other"}};
}  // namespace

std::string roleName(Role r) {
    return nameIn(kRoleNames, r, "other");
}

std::optional<Role> parseRole(const std::string& text) {
    return valueNamed(kRoleNames, text);
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
