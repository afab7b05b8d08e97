// ftfy 6.3 fix_text() with its default TextFixerConfig, as transformers' CLIPTokenizer calls it,
// followed by CLIPTokenizer's whitespace_clean() and str.lower().
//
// Reproduced exactly: line-by-line segments (and the sticky "<" rule that turns HTML unescaping
// off), the fixed-point loop of fix_and_explain, unescape_html (all html5 entities ending in ';',
// upper-case variants, numeric references with html.unescape's replacements), fix_c1_controls,
// fix_latin_ligatures, fix_character_width, uncurl_quotes, fix_line_breaks, remove_control_chars,
// NFC. fix_surrogates has nothing to do: strict UTF-8 input cannot hold surrogates.
//
// Deliberate differences (ftfy's mojibake detection is a large heuristic):
//  1. fix_encoding only undoes UTF-8 that was decoded as Latin-1 or Windows-1252 (ftfy also
//     tries windows-1250/1251/1253/1254/1257, iso-8859-2, macroman and cp437).
//  2. ftfy first asks its "badness" heuristic (is_bad) whether the text looks like mojibake at
//     all. Here the whole segment is re-decoded whenever it is entirely Latin-1/Windows-1252
//     encodable and those bytes are valid UTF-8 (legitimate text almost never is), and embedded
//     sequences (decode_inconsistent_utf8) are decoded when they are 3- or 4-byte UTF-8 sequences
//     or 2-byte ones led by 'Â' or 'Ã' (the common cases: "â€™", "Ã©", "Â°").
//  3. restore_byte_a0, replace_lossy_sequences and the 'utf-8-variants' codec (CESU-8, Java's
//     C0 80) are not implemented: such text stays as it is.
//  4. remove_terminal_escapes accepts ASCII digits only (Python's \d also takes other scripts'
//     decimal digits inside an ANSI escape).
//  5. The fixed-point loops stop after 16 rounds (ftfy has no limit), so a pathological input
//     such as "&amp;" nested thousands of times cannot stall the tokenizer.
#include "text/text_cleanup.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "text/unicode.h"
#include "text/unicode_tables.h"
#include "text/utf8.h"

namespace hs {

namespace ut = unicode_tables;

namespace {

constexpr int kMaxRounds = 16;
constexpr size_t kMaxDecodeLength = 1000000;  // ftfy's max_decode_length

constexpr char32_t kCp1252High[32] = {
    0x20AC, 0x81,   0x201A, 0x192,  0x201E, 0x2026, 0x2020, 0x2021, 0x2C6,  0x2030, 0x160,
    0x2039, 0x152,  0x8D,   0x17D,  0x8F,   0x90,   0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x2DC,  0x2122, 0x161,  0x203A, 0x153,  0x9D,   0x17E,  0x178};

// Byte that sloppy-windows-1252 encodes cp to, or -1.
int sloppy1252Byte(char32_t cp) {
    if (cp < 0x80 || (cp >= 0xA0 && cp <= 0xFF)) return static_cast<int>(cp);
    for (int i = 0; i < 32; ++i)
        if (kCp1252High[i] == cp) return 0x80 + i;
    return -1;
}

bool tryDecode(const std::string& bytes, std::u32string& out) {
    try {
        out = decodeUtf8(bytes);
        return true;
    } catch (const std::invalid_argument&) {
        return false;
    }
}

bool isAsciiAlnum(char32_t c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

// html.unescape() of a numeric reference "&#<body>;" (body = digits or x/X + hex digits);
// false when the body is not fully numeric (ftfy then keeps the text).
bool numericReference(const std::u32string& body, std::u32string& out) {
    bool hex = body[0] == 'x' || body[0] == 'X';
    size_t start = hex ? 1 : 0;
    if (start >= body.size()) return false;
    uint64_t num = 0;
    for (size_t i = start; i < body.size(); ++i) {
        char32_t c = body[i];
        int v;
        if (c >= '0' && c <= '9')
            v = int(c - '0');
        else if (hex && c >= 'a' && c <= 'f')
            v = int(c - 'a' + 10);
        else if (hex && c >= 'A' && c <= 'F')
            v = int(c - 'A' + 10);
        else
            return false;
        num = std::min<uint64_t>(num * (hex ? 16 : 10) + v, 0x7FFFFFFF);
    }
    out.clear();
    const bool dropped = (num >= 0x1 && num <= 0x8) || (num >= 0xE && num <= 0x1F) || num == 0x7F ||
                         (num >= 0xFDD0 && num <= 0xFDEF) || num == 0xB ||
                         ((num & 0xFFFE) == 0xFFFE && num <= 0x10FFFF);
    if (num == 0)
        out.push_back(0xFFFD);
    else if (num == 0x0D)
        out.push_back(0x0D);
    else if (num >= 0x80 && num <= 0x9F)
        out.push_back(kCp1252High[num - 0x80]);
    else if ((num >= 0xD800 && num <= 0xDFFF) || num > 0x10FFFF)
        out.push_back(0xFFFD);
    else if (!dropped)
        out.push_back(static_cast<char32_t>(num));  // html.unescape drops those
    return true;
}

const char* namedEntity(const std::u32string& name) {
    std::string key(name.begin(), name.end());  // ASCII only (checked by the caller)
    const ut::HtmlEntity* e = ut::kHtmlEntities;
    auto it = std::lower_bound(e, e + ut::kHtmlEntityCount, key,
                               [](const ut::HtmlEntity& x, const std::string& k) {
                                   return std::strcmp(x.name, k.c_str()) < 0;
                               });
    if (it != e + ut::kHtmlEntityCount && key == it->name) return it->utf8;
    return nullptr;
}

// ftfy.fixes.unescape_html: HTML_ENTITY_RE = &#?[0-9A-Za-z]{1,24};
std::u32string unescapeHtml(const std::u32string& t) {
    if (t.find(U'&') == std::u32string::npos) return t;
    std::u32string out;
    out.reserve(t.size());
    size_t i = 0;
    while (i < t.size()) {
        if (t[i] != '&') {
            out.push_back(t[i++]);
            continue;
        }
        size_t j = i + 1;
        const bool hash = j < t.size() && t[j] == '#';
        if (hash) ++j;
        size_t k = j;
        while (k < t.size() && k - j <= 24 && isAsciiAlnum(t[k])) ++k;
        if (k == j || k - j > 24 || k >= t.size() || t[k] != ';') {
            out.push_back(t[i++]);
            continue;
        }
        const std::u32string body = t.substr(j, k - j);
        std::u32string repl;
        const char* named = hash ? nullptr : namedEntity(body);
        if (named)
            out += decodeUtf8(named);
        else if (hash && numericReference(body, repl))
            out += repl;
        else
            out.append(t, i, k + 1 - i);
        i = k + 1;
    }
    return out;
}

// One round of ftfy's fix_encoding, limited as the header of this file says.
std::u32string fixEncodingOnce(const std::u32string& t) {
    if (std::all_of(t.begin(), t.end(), [](char32_t c) { return c < 0x80; })) return t;
    std::string bytes;
    std::u32string decoded;
    if (std::all_of(t.begin(), t.end(), [](char32_t c) { return c <= 0xFF; })) {
        bytes.assign(t.begin(), t.end());  // latin-1
        if (tryDecode(bytes, decoded)) return decoded;
    }
    bytes.clear();
    bool encodable = true;
    for (char32_t c : t) {
        int b = sloppy1252Byte(c);
        if (b < 0) {
            encodable = false;
            break;
        }
        bytes.push_back(static_cast<char>(b));
    }
    if (encodable && tryDecode(bytes, decoded)) return decoded;
    // decode_inconsistent_utf8: embedded sequences.
    std::u32string out;
    out.reserve(t.size());
    for (size_t i = 0; i < t.size();) {
        const int lead = sloppy1252Byte(t[i]);
        int len = lead >= 0xC2 && lead <= 0xDF   ? 2
                  : lead >= 0xE0 && lead <= 0xEF ? 3
                  : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                 : 0;
        if (len == 2 && lead != 0xC2 && lead != 0xC3) len = 0;
        if (len && i + len <= t.size()) {
            std::string seq(1, static_cast<char>(lead));
            for (int k = 1; k < len; ++k) {
                int b = sloppy1252Byte(t[i + k]);
                if (b < 0x80 || b > 0xBF) break;
                seq.push_back(static_cast<char>(b));
            }
            if (int(seq.size()) == len && tryDecode(seq, decoded)) {
                out += decoded;
                i += len;
                continue;
            }
        }
        out.push_back(t[i++]);
    }
    return out;
}

std::u32string fixEncoding(std::u32string t) {
    for (int round = 0; round < kMaxRounds; ++round) {
        std::u32string fixed = fixEncodingOnce(t);
        if (fixed == t) break;
        t = std::move(fixed);
    }
    return t;
}

const char* latinLigature(char32_t c) {
    // The letters in UTF-8: "\312\274" is U+02BC, "\305\275" U+017D, "\305\276" U+017E and
    // "\305\277" U+017F.
    static constexpr struct {
        char32_t ligature;
        const char* letters;
    } kLigatures[] = {
        {0x132, "IJ"},         {0x133, "ij"},  {0x149, "\312\274n"}, {0x1F1, "DZ"},
        {0x1F2, "Dz"},         {0x1F3, "dz"},  {0x1C4, "D\305\275"}, {0x1C5, "D\305\276"},
        {0x1C6, "d\305\276"},  {0x1C7, "LJ"},  {0x1C8, "Lj"},        {0x1C9, "lj"},
        {0x1CA, "NJ"},         {0x1CB, "Nj"},  {0x1CC, "nj"},        {0xFB00, "ff"},
        {0xFB01, "fi"},        {0xFB02, "fl"}, {0xFB03, "ffi"},      {0xFB04, "ffl"},
        {0xFB05, "\305\277t"}, {0xFB06, "st"}};
    for (const auto& l : kLigatures)
        if (l.ligature == c) return l.letters;
    return nullptr;
}

const char* widthForm(char32_t c) {
    if (c != 0x3000 && (c < 0xFF01 || c > 0xFFEF)) return nullptr;
    const ut::WidthForm* w = ut::kWidthForms;
    auto it = std::lower_bound(w, w + ut::kWidthFormCount, c,
                               [](const ut::WidthForm& x, char32_t v) { return x.cp < v; });
    return (it != w + ut::kWidthFormCount && it->cp == c) ? it->utf8 : nullptr;
}

bool isRemovedControl(char32_t c) {
    return c <= 0x08 || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F ||
           (c >= 0x206A && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFC);
}

// fix_c1_controls, fix_latin_ligatures, fix_character_width, uncurl_quotes, fix_line_breaks,
// remove_terminal_escapes and remove_control_chars, in ftfy's order.
std::u32string characterFixes(const std::u32string& t) {
    std::u32string a;
    a.reserve(t.size());
    for (char32_t c : t) {
        if (c >= 0x80 && c <= 0x9F) c = kCp1252High[c - 0x80];  // fix_c1_controls
        if (const char* s = latinLigature(c)) {
            a += decodeUtf8(s);
        } else if (const char* w = widthForm(c)) {
            a += decodeUtf8(w);
        } else {
            a.push_back(c);
        }
    }
    std::u32string b;
    b.reserve(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        char32_t c = a[i];
        if (c == 0x2BC || (c >= 0x2018 && c <= 0x201B))
            c = '\'';  // uncurl_quotes
        else if (c >= 0x201C && c <= 0x201F)
            c = '"';
        if (c == '\r' && i + 1 < a.size() && a[i + 1] == '\n') continue;  // fix_line_breaks
        if (c == '\r' || c == 0x2028 || c == 0x2029 || c == 0x85) c = '\n';
        b.push_back(c);
    }
    std::u32string out;
    out.reserve(b.size());
    for (size_t i = 0; i < b.size(); ++i) {
        if (b[i] == 0x1B && i + 1 < b.size() && b[i + 1] == '[') {  // remove_terminal_escapes
            size_t k = i + 2;
            while (k < b.size() && ((b[k] >= '0' && b[k] <= '9') || b[k] == ';')) ++k;
            if (k < b.size() && ((b[k] >= 'a' && b[k] <= 'z') || (b[k] >= 'A' && b[k] <= 'Z'))) {
                i = k;
                continue;
            }
        }
        out.push_back(b[i]);
    }
    out.erase(std::remove_if(out.begin(), out.end(), isRemovedControl), out.end());
    return out;
}

// ftfy.fix_and_explain on one segment.
std::u32string fixSegment(std::u32string t, bool unescape) {
    for (int round = 0; round < kMaxRounds; ++round) {
        const std::u32string orig = t;
        if (unescape) t = unescapeHtml(t);
        t = fixEncoding(std::move(t));
        t = characterFixes(t);
        t = nfc(t);
        if (t == orig) break;
    }
    return t;
}

bool isPythonSpace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace

char32_t sloppyWindows1252(unsigned char byte) {
    return (byte >= 0x80 && byte <= 0x9F) ? kCp1252High[byte - 0x80] : byte;
}

bool forEachFixedLine(const std::u32string& text,
                      const std::function<bool(std::u32string&&)>& sink) {
    bool unescape = true;  // unescape_html="auto": off from the first segment holding '<'
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find(U'\n', pos);
        end = end == std::u32string::npos ? text.size() : end + 1;
        if (end - pos > kMaxDecodeLength) end = pos + kMaxDecodeLength;
        std::u32string segment = text.substr(pos, end - pos);
        if (unescape && segment.find(U'<') != std::u32string::npos) unescape = false;
        if (!sink(fixSegment(std::move(segment), unescape))) return false;
        pos = end;
    }
    return true;
}

std::u32string ftfyFixText(const std::u32string& text) {
    std::u32string out;
    forEachFixedLine(text, [&](std::u32string&& line) {
        out += line;
        return true;
    });
    return out;
}

std::string ftfyFixText(const std::string& utf8) {
    return encodeUtf8(ftfyFixText(decodeUtf8(utf8)));
}

std::string clipCleanText(const std::string& utf8) {
    const std::u32string fixed = ftfyFixText(decodeUtf8(utf8));
    std::u32string collapsed;
    collapsed.reserve(fixed.size());
    for (char32_t c : fixed) {
        if (isPythonSpace(c)) {
            if (!collapsed.empty() && collapsed.back() != ' ') collapsed.push_back(' ');
        } else {
            collapsed.push_back(c);
        }
    }
    if (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
    return encodeUtf8(pythonLower(collapsed));
}

}  // namespace hs
