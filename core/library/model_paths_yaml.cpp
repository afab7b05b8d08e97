#include "library/model_paths_yaml.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "io/bounded_read.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxYamlBytes = 1ull << 20;
constexpr size_t kMaxYamlLines = 20000;

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \r");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \r");
    return s.substr(b, e - b + 1);
}

// A comment starts at '#' at the line's start or after a space (a '#' inside a path stays).
std::string stripComment(const std::string& s) {
    for (size_t i = 0; i < s.size(); ++i)
        if (s[i] == '#' && (i == 0 || s[i - 1] == ' ')) return s.substr(0, i);
    return s;
}

size_t indentOf(const std::string& s) {
    size_t n = 0;
    while (n < s.size() && s[n] == ' ') ++n;
    return n;
}

std::string unquote(const std::string& v) {
    if (v.size() >= 2 &&
        ((v.front() == '"' && v.back() == '"') || (v.front() == '\'' && v.back() == '\'')))
        return v.substr(1, v.size() - 2);
    return v;
}

std::string expandHome(const std::string& p) {
    if (p == "~" || p.rfind("~/", 0) == 0) {
        const char* home = std::getenv("HOME");
        if (home && *home) return std::string(home) + p.substr(1);
    }
    return p;
}

std::string resolve(const std::string& p, const std::string& base) {
    fs::path path(expandHome(p));
    if (path.is_relative() && !base.empty()) path = fs::path(base) / path;
    return path.lexically_normal().string();
}

}  // namespace

std::vector<ModelPathSection> parseModelPathsYaml(const std::string& text,
                                                  const std::string& file) {
    std::vector<ModelPathSection> sections;
    const std::string yamlDir = fs::path(file).parent_path().string();
    // Raw values first; folders are resolved once the section's base_path is known (it may come
    // after the kinds).
    std::vector<std::map<std::string, std::vector<std::string>>> raw;
    std::istringstream in(text);
    std::string line;
    size_t lineNo = 0;
    std::string blockKind;   // the kind whose `|` block is being read
    size_t keyIndent = 0;    // the section's key indentation
    size_t blockIndent = 0;  // the block's line indentation (0 until its first line)
    auto fail = [&](const std::string& what) {
        throw std::runtime_error(file + ":" + std::to_string(lineNo) + ": " + what);
    };
    while (std::getline(in, line)) {
        if (++lineNo > kMaxYamlLines) fail("more than 20000 lines");
        const auto firstText = line.find_first_not_of(" \t");
        if (firstText != std::string::npos &&
            line.substr(0, firstText).find('\t') != std::string::npos)
            fail("a tab in the indentation (YAML indents with spaces)");
        const std::string content = trim(stripComment(line));
        const size_t indent = indentOf(line);
        if (!blockKind.empty()) {
            if (content.empty()) continue;
            if (indent > keyIndent && (blockIndent == 0 || indent >= blockIndent)) {
                if (blockIndent == 0) blockIndent = indent;
                raw.back()[blockKind].push_back(unquote(content));
                continue;
            }
            blockKind.clear();
        }
        if (content.empty() || content == "---") continue;
        if (content.front() == '{' || content.front() == '[' || content.front() == '&' ||
            content.front() == '*' || content.front() == '-')
            fail("'" + content.substr(0, 20) +
                 "': only sections of `kind: folder` lines are read (no lists, flow style or "
                 "anchors)");
        const auto colon = content.find(':');
        if (colon == std::string::npos || colon == 0)
            fail("expected `name:` or `kind: folder`, got '" + content.substr(0, 40) + "'");
        const std::string key = trim(content.substr(0, colon));
        const std::string value = trim(content.substr(colon + 1));
        if (indent == 0) {
            if (!value.empty())
                fail("top-level '" + key +
                     "' has a value; a section (name, then indented "
                     "`kind: folder` lines) is expected");
            sections.push_back({key, "", {}});
            raw.emplace_back();
            keyIndent = 0;
            continue;
        }
        if (sections.empty()) fail("'" + key + "' is indented but belongs to no section");
        if (keyIndent == 0) keyIndent = indent;
        if (indent != keyIndent)
            fail("'" + key + "' is indented " + std::to_string(indent) + " spaces, its section's " +
                 "keys " + std::to_string(keyIndent) + " (nested maps are not read)");
        if (value == "|" || value == "|-" || value == "|+" || value == ">") {
            if (value == ">") fail("'" + key + "': folded (>) blocks are not read; use |");
            blockKind = key;
            blockIndent = 0;
            raw.back()[key];
            continue;
        }
        if (value.empty()) fail("'" + key + "' has no folder");
        const std::string v = unquote(value);
        if (key == "base_path")
            sections.back().basePath = v;
        else
            raw.back()[key].push_back(v);
    }
    for (size_t i = 0; i < sections.size(); ++i) {
        ModelPathSection& s = sections[i];
        if (!s.basePath.empty()) s.basePath = resolve(s.basePath, yamlDir);
        const std::string base = s.basePath.empty() ? yamlDir : s.basePath;
        for (const auto& [kind, folders] : raw[i]) {
            if (kind == "is_default") continue;  // a flag, not a folder
            for (const auto& f : folders) s.kinds[kind].push_back(resolve(f, base));
        }
    }
    return sections;
}

std::vector<ModelPathSection> readModelPathsYaml(const std::string& path) {
    return parseModelPathsYaml(readBoundedFile(path, kMaxYamlBytes, "extra_model_paths.yaml"),
                               path);
}

}  // namespace hs
