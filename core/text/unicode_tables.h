#pragma once
// Generated Unicode tables (unicode_tables.cpp, html_entities.cpp; see gen_unicode_tables.py).
// They reproduce the Python functions that the reference CLIP tokenizer calls, taken from
// Python 3.11 (unicodedata 14.0.0) and the regex module 0.1.20221031.
#include <cstddef>
#include <cstdint>

namespace hs::unicode_tables {

// Pre-tokenizer classes as runs: entry = first codepoint << 2 | class, sorted; a run lasts until
// the next entry. Classes: 0 skipped (whitespace, or matched by no regex alternative), 1 letter
// ([\p{L}] with IGNORECASE), 2 number ([\p{N}]), 3 other ([^\s\p{L}\p{N}]).
extern const uint32_t kClassRuns[];
extern const size_t kClassRunCount;

// str.lower() single-codepoint mappings: cp in [first, last] with (cp - first) % stride == 0
// maps to cp + delta. (U+0130 lowers to two codepoints and final sigma depends on context:
// both are handled in code.)
struct LowerRun {
    uint32_t first, last;
    int32_t delta;
    uint32_t stride;
};
extern const LowerRun kLowerRuns[];
extern const size_t kLowerRunCount;

struct Range {
    uint32_t first, last;
};
// Cased and not case-ignorable / case-ignorable, as CPython's final-sigma rule sees them.
extern const Range kCased[];
extern const size_t kCasedCount;
extern const Range kCaseIgnorable[];
extern const size_t kCaseIgnorableCount;

// Canonical combining classes (non-zero only).
struct CccRange {
    uint32_t first, last;
    uint8_t ccc;
};
extern const CccRange kCcc[];
extern const size_t kCccCount;

// Canonical decompositions (Hangul syllables excluded: algorithmic). second == 0 for a
// singleton. compose: the pair recomposes to cp under NFC (a primary composite).
struct Decomposition {
    uint32_t cp, first, second;
    uint8_t compose;
};
extern const Decomposition kDecompositions[];
extern const size_t kDecompositionCount;

// ftfy fix_character_width: U+3000 and U+FF01..U+FFEF to their NFKC forms (UTF-8).
struct WidthForm {
    uint32_t cp;
    const char* utf8;
};
extern const WidthForm kWidthForms[];
extern const size_t kWidthFormCount;

// ftfy unescape_html named entities: name without '&' and ';', sorted by strcmp; value UTF-8.
struct HtmlEntity {
    const char* name;
    const char* utf8;
};
extern const HtmlEntity kHtmlEntities[];
extern const size_t kHtmlEntityCount;

}  // namespace hs::unicode_tables
