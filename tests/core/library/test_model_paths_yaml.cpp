// ComfyUI's extra_model_paths.yaml: the subset read, and specific errors for the rest.
#include <gtest/gtest.h>

#include "library/model_paths_yaml.h"

namespace hs {
namespace {

std::string errorOf(const std::string& text) {
    try {
        parseModelPathsYaml(text, "/c/extra_model_paths.yaml");
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

TEST(ModelPathsYaml, SectionsBasePathsAndBlocksOfFolders) {
    const auto s = parseModelPathsYaml(
        "#config for a1111 ui\n"
        "a111:\n"
        "    base_path: /sd/webui/\n"
        "\n"
        "    checkpoints: models/Stable-diffusion\n"
        "    vae: models/VAE\n"
        "comfyui:\n"
        "  base_path: ../shared\n"
        "  is_default: true\n"
        "  diffusion_models: |\n"
        "    models/diffusion_models\n"
        "\n"
        "    /abs/unet   # a comment\n"
        "  clip: \"models/my clip\"\n"
        "other:\n"
        "  vae: ~/vaes\n",
        "/c/extra_model_paths.yaml");
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].name, "a111");
    EXPECT_EQ(s[0].basePath, "/sd/webui/");
    EXPECT_EQ(s[0].kinds.at("checkpoints"),
              std::vector<std::string>{"/sd/webui/models/Stable-diffusion"});
    EXPECT_EQ(s[1].basePath, "/shared");
    EXPECT_EQ(s[1].kinds.at("diffusion_models"),
              (std::vector<std::string>{"/shared/models/diffusion_models", "/abs/unet"}));
    EXPECT_EQ(s[1].kinds.at("clip"), std::vector<std::string>{"/shared/models/my clip"});
    EXPECT_EQ(s[1].kinds.count("is_default"), 0u);
    const char* home = std::getenv("HOME");
    if (home) EXPECT_EQ(s[2].kinds.at("vae")[0], std::string(home) + "/vaes");
}

TEST(ModelPathsYaml, WhatIsOutsideTheSubsetIsAnErrorNamingTheLine) {
    EXPECT_EQ(errorOf("a:\n\tvae: x\n"),
              "/c/extra_model_paths.yaml:2: a tab in the indentation (YAML indents with spaces)");
    EXPECT_EQ(errorOf("a:\n  vae:\n    - x\n").substr(0, 29), "/c/extra_model_paths.yaml:2: ");
    EXPECT_NE(errorOf("a:\n  vae: x\n    deeper: y\n").find(":3: 'deeper' is indented 4 spaces"),
              std::string::npos);
    EXPECT_NE(errorOf("  vae: x\n").find(":1: 'vae' is indented but belongs to no section"),
              std::string::npos);
    EXPECT_NE(errorOf("a: 1\n").find(":1: top-level 'a' has a value"), std::string::npos);
    EXPECT_NE(errorOf("a:\n  just words\n").find(":2: expected `name:`"), std::string::npos);
    EXPECT_NE(errorOf("a:\n  vae: >\n    x\n").find("folded"), std::string::npos);
    EXPECT_NE(errorOf("a: {vae: x}\n").find(":1:"), std::string::npos);
    EXPECT_EQ(errorOf(""), "");
}

}  // namespace
}  // namespace hs
