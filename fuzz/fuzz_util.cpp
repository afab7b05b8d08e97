#include "fuzz_util.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace hs::fuzz {

namespace fs = std::filesystem;

const std::string& scratchDir() {
    static const std::string dir = [] {
        std::string tmpl = (fs::temp_directory_path() / "halfscope-fuzz-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        return tmpl;
    }();
    static const bool cleanup = [] {
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(scratchDir(), ec);
        });
        return true;
    }();
    (void)cleanup;
    return dir;
}

const std::string& writeFiles(const std::vector<std::pair<std::string, std::string_view>>& files) {
    const std::string& dir = scratchDir();
    for (const auto& e : fs::directory_iterator(dir)) fs::remove_all(e.path());
    for (const auto& [name, bytes] : files) {
        std::ofstream out(fs::path(dir) / name, std::ios::binary);
        out.write(bytes.data(), std::streamsize(bytes.size()));
    }
    return dir;
}

std::vector<std::string_view> splitParts(std::string_view data, std::string_view sep,
                                         size_t maxParts) {
    std::vector<std::string_view> parts;
    while (parts.size() + 1 < maxParts) {
        const size_t at = data.find(sep);
        if (at == std::string_view::npos) break;
        parts.push_back(data.substr(0, at));
        data.remove_prefix(at + sep.size());
    }
    parts.push_back(data);
    return parts;
}

std::string sourcePath(const std::string& rel) {
    const char* env = std::getenv("HALFSCOPE_FUZZ_SOURCE_DIR");
    return std::string(env && *env ? env : HALFSCOPE_FUZZ_SOURCE_DIR) + "/" + rel;
}

}  // namespace hs::fuzz

namespace hs::fuzz {

void escapedException(const std::exception& e) {
    static const bool strict = [] {
        const char* s = std::getenv("HALFSCOPE_FUZZ_STRICT");
        return s && std::string(s) == "1";
    }();
    if (strict) {
        std::fprintf(stderr, "escaped exception: %s\n", e.what());
        std::abort();
    }
}

}  // namespace hs::fuzz
