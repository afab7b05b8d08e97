#include "io/bounded_read.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/platform_file.h"
#include "io/safetensors_header.h"  // FileError

namespace hs {

namespace {

std::string mib(uint64_t bytes) {
    return std::to_string((bytes + (1u << 19)) >> 20) + " MB";
}

}  // namespace

std::string fileKindOf(unsigned mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a pipe (FIFO)";
    if (S_ISCHR(mode)) return "a device";
#ifndef _WIN32  // Windows' st_mode has no block devices or sockets
    if (S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
#endif
    return "not a regular file";
}

std::string readBoundedFile(const std::string& path, uint64_t maxBytes, const char* what) {
    // Not blocked by a FIFO without a writer (platform::openForRead).
    std::string error;
    const platform::NativeFile fd = platform::openForRead(path, error);
    if (fd == platform::kNoFile) throw FileError(path, "cannot open: " + error);
    struct Closer {
        platform::NativeFile fd;
        ~Closer() { platform::closeFile(fd); }
    } closer{fd};
    platform::FileStatus st;
    if (!platform::fileStatus(fd, st, error)) throw FileError(path, "cannot stat: " + error);
    if (!st.regular)
        throw FileError(path, std::string(what) + " is " + st.kind + ", expected a regular file");
    if (st.size > maxBytes)
        throw FileError(path, std::string(what) + " is " + mib(st.size) + ", larger than the " +
                                  mib(maxBytes) + " accepted");
    std::string out;
    out.resize(size_t(st.size));
    size_t got = 0;
    while (got < out.size()) {
        const int64_t n = platform::readSome(fd, out.data() + got, out.size() - got, error);
        if (n < 0) throw FileError(path, "cannot read: " + error);
        if (n == 0) break;  // shrank while reading: take what is there, the parser judges it
        got += size_t(n);
    }
    out.resize(got);
    // A file that grew while reading is read up to its size at open: still within the cap.
    return out;
}

std::string boundedJsonError(const nlohmann::json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: ... last read: '...'"
    // quotes the whole token it stopped in, which can be a 100 MB string.
    std::string s = e.what();
    constexpr size_t kMax = 240;
    if (s.size() > kMax)
        s = s.substr(0, kMax) + "... (" + std::to_string(s.size()) + " characters)";
    return s;
}

void checkJsonDepth(const std::string& text, int maxDepth) {
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;  // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                throw std::runtime_error("JSON nested deeper than " + std::to_string(maxDepth) +
                                         " levels at byte " + std::to_string(i));
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;  // unbalanced closers are the parser's to report
        }
    }
}

nlohmann::json readBoundedJson(const std::string& path, uint64_t maxBytes, const char* what,
                               int maxDepth) {
    const std::string text = readBoundedFile(path, maxBytes, what);
    try {
        checkJsonDepth(text, maxDepth);
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
        throw FileError(path, "invalid JSON: " + boundedJsonError(e));
    } catch (const std::runtime_error& e) {
        throw FileError(path, std::string("invalid JSON: ") + e.what());
    }
}

namespace {

std::string cut(std::string s, size_t maxChars) {
    if (s.size() <= maxChars) return s;
    size_t n = maxChars;
    while (n > 0 && (uint8_t(s[n]) & 0xC0) == 0x80) --n;  // not inside a UTF-8 character
    return s.substr(0, n) + "...";
}

std::string quoteScalar(const nlohmann::json& v, size_t maxChars) {
    if (v.is_string()) {
        const auto& str = v.get_ref<const std::string&>();
        // Quote a prefix only: dump() of a 100 MB string would copy it all first.
        const std::string head =
            nlohmann::json(str.substr(0, maxChars + 4))
                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return cut(head, maxChars);
    }
    return cut(v.dump(), maxChars);  // a number, a boolean, null: short
}

}  // namespace

std::string quoteJsonValue(const nlohmann::json& v, size_t maxChars) {
    if (v.is_object())
        return v.empty() ? "an empty object"
                         : "an object with " + std::to_string(v.size()) +
                               (v.size() == 1 ? " key" : " keys");
    if (!v.is_array()) return quoteScalar(v, maxChars);
    for (const auto& e : v)
        if (e.is_structured())
            return "a list of " + std::to_string(v.size()) + (v.size() == 1 ? " item" : " items");
    std::string s = "[";
    for (const auto& e : v) {
        if (s.size() > 1) s += ", ";
        s += quoteScalar(e, maxChars);
        if (s.size() > maxChars)
            return cut(s, maxChars) + " (" + std::to_string(v.size()) + " items)";
    }
    return s + "]";
}

}  // namespace hs
