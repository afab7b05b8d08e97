// ComfyUI's extra_model_paths.yaml read with libyaml as ComfyUI reads it: sections, base_path,
// folders in any YAML spelling, `~` and `$VAR` expansion, aliases; errors naming the line for
// what ComfyUI does not read and for hostile files (deep nesting, 2 MB, too many folders).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "library/model_paths_yaml.h"

namespace hs {
namespace {

const char* const kFile = "/c/extra_model_paths.yaml";

std::string errorOf(const std::string& text, const std::string& file = kFile) {
    try {
        parseModelPathsYaml(text, file);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

using Folders = std::vector<std::string>;

// A yaml text that is refused, and what the error says (it names the line).
struct RefusedYaml {
    std::string yaml;
    std::string says;
};

void expectRefused(const std::vector<RefusedYaml>& cases) {
    for (const auto& c : cases) {
        const std::string error = errorOf(c.yaml);
        EXPECT_NE(error.find(c.says), std::string::npos) << "the yaml:\n"
                                                         << c.yaml << "\nits error: " << error;
    }
}

// Sets (or unsets, with nullptr) an environment variable for a scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : m_name(name) {
        if (const char* old = std::getenv(name)) m_old = old;
        set(value);
    }
    ~ScopedEnv() { set(m_old ? m_old->c_str() : nullptr); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    void set(const char* value) {
#ifdef _WIN32
        _putenv_s(m_name.c_str(), value ? value : "");
#else
        if (value)
            ::setenv(m_name.c_str(), value, 1);
        else
            ::unsetenv(m_name.c_str());
#endif
    }
    std::string m_name;
    std::optional<std::string> m_old;
};

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
        "    /abs/unet   \n"
        "  clip: \"models/my clip\"   # a comment\n"
        "other:\n"
        "  vae: ~/vaes\n",
        kFile);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].name, "a111");
    EXPECT_EQ(s[0].basePath, "/sd/webui/");
    EXPECT_EQ(s[0].kinds.at("checkpoints"), Folders{"/sd/webui/models/Stable-diffusion"});
    EXPECT_EQ(s[1].basePath, "/shared");
    EXPECT_EQ(s[1].kinds.at("diffusion_models"),
              (Folders{"/shared/models/diffusion_models", "/abs/unet"}));
    EXPECT_EQ(s[1].kinds.at("clip"), Folders{"/shared/models/my clip"});
    EXPECT_EQ(s[1].kinds.count("is_default"), 0u);
    EXPECT_EQ(s[2].basePath, "");
    const char* home = std::getenv("HOME");
    if (home) {
        EXPECT_EQ(s[2].kinds.at("vae")[0], std::string(home) + "/vaes");
    }
}

// The old hand-written reader refused these; they are plain YAML that ComfyUI reads.
TEST(ModelPathsYaml, FlowStyleBlockListsAndFoldedBlocksAreRead) {
    const auto s = parseModelPathsYaml(
        "---\n"  // a leading document marker: one document
        "a: {base_path: /m, vae: v}\n"
        "b:\n"
        "  vae:\n"
        "    - x\n"
        "    -\n"
        "    - y\n"
        "  clip: >\n"
        "    c\n",
        kFile);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].basePath, "/m");
    EXPECT_EQ(s[0].kinds.at("vae"), Folders{"/m/v"});
    // Without base_path, relative folders are relative to the yaml file's folder.
    EXPECT_EQ(s[1].kinds.at("vae"), (Folders{"/c/x", "/c/y"}));
    EXPECT_EQ(s[1].kinds.at("clip"), Folders{"/c/c"});
}

TEST(ModelPathsYaml, HashInsideQuotesAndInsideBlocksIsPartOfTheFolder) {
    const auto s = parseModelPathsYaml(
        "a:\n"
        "  base_path: /m\n"
        "  vae: \"v#1 # not a comment\"  # a comment\n"
        "  clip: 'c #2'\n"
        "  loras: l#3\n"  // no space before '#': not a comment
        "  unet: |\n"
        "    u # in a block\n",
        kFile);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].kinds.at("vae"), Folders{"/m/v#1 # not a comment"});
    EXPECT_EQ(s[0].kinds.at("clip"), Folders{"/m/c #2"});
    EXPECT_EQ(s[0].kinds.at("loras"), Folders{"/m/l#3"});
    EXPECT_EQ(s[0].kinds.at("unet"), Folders{"/m/u # in a block"});
}

TEST(ModelPathsYaml, AFlowSequenceIsAListOfFolders) {
    const auto s = parseModelPathsYaml(
        "a:\n"
        "  base_path: /m\n"
        "  loras: [l1, \"/abs/l2\", 'l 3', \"l4\\nl5\"]\n"
        "  vae: []\n",
        kFile);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].kinds.at("loras"), (Folders{"/m/l1", "/abs/l2", "/m/l 3", "/m/l4", "/m/l5"}));
    EXPECT_EQ(s[0].kinds.count("vae"), 0u);  // no folder, no kind
    EXPECT_NE(
        errorOf("a:\n  vae: [x, [y]]\n").find(":2: the list of folders of 'vae' holds a list"),
        std::string::npos);
    EXPECT_NE(errorOf("a:\n  vae: [x, {y: z}]\n").find(":2: "), std::string::npos);
}

TEST(ModelPathsYaml, TabsAfterTheColonAreSeparators) {
    const auto s = parseModelPathsYaml("a:\n  base_path:\t/m\n  vae:\t \tv\t# c\n", kFile);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].basePath, "/m");
    EXPECT_EQ(s[0].kinds.at("vae"), Folders{"/m/v"});
}

TEST(ModelPathsYaml, DoubleQuotedEscapes) {
    const auto s = parseModelPathsYaml(
        "a:\n"
        "  base_path: \"/m\\x41\"\n"
        "  vae: \"v\\tw\\\\x\\u00e9\\\"q\\\"\"\n"
        "  clip: \"one\\ntwo\\n\\n\"\n",
        kFile);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].basePath, "/mA");
    EXPECT_EQ(s[0].kinds.at("vae"), Folders{"/mA/v\tw\\x\xc3\xa9\"q\""});
    EXPECT_EQ(s[0].kinds.at("clip"), (Folders{"/mA/one", "/mA/two"}));
    // A NUL cannot be in a path.
    EXPECT_NE(errorOf("a:\n  vae: \"x\\0y\"\n").find(":2: 'vae': a folder with a NUL character"),
              std::string::npos);
}

TEST(ModelPathsYaml, HomeAndVariablesExpandAsPythonDoes) {
    ScopedEnv home("HOME", "/home/tester");
    ScopedEnv root("HS_YAML_TEST_ROOT", "/env/root");
    ScopedEnv dollar("HS_YAML_TEST_DOLLAR", "$HOME");
    ScopedEnv nope("HS_YAML_TEST_NOPE", nullptr);
    const auto s = parseModelPathsYaml(
        "a:\n"
        "  base_path: $HOME/x\n"
        "  vae: ${HS_YAML_TEST_ROOT}/y\n"
        "  clip: $HS_YAML_TEST_NOPE/z\n"
        "  unet: a$-b/${}/c${HS_YAML_TEST_ROOT\n"
        "  loras: ${HS_YAML_TEST_DOLLAR}/w\n"
        "  embeddings: ~/e\n",
        kFile);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].basePath, "/home/tester/x");
    EXPECT_EQ(s[0].kinds.at("vae"), Folders{"/env/root/y"});  // absolute after expansion
    EXPECT_EQ(s[0].kinds.at("clip"), Folders{"/home/tester/x/$HS_YAML_TEST_NOPE/z"});
    EXPECT_EQ(s[0].kinds.at("unet"), Folders{"/home/tester/x/a$-b/${}/c${HS_YAML_TEST_ROOT"});
    // A value is not expanded again.
    EXPECT_EQ(s[0].kinds.at("loras"), Folders{"/home/tester/x/$HOME/w"});
    EXPECT_EQ(s[0].kinds.at("embeddings"), Folders{"/home/tester/e"});
    // `~` alone is YAML's null, so a base_path of `~` is an error (below); quoted it is home.
    EXPECT_NE(errorOf("a:\n  base_path: ~\n").find(":2: 'base_path' is empty"), std::string::npos);
}

TEST(ModelPathsYaml, HomeAloneQuotedAndDollarDollar) {
    ScopedEnv home("HOME", "/home/tester");
    ScopedEnv root("HS_YAML_TEST_ROOT", "/env/root");
    const auto s = parseModelPathsYaml("b:\n  base_path: '~'\n  vae: $$HS_YAML_TEST_ROOT\n", kFile);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].basePath, "/home/tester");
    EXPECT_EQ(s[0].kinds.at("vae"), Folders{"/home/tester/$/env/root"});
}

TEST(ModelPathsYaml, ARelativeBasePathIsRelativeToTheYamlFilesFolder) {
    const std::string file = "/data/cfg/extra_model_paths.yaml";
    const auto s = parseModelPathsYaml(
        "a:\n  base_path: models\n  vae: v\n"
        "b:\n  base_path: ../up/./x/../y\n  vae: /abs\n"
        "c:\n  vae: ../v\n",
        file);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].basePath, "/data/cfg/models");
    EXPECT_EQ(s[0].kinds.at("vae"), Folders{"/data/cfg/models/v"});
    EXPECT_EQ(s[1].basePath, "/data/up/y");
    EXPECT_EQ(s[1].kinds.at("vae"), Folders{"/abs"});
    EXPECT_EQ(s[2].basePath, "");
    EXPECT_EQ(s[2].kinds.at("vae"), Folders{"/data/v"});
}

TEST(ModelPathsYaml, NullSectionsAreSkippedAndRepeatedKeysReplace) {
    const auto s = parseModelPathsYaml(
        "a:\n"
        "b:\n  vae: x\n  vae: y\n"
        "c: ~\n"
        "b:\n  clip: z\n",
        kFile);
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].name, "b");
    EXPECT_EQ(s[0].kinds.count("vae"), 0u);  // the second `b:` replaced the first
    EXPECT_EQ(s[0].kinds.at("clip"), Folders{"/c/z"});
    EXPECT_EQ(parseModelPathsYaml("a:\n  vae: x\n  vae: y\n", kFile)[0].kinds.at("vae"),
              Folders{"/c/y"});
    EXPECT_TRUE(parseModelPathsYaml("# nothing\n", kFile).empty());
    EXPECT_TRUE(parseModelPathsYaml("~\n", kFile).empty());
}

TEST(ModelPathsYaml, AliasesOfScalarsResolveOthersAreRefusedNamingTheLine) {
    const auto s = parseModelPathsYaml(
        "defaults:\n"
        "  base_path: &root /models\n"
        "  vae: &v vae\n"
        "  is_default: &d {x: [1, 2]}\n"
        "other:\n"
        "  base_path: *root\n"
        "  vae: *v\n"
        "  clip: [*v, c]\n"
        "  is_default: *d\n",
        kFile);
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[1].basePath, "/models");
    EXPECT_EQ(s[1].kinds.at("vae"), Folders{"/models/vae"});
    EXPECT_EQ(s[1].kinds.at("clip"), (Folders{"/models/vae", "/models/c"}));
    EXPECT_EQ(errorOf("a: &sec\n  vae: x\nb: *sec\n"),
              std::string(kFile) +
                  ":3: alias '*sec' names a mapping or list; only aliases of single values are "
                  "read");
    EXPECT_NE(errorOf("a: &sec\n  vae: x\nb:\n  <<: *sec\n").find(":4: merge keys (<<)"),
              std::string::npos);
    EXPECT_NE(errorOf("a:\n  vae: *nope\n").find(":2: alias '*nope' has no anchor"),
              std::string::npos);
    // Aliases cannot multiply a file's text past 1 MB.
    std::string big = "a:\n  is_default: &x '" + std::string(600000, ' ') + "'\n  vae: [*x, *x]\n";
    EXPECT_NE(errorOf(big).find(":3: aliases repeat more than 1 MB"), std::string::npos);
}

TEST(ModelPathsYaml, DeepNestingIsRefusedQuicklyNamingTheLine) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_NE(errorOf(std::string(10000, '[')).find(std::string(kFile) + ":1: the file is a list"),
              std::string::npos);
    // Where the reader skips whatever a value holds (is_default), the depth cap stops it.
    EXPECT_EQ(errorOf("a:\n  is_default: " + std::string(10000, '[') + "\n"),
              std::string(kFile) + ":2: nested deeper than 8 levels");
    EXPECT_EQ(errorOf("a:\n  is_default: " + std::string(10000, '{') + "\n"),
              std::string(kFile) + ":2: nested deeper than 8 levels");
    std::string block = "a:\n  is_default:\n";
    for (int i = 0; i < 50; ++i)
        block += std::string(4 + 2 * i, ' ') + "k" + std::to_string(i) + ":\n";
    EXPECT_EQ(errorOf(block), std::string(kFile) + ":9: nested deeper than 8 levels");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ModelPathsYaml, LargeFilesManyEventsLongFoldersAndManyFoldersAreRefused) {
    const std::string twoMb(2u << 20, '#');
    EXPECT_NE(errorOf(twoMb).find(std::string(kFile) + ": 2097152 bytes, larger than the 1 MB"),
              std::string::npos);
    const auto dir = std::filesystem::temp_directory_path() / "halfscope-model-paths-yaml-test";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "extra_model_paths.yaml").string();
    { std::ofstream(path, std::ios::binary) << twoMb; }
    try {
        readModelPathsYaml(path);
        ADD_FAILURE() << "a 2 MB file was read";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("larger than"), std::string::npos) << e.what();
    }
    { std::ofstream(path, std::ios::binary) << "a:\n  vae: v\n"; }
    const auto read = readModelPathsYaml(path);
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].kinds.at("vae"), Folders{(dir / "v").string()});
    std::filesystem::remove_all(dir);

    std::string events = "a:\n  is_default: [";
    for (int i = 0; i < 100001; ++i) events += "x,";
    events += "]\n";
    EXPECT_EQ(errorOf(events), std::string(kFile) +
                                   ":2: more than 100000 YAML events; an "
                                   "extra_model_paths.yaml is a few dozen lines");

    EXPECT_TRUE(errorOf("a:\n  vae: /" + std::string(4095, 'v') + "\n").empty());
    expectRefused({
        // Joined to the yaml file's folder, "/c/" + 4095 bytes is too long.
        {"a:\n  vae: " + std::string(4095, 'v') + "\n", "...' resolves to more than 4096 bytes"},
        {"a:\n  vae: |\n    ok\n    " + std::string(4097, 'v') + "\n",
         ":4: 'vae': a folder of 4097 bytes"},
        {"a:\n  base_path: " + std::string(5000, 'b') + "\n",
         ":2: 'base_path': a folder of 5000 bytes"},
        {std::string(300, 's') + ":\n  vae: x\n", ":1: a section name of 300"},
    });
    {
        ScopedEnv longVar("HS_YAML_TEST_LONG", std::string(3000, 'l').c_str());
        EXPECT_NE(errorOf("a:\n  vae: $HS_YAML_TEST_LONG/$HS_YAML_TEST_LONG\n")
                      .find(":2: '$HS_YAML_TEST_LONG/$HS_YAML_TEST_LONG' expands to more than "
                            "4096 bytes"),
                  std::string::npos);
    }
    std::string many = "a:\n  vae: |\n";
    for (int i = 0; i < 1000; ++i) many += "    f" + std::to_string(i) + "\n";
    EXPECT_EQ(parseModelPathsYaml(many, kFile)[0].kinds.at("vae").size(), 1000u);
    EXPECT_EQ(errorOf(many + "  clip: one more\n"), std::string(kFile) +
                                                        ":1003: more than 1000 "
                                                        "folders");
}

TEST(ModelPathsYaml, WhatComfyUIDoesNotReadIsAnErrorNamingTheLine) {
    const std::string file = kFile;
    expectRefused({
        // libyaml's own messages, with the line.
        {"a:\n\tvae: x\n", file + ":2: found character that cannot start any token"},
        {"a:\n  vae: x\n    deeper: y\n", ":3: mapping values are not allowed in this context"},
        {"a:\n  vae: [x, y\n", ":3: did not find expected ',' or ']'"},
        {"a:\n  vae: \"x\n", ":3: found unexpected end of stream"},
        {"a:\n  vae: \xff\n", ":2: invalid leading UTF-8 octet (0xFF)"},
        // The shape: sections, each a mapping of kinds, each a folder or folders.
        {"a: 1\n", ":1: top-level 'a' has a value ('1')"},
        {"a:\n  just words\n", ":2: top-level 'a' has a value"},
        {"  vae: x\n", ":1: top-level 'vae' has a value"},
        {"- a\n", ":1: the file is a list"},
        {"just words\n", ":1: the file is the single value 'just words'"},
        {"a:\n  - vae\n", ":2: section 'a' is a list"},
        {"a:\n  vae:\n    x: y\n", ":3: 'vae' holds a mapping"},
        {"a:\n  vae:\n", ":2: 'vae' has no folder"},
        {"a:\n  base_path: [x]\n", ":2: 'base_path' holds a list"},
        {"a:\n  base_path: |\n    x\n    y\n", ":2: 'base_path' holds more"},
        {"a:\n  ? [k]\n  : v\n", ":2: a key is a list"},
        {"a:\n  vae: !custom x\n", ":2: tag '!custom' is not read"},
        {"a:\n  vae: x\n---\nb:\n  vae: y\n", ":3: a second YAML document"},
    });
    EXPECT_TRUE(errorOf("a:\n  vae: !!str x\n  is_default: !!bool true\n").empty());
    EXPECT_EQ(errorOf(""), "");
}

}  // namespace
}  // namespace hs
