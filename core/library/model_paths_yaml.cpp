#include "library/model_paths_yaml.h"

#include <yaml.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#ifndef _WIN32
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#endif

#include "io/bounded_read.h"

namespace hs {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxYamlBytes = 1ull << 20;
constexpr size_t kMaxEvents = 100000;
// Sections, their keys and a kind's list are three levels; the rest of the budget is for an
// `is_default` value, which is skipped whatever it holds.
constexpr int kMaxDepth = 8;
constexpr size_t kMaxPathBytes = 4096;
constexpr size_t kMaxFolders = 1000;
constexpr size_t kMaxNameBytes = 256;
// Aliases re-read their anchor's text: without a cap, 100,000 aliases of a 1 MB scalar would
// be 100 GB of work from a 1 MB file.
constexpr size_t kMaxAliasBytes = 1u << 20;

#ifdef _WIN32
constexpr const char* kSeparators = "/\\";
#else
constexpr const char* kSeparators = "/";
#endif

// A value as a message may quote it: short, one line, not cut inside a UTF-8 character.
std::string quote(const std::string& s, size_t maxChars = 40) {
    size_t n = std::min(s.size(), maxChars);
    while (n > 0 && n < s.size() && (uint8_t(s[n]) & 0xC0) == 0x80) --n;
    std::string out = "'";
    for (size_t i = 0; i < n; ++i) {
        if (s[i] == '\n')
            out += "\\n";
        else if (uint8_t(s[i]) < 0x20)
            out += '?';
        else
            out += s[i];
    }
    return out + (n < s.size() ? "...'" : "'");
}

std::string strip(const std::string& s) {
    const char* ws = " \t\r\n\v\f";
    const auto b = s.find_first_not_of(ws);
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

#ifndef _WIN32
// getpwnam/getpwuid share a static buffer; the library scan may run on a worker thread.
bool passwdHome(const char* name, std::string& home) {
    long size = sysconf(_SC_GETPW_R_SIZE_MAX);
    std::string buf(size_t(size > 0 ? size : 16384), '\0');
    for (;;) {
        passwd pw{};
        passwd* found = nullptr;
        const int rc = name ? getpwnam_r(name, &pw, buf.data(), buf.size(), &found)
                            : getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &found);
        if (rc == ERANGE && buf.size() < (1u << 20)) {
            buf.resize(buf.size() * 2);
            continue;
        }
        if (rc != 0 || !found || !pw.pw_dir) return false;
        home = pw.pw_dir;
        return true;
    }
}
#endif

// Python's os.path.expanduser: `~` or `~/...` is the home folder (POSIX: $HOME even when empty,
// else the password database; Windows: USERPROFILE, else HOMEDRIVE+HOMEPATH), `~name/...` that
// user's home (POSIX only); anything else, or a home that cannot be found, stays as written.
std::string expandUser(const std::string& p) {
    if (p.empty() || p[0] != '~') return p;
    size_t i = p.find_first_of(kSeparators, 1);
    if (i == std::string::npos) i = p.size();
    std::string home;
    if (i == 1) {
#ifdef _WIN32
        if (const char* profile = std::getenv("USERPROFILE")) {
            home = profile;
        } else if (const char* path = std::getenv("HOMEPATH")) {
            const char* drive = std::getenv("HOMEDRIVE");
            home = std::string(drive ? drive : "") + path;
        } else {
            return p;
        }
#else
        if (const char* env = std::getenv("HOME"))
            home = env;
        else if (!passwdHome(nullptr, home))
            return p;
#endif
    } else {
#ifdef _WIN32
        return p;
#else
        if (!passwdHome(p.substr(1, i - 1).c_str(), home)) return p;
#endif
    }
    while (!home.empty() && std::string(kSeparators).find(home.back()) != std::string::npos)
        home.pop_back();
    const std::string out = home + p.substr(i);
    return out.empty() ? "/" : out;
}

bool isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Python's posixpath.expandvars: `$name` (ASCII letters, digits, `_`) and `${anything}` are
// replaced by the environment variable's value; an unset variable, `${}`, a `${` without `}`
// and a `$` before any other character stay as written. Substituted values are not expanded
// again. Returns false (out unspecified) once the result passes `maxBytes`.
bool expandVars(const std::string& p, size_t maxBytes, std::string& out) {
    out.clear();
    size_t i = 0;
    while (i < p.size()) {
        const size_t d = p.find('$', i);
        if (d == std::string::npos) {
            out.append(p, i, std::string::npos);
            break;
        }
        out.append(p, i, d - i);
        std::string name;
        size_t end = std::string::npos;
        if (d + 1 < p.size() && isNameChar(p[d + 1])) {
            end = d + 1;
            while (end < p.size() && isNameChar(p[end])) ++end;
            name = p.substr(d + 1, end - d - 1);
        } else if (d + 1 < p.size() && p[d + 1] == '{') {
            const size_t close = p.find('}', d + 2);
            if (close != std::string::npos) {
                name = p.substr(d + 2, close - d - 2);
                end = close + 1;
            }
        }
        if (end == std::string::npos) {
            out += '$';
            i = d + 1;
        } else {
            const char* value = name.empty() || name.find('\0') != std::string::npos
                                    ? nullptr
                                    : std::getenv(name.c_str());
            if (value)
                out += value;
            else
                out.append(p, d, end - d);
            i = end;
        }
        if (out.size() > maxBytes) return false;
    }
    return out.size() <= maxBytes;
}

// A scalar as the reader uses it: its text, whether YAML reads it as null, where it starts, and
// whether it is a literal (`|`) block, whose lines map one to one to the file's.
struct Scalar {
    std::string value;
    bool null = false;
    bool plain = false;  // unquoted, no block: only then is `<<` a merge key
    bool literal = false;
    size_t line = 0;  // 1-based
};

struct Folder {
    std::string text;  // one line of the value, stripped, not yet expanded
    size_t line = 0;
};

struct RawSection {
    std::string name;
    bool null = false;  // `name:` with nothing: ComfyUI skips it
    bool hasBase = false;
    std::string base;  // stripped, not yet expanded
    size_t baseLine = 0;
    std::map<std::string, std::vector<Folder>> kinds;
};

const char* const kCoreTag = "tag:yaml.org,2002:";

class Reader {
public:
    Reader(const std::string& text, const std::string& file) : m_text(text), m_file(file) {}

    std::vector<RawSection> read() {
        yaml_parser_t parser;
        if (!yaml_parser_initialize(&parser)) fail(1, "libyaml could not start (out of memory)");
        struct ParserGuard {
            yaml_parser_t* p;
            ~ParserGuard() { yaml_parser_delete(p); }
        } parserGuard{&parser};
        yaml_parser_set_input_string(&parser, reinterpret_cast<const unsigned char*>(m_text.data()),
                                     m_text.size());
        size_t events = 0;
        for (;;) {
            yaml_event_t ev;
            if (!yaml_parser_parse(&parser, &ev)) parserError(parser);
            struct EventGuard {
                yaml_event_t* e;
                ~EventGuard() { yaml_event_delete(e); }
            } eventGuard{&ev};
            const size_t line = ev.start_mark.line + 1;
            if (++events > kMaxEvents)
                fail(line, "more than " + std::to_string(kMaxEvents) +
                               " YAML events; an extra_model_paths.yaml is a few dozen lines");
            switch (ev.type) {
                case YAML_STREAM_END_EVENT:
                    return std::move(m_sections);
                case YAML_DOCUMENT_START_EVENT:
                    if (++m_documents > 1)
                        fail(line, "a second YAML document ('---'); ComfyUI reads a file of one");
                    m_state = State::Root;
                    break;
                case YAML_MAPPING_START_EVENT:
                case YAML_SEQUENCE_START_EVENT: {
                    const bool mapping = ev.type == YAML_MAPPING_START_EVENT;
                    if (++m_depth > kMaxDepth)
                        fail(line, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
                    checkTag(mapping ? ev.data.mapping_start.tag : ev.data.sequence_start.tag,
                             line);
                    const yaml_char_t* anchor =
                        mapping ? ev.data.mapping_start.anchor : ev.data.sequence_start.anchor;
                    if (anchor) {
                        const std::string name = reinterpret_cast<const char*>(anchor);
                        m_scalarAnchors.erase(name);
                        m_collectionAnchors.insert(name);
                    }
                    collectionStart(mapping, line);
                    break;
                }
                case YAML_MAPPING_END_EVENT:
                case YAML_SEQUENCE_END_EVENT:
                    --m_depth;
                    collectionEnd(line);
                    break;
                case YAML_SCALAR_EVENT: {
                    const auto& s = ev.data.scalar;
                    checkTag(s.tag, line);
                    Scalar sc;
                    sc.value.assign(reinterpret_cast<const char*>(s.value), s.length);
                    sc.line = line;
                    sc.plain = s.style == YAML_PLAIN_SCALAR_STYLE;
                    sc.literal = s.style == YAML_LITERAL_SCALAR_STYLE;
                    sc.null = isNull(s.tag, sc.plain, sc.value);
                    if (s.anchor) {
                        const std::string name = reinterpret_cast<const char*>(s.anchor);
                        m_collectionAnchors.erase(name);
                        m_scalarAnchors[name] = sc;
                    }
                    scalar(sc);
                    break;
                }
                case YAML_ALIAS_EVENT:
                    alias(reinterpret_cast<const char*>(ev.data.alias.anchor), line);
                    break;
                default:  // stream start, document end
                    break;
            }
        }
    }

private:
    enum class State {
        Root,          // a document's top node
        Top,           // the mapping of sections: a section name or its end
        SectionValue,  // a section's mapping (or null)
        Section,       // a section's key or its end
        BaseValue,     // base_path's folder
        KindValue,     // a kind's folders: text, or a list of texts
        Folders,       // inside a kind's list
        SkipValue,     // is_default's value, whatever it is
        Skipping,      // inside a skipped collection
        AfterRoot      // the document's top node is done
    };

    [[noreturn]] void fail(size_t line, const std::string& what) const {
        throw std::runtime_error(m_file + ":" + std::to_string(line) + ": " + what);
    }

    [[noreturn]] void parserError(const yaml_parser_t& p) const {
        if (p.error == YAML_MEMORY_ERROR) fail(1, "libyaml ran out of memory");
        std::string what = p.problem ? p.problem : "invalid YAML";
        size_t line = p.problem_mark.line + 1;
        if (p.error == YAML_READER_ERROR) {
            // The reader reports a byte offset, not a mark.
            const size_t end = std::min(p.problem_offset, m_text.size());
            line = 1;
            for (size_t i = 0; i < end; ++i) line += m_text[i] == '\n';
            if (p.problem_value >= 0) {
                char hex[16];
                std::snprintf(hex, sizeof hex, " (0x%X)", unsigned(p.problem_value));
                what += hex;
            }
        }
        if (p.context)
            what += std::string(" (") + p.context + ", from line " +
                    std::to_string(p.context_mark.line + 1) + ")";
        fail(line, what);
    }

    // safe_load knows the core tags and refuses any other; so does this reader, rather than
    // read `!custom x` as plain text.
    void checkTag(const yaml_char_t* tag, size_t line) const {
        if (!tag) return;
        const std::string t = reinterpret_cast<const char*>(tag);
        if (t == "!") return;
        static const char* const known[] = {"str", "null", "bool", "int", "float", "map", "seq"};
        if (t.rfind(kCoreTag, 0) == 0)
            for (const char* k : known)
                if (t.compare(std::char_traits<char>::length(kCoreTag), std::string::npos, k) == 0)
                    return;
        fail(line, "tag " + quote(t) + " is not read (only YAML's str, null, bool, int, float)");
    }

    // YAML 1.1's null as PyYAML resolves it: an untagged plain ``, `~` or null/Null/NULL, or an
    // explicit !!null.
    static bool isNull(const yaml_char_t* tag, bool plain, const std::string& v) {
        if (tag) return reinterpret_cast<const char*>(tag) == std::string(kCoreTag) + "null";
        return plain && (v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL");
    }

    void alias(const std::string& name, size_t line) {
        const auto it = m_scalarAnchors.find(name);
        if (it == m_scalarAnchors.end() && !m_collectionAnchors.count(name))
            fail(line, "alias " + quote("*" + name) + " has no anchor " + quote("&" + name) +
                           " before it");
        if (m_state == State::SkipValue) {
            m_state = State::Section;
            return;
        }
        if (m_state == State::Skipping) return;
        if (it == m_scalarAnchors.end())
            fail(line, "alias " + quote("*" + name) +
                           " names a mapping or list; only aliases of single values are read");
        m_aliasBytes += it->second.value.size();
        if (m_aliasBytes > kMaxAliasBytes) fail(line, "aliases repeat more than 1 MB of text");
        Scalar s = it->second;
        s.line = line;
        s.literal = false;  // its lines are the anchor's, not the alias's
        scalar(s);
    }

    void collectionStart(bool mapping, size_t line) {
        const char* what = mapping ? "a mapping" : "a list";
        switch (m_state) {
            case State::Root:
                if (!mapping)
                    fail(line,
                         "the file is a list; extra_model_paths.yaml holds sections "
                         "(`name:`, then indented `kind: folder` lines)");
                m_state = State::Top;
                return;
            case State::SectionValue:
                if (!mapping)
                    fail(line, "section " + quote(m_name) +
                                   " is a list; a section holds indented "
                                   "`kind: folder` lines");
                m_current = section(m_name);
                m_state = State::Section;
                return;
            case State::KindValue:
                if (mapping)
                    fail(line, quote(m_kind) +
                                   " holds a mapping; a kind holds a folder, a `|` block "
                                   "of folders or a list of folders");
                current().kinds[m_kind].clear();  // a repeated key replaces, as in PyYAML
                m_state = State::Folders;
                return;
            case State::Folders:
                fail(line, "the list of folders of " + quote(m_kind) + " holds " + what +
                               "; it holds only folders");
            case State::BaseValue:
                fail(line, "'base_path' holds " + std::string(what) + "; it is one folder");
            case State::SkipValue:
                m_skipDepth = 1;
                m_state = State::Skipping;
                return;
            case State::Skipping:
                ++m_skipDepth;
                return;
            default:  // Top, Section: the key itself
                fail(line, std::string("a key is ") + what + "; keys are names");
        }
    }

    void collectionEnd(size_t line) {
        switch (m_state) {
            case State::Top:
                m_state = State::AfterRoot;
                return;
            case State::Section:
                m_state = State::Top;
                return;
            case State::Folders:
                m_state = State::Section;
                return;
            case State::Skipping:
                if (--m_skipDepth == 0) m_state = State::Section;
                return;
            default:  // libyaml only ends a collection in one of the states above
                fail(line, "unexpected end of a mapping or list");
        }
    }

    void scalar(const Scalar& s) {
        switch (m_state) {
            case State::Root:
                if (!s.null)
                    fail(s.line, "the file is the single value " + quote(s.value) +
                                     "; extra_model_paths.yaml holds sections");
                m_state = State::AfterRoot;
                return;
            case State::Top:
                m_name = name(s, "section name");
                m_state = State::SectionValue;
                return;
            case State::SectionValue:
                if (!s.null)
                    fail(s.line, "top-level " + quote(m_name) + " has a value (" + quote(s.value) +
                                     "); a section (name, then indented `kind: folder` lines) is "
                                     "expected");
                m_sections[section(m_name)].null = true;
                m_state = State::Top;
                return;
            case State::Section:
                if (s.value == "<<" && s.plain)
                    fail(s.line, "merge keys (<<) are not read; write the section's keys out");
                if (s.value == "base_path") {
                    m_state = State::BaseValue;
                } else if (s.value == "is_default") {
                    m_state = State::SkipValue;  // where ComfyUI puts the folders first; not used
                } else {
                    m_kind = name(s, "kind");
                    m_state = State::KindValue;
                }
                return;
            case State::BaseValue: {
                if (s.null) fail(s.line, "'base_path' is empty");
                const std::string base = strip(s.value);
                checkPath(base, s.line, "'base_path'");
                if (base.find('\n') != std::string::npos)
                    fail(s.line, "'base_path' holds more than one line; it is one folder");
                current().hasBase = true;
                current().base = base;
                current().baseLine = s.line;
                m_state = State::Section;
                return;
            }
            case State::KindValue:
                if (s.null) fail(s.line, quote(m_kind) + " has no folder");
                current().kinds[m_kind].clear();
                addFolders(s);
                m_state = State::Section;
                return;
            case State::Folders:
                if (!s.null) addFolders(s);  // `- ` with nothing: no folder, like an empty line
                return;
            case State::SkipValue:
                m_state = State::Section;
                return;
            case State::Skipping:
                return;
            case State::AfterRoot:
                fail(s.line, "unexpected value after the sections");
        }
    }

    std::string name(const Scalar& s, const char* what) const {
        if (s.null || s.value.empty()) fail(s.line, std::string("a ") + what + " is empty");
        if (s.value.size() > kMaxNameBytes)
            fail(s.line, std::string("a ") + what + " of " + std::to_string(s.value.size()) +
                             " bytes (" + quote(s.value) + "); at most " +
                             std::to_string(kMaxNameBytes));
        if (s.value.find('\0') != std::string::npos)
            fail(s.line, std::string("a ") + what + " with a NUL character");
        return s.value;
    }

    void checkPath(const std::string& p, size_t line, const std::string& what) const {
        if (p.size() > kMaxPathBytes)
            fail(line, what + ": a folder of " + std::to_string(p.size()) + " bytes (" + quote(p) +
                           "); at most " + std::to_string(kMaxPathBytes));
        if (p.find('\0') != std::string::npos)
            fail(line, what + ": a folder with a NUL character (" + quote(p) + ")");
    }

    // ComfyUI splits a kind's text on newlines and skips empty lines; each line is stripped too,
    // so trailing spaces in a `|` block or a CR from a Windows editor do not end up in a path.
    void addFolders(const Scalar& s) {
        auto& folders = current().kinds[m_kind];
        size_t start = 0, index = 0;
        while (start <= s.value.size()) {
            size_t nl = s.value.find('\n', start);
            if (nl == std::string::npos) nl = s.value.size();
            // A literal block's content starts on the line after its `|`.
            const size_t line = s.literal ? s.line + 1 + index : s.line;
            const std::string f = strip(s.value.substr(start, nl - start));
            if (!f.empty()) {
                checkPath(f, line, quote(m_kind));
                if (++m_folders > kMaxFolders)
                    fail(line, "more than " + std::to_string(kMaxFolders) + " folders");
                folders.push_back({f, line});
            }
            start = nl + 1;
            ++index;
        }
    }

    // A fresh section, by index; a repeated name replaces the earlier one in its place, as a
    // Python dict does.
    size_t section(const std::string& name) {
        const auto [it, added] = m_index.emplace(name, m_sections.size());
        if (added)
            m_sections.emplace_back();
        else
            m_sections[it->second] = RawSection{};
        m_sections[it->second].name = name;
        return it->second;
    }

    RawSection& current() { return m_sections[m_current]; }

    const std::string& m_text;
    const std::string& m_file;
    State m_state = State::Root;
    int m_depth = 0;
    int m_skipDepth = 0;
    int m_documents = 0;
    size_t m_folders = 0;
    size_t m_aliasBytes = 0;
    std::string m_name;    // the section being read
    std::string m_kind;    // the kind being read
    size_t m_current = 0;  // index of the section being read
    std::vector<RawSection> m_sections;
    std::unordered_map<std::string, size_t> m_index;
    std::unordered_map<std::string, Scalar> m_scalarAnchors;
    std::unordered_set<std::string> m_collectionAnchors;
};

}  // namespace

std::vector<ModelPathSection> parseModelPathsYaml(const std::string& text,
                                                  const std::string& file) {
    if (text.size() > kMaxYamlBytes)
        throw std::runtime_error(file + ": " + std::to_string(text.size()) +
                                 " bytes, larger than the 1 MB an extra_model_paths.yaml may be");
    // ComfyUI resolves against os.path.abspath(yaml_path)'s folder.
    std::string yamlDir;
    if (!file.empty()) {
        std::error_code ec;
        const fs::path abs = fs::absolute(fs::path(file), ec);
        yamlDir = (ec ? fs::path(file) : abs).parent_path().string();
    }
    const auto fail = [&](size_t line, const std::string& what) {
        throw std::runtime_error(file + ":" + std::to_string(line) + ": " + what);
    };
    // Expands `~` then `$VAR`s, in ComfyUI's order (expandvars(expanduser(p))), and joins a
    // relative result to `base`.
    const auto resolve = [&](const std::string& p, const std::string& base, size_t line) {
        std::string expanded;
        if (!expandVars(expandUser(p), kMaxPathBytes, expanded))
            fail(line,
                 quote(p) + " expands to more than " + std::to_string(kMaxPathBytes) + " bytes");
        fs::path path(expanded);
        if (path.is_relative() && !base.empty()) path = fs::path(base) / path;
        std::string out = path.lexically_normal().string();
        if (out.size() > kMaxPathBytes)
            fail(line,
                 quote(p) + " resolves to more than " + std::to_string(kMaxPathBytes) + " bytes");
        return out;
    };

    std::vector<ModelPathSection> sections;
    for (auto& raw : Reader(text, file).read()) {
        if (raw.null) continue;
        ModelPathSection s{raw.name, "", {}};
        if (raw.hasBase) s.basePath = resolve(raw.base, yamlDir, raw.baseLine);
        const std::string& base = raw.hasBase ? s.basePath : yamlDir;
        for (const auto& [kind, folders] : raw.kinds)
            for (const auto& f : folders) s.kinds[kind].push_back(resolve(f.text, base, f.line));
        sections.push_back(std::move(s));
    }
    return sections;
}

std::vector<ModelPathSection> readModelPathsYaml(const std::string& path) {
    return parseModelPathsYaml(readBoundedFile(path, kMaxYamlBytes, "extra_model_paths.yaml"),
                               path);
}

}  // namespace hs
