#!/usr/bin/python3
"""Generates unicode_tables.cpp and html_entities.cpp for the CLIP tokenizer's text cleanup.

Run with Debian's /usr/bin/python3 (3.11, unicodedata 14.0.0) and python3-regex 0.1.20221031:
the interpreter and regex module that produced tests/data/golden/clip_tokenizer/golden_tokens.json.
    /usr/bin/python3 core/text/gen_unicode_tables.py core/text
Every table is derived from the behaviour of the Python functions the reference tokenizer calls
(regex classes with IGNORECASE, str.lower(), unicodedata.normalize, html.entities), not from
the Unicode property files, so quirks of those functions are reproduced.
"""
import html
import html.entities
import os
import sys
import unicodedata

import regex

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
CPS = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]


def rows(items, per_line, indent="    "):
    out = []
    for i in range(0, len(items), per_line):
        out.append(indent + ", ".join(items[i:i + per_line]) + ",")
    return "\n".join(out)


def ranges_of(pred):
    res, start, prev = [], None, None
    for cp in CPS:
        if pred(cp):
            if start is None:
                start = cp
            elif cp != prev + 1:
                res.append((start, prev))
                start = cp
            prev = cp
    if start is not None:
        res.append((start, prev))
    return res


def c_string(s):
    out = '"'
    for b in s.encode("utf-8"):
        if 0x30 <= b <= 0x39 or 0x41 <= b <= 0x5A or 0x61 <= b <= 0x7A:
            out += chr(b)
        else:
            out += "\\%03o" % b
    return out + '"'


# 1. Pre-tokenizer classes, exactly as the regex module evaluates them with IGNORECASE.
LETTER = regex.compile(r"[\p{L}]", regex.IGNORECASE)
NUMBER = regex.compile(r"[\p{N}]", regex.IGNORECASE)
OTHER = regex.compile(r"[^\s\p{L}\p{N}]", regex.IGNORECASE)
runs, prev = [], None
for cp in range(0x110000):
    c = chr(cp)
    if 0xD800 <= cp < 0xE000:
        k = 3  # surrogates never occur in valid UTF-8
    elif c.isspace():
        k = 0  # whitespace_clean() turns Python whitespace into ' ' before the regex runs
    elif LETTER.match(c):
        k = 1
    elif NUMBER.match(c):
        k = 2
    elif OTHER.match(c):
        k = 3
    else:
        k = 0  # matched by no alternative (U+0345 under IGNORECASE): skipped like a space
    if k != prev:
        runs.append((cp, k))
        prev = k
class_rows = ["0x%x" % (cp << 2 | k) for cp, k in runs]

# 2. str.lower(): single-codepoint mappings grouped into (first, last, delta, stride) runs.
lower = {}
for cp in CPS:
    lo = chr(cp).lower()
    if lo != chr(cp) and len(lo) == 1:
        lower[cp] = ord(lo) - cp
groups = []
for cp in sorted(lower):
    d = lower[cp]
    if groups:
        g = groups[-1]
        if g[2] == d and (g[3] == 0 or cp - g[1] == g[3]) and cp - g[1] in (1, 2):
            if g[3] == 0:
                g[3] = cp - g[1]
            g[1] = cp
            continue
    groups.append([cp, cp, d, 0])
lower_rows = ["{0x%x, 0x%x, %d, %d}" % (a, b, d, max(s, 1)) for a, b, d, s in groups]

# 3. Final sigma context, derived from str.lower() itself:
#    'X' + SIGMA lowers to final sigma iff X is cased and not case-ignorable;
#    'A' + X + SIGMA does iff X is case-ignorable, or cased and not case-ignorable.
def final(s):
    return s.lower()[-1] == "\u03c2"
cased_set, ignorable_set = set(), set()
for cp in CPS:
    x = chr(cp)
    xs = final(x + "\u03a3")
    axs = final("A" + x + "\u03a3")
    if xs:
        cased_set.add(cp)
    elif axs:
        ignorable_set.add(cp)
cased_rows = ["{0x%x, 0x%x}" % r for r in ranges_of(lambda cp: cp in cased_set)]
ign_rows = ["{0x%x, 0x%x}" % r for r in ranges_of(lambda cp: cp in ignorable_set)]

# 4. NFC: canonical combining classes, canonical decompositions (with a flag for primary
#    composites) as unicodedata.normalize applies them.
ccc_ranges = []
for cp in CPS:
    c = unicodedata.combining(chr(cp))
    if c:
        if ccc_ranges and ccc_ranges[-1][1] == cp - 1 and ccc_ranges[-1][2] == c:
            ccc_ranges[-1][1] = cp
        else:
            ccc_ranges.append([cp, cp, c])
ccc_rows = ["{0x%x, 0x%x, %d}" % tuple(r) for r in ccc_ranges]
dec_rows = []
for cp in CPS:
    d = unicodedata.decomposition(chr(cp))
    if not d or d.startswith("<"):
        continue
    parts = [int(p, 16) for p in d.split()]
    a = parts[0]
    b = parts[1] if len(parts) > 1 else 0
    compose = 1 if b and unicodedata.normalize("NFC", chr(a) + chr(b)) == chr(cp) else 0
    dec_rows.append("{0x%x, 0x%x, 0x%x, %d}" % (cp, a, b, compose))

# 5. ftfy's fix_character_width map: U+3000 and NFKC of U+FF01..U+FFEF.
width = [(0x3000, " ")]
for cp in range(0xFF01, 0xFFF0):
    alt = unicodedata.normalize("NFKC", chr(cp))
    if alt != chr(cp):
        width.append((cp, alt))
width_rows = ["{0x%x, %s}" % (cp, c_string(s)) for cp, s in width]

with open(os.path.join(OUT, "unicode_tables.cpp"), "w", encoding="utf-8") as f:
    f.write("""// GENERATED by gen_unicode_tables.py from Python %s (unicodedata %s) and regex %s.
// Do not edit; rerun the generator. See unicode_tables.h for what each table means.
// clang-format off
#include "text/unicode_tables.h"

namespace hs::unicode_tables {

const uint32_t kClassRuns[] = {
%s
};
const size_t kClassRunCount = sizeof(kClassRuns) / sizeof(kClassRuns[0]);

const LowerRun kLowerRuns[] = {
%s
};
const size_t kLowerRunCount = sizeof(kLowerRuns) / sizeof(kLowerRuns[0]);

const Range kCased[] = {
%s
};
const size_t kCasedCount = sizeof(kCased) / sizeof(kCased[0]);

const Range kCaseIgnorable[] = {
%s
};
const size_t kCaseIgnorableCount = sizeof(kCaseIgnorable) / sizeof(kCaseIgnorable[0]);

const CccRange kCcc[] = {
%s
};
const size_t kCccCount = sizeof(kCcc) / sizeof(kCcc[0]);

const Decomposition kDecompositions[] = {
%s
};
const size_t kDecompositionCount = sizeof(kDecompositions) / sizeof(kDecompositions[0]);

const WidthForm kWidthForms[] = {
%s
};
const size_t kWidthFormCount = sizeof(kWidthForms) / sizeof(kWidthForms[0]);

}  // namespace hs::unicode_tables
""" % (sys.version.split()[0], unicodedata.unidata_version, regex.__version__,
       rows(class_rows, 8), rows(lower_rows, 4), rows(cased_rows, 5), rows(ign_rows, 5),
       rows(ccc_rows, 5), rows(dec_rows, 4), rows(width_rows, 6)))

# 6. ftfy 6.3's HTML_ENTITIES: html5 names ending in ';' plus upper-cased variants of
#    lower-case names that html.unescape leaves alone.
ent = {}
for name, char in html.entities.html5.items():
    if name.endswith(";"):
        ent["&" + name] = char
        if name == name.lower():
            up = "&" + name.upper()
            if html.unescape(up) == up:
                ent[up] = char.upper()
ent_rows = ["{%s, %s}" % (c_string(k[1:-1]), c_string(v)) for k, v in sorted(ent.items(), key=lambda kv: kv[0][1:-1].encode())]
with open(os.path.join(OUT, "html_entities.cpp"), "w", encoding="utf-8") as f:
    f.write("""// GENERATED by gen_unicode_tables.py from Python %s html.entities.html5 (names ending in ';')
// plus ftfy 6.3's upper-case variants. Do not edit; rerun the generator.
// clang-format off
#include "text/unicode_tables.h"

namespace hs::unicode_tables {

// Sorted by name (without '&' and ';'), for binary search.
const HtmlEntity kHtmlEntities[] = {
%s
};
const size_t kHtmlEntityCount = sizeof(kHtmlEntities) / sizeof(kHtmlEntities[0]);

}  // namespace hs::unicode_tables
""" % (sys.version.split()[0], rows(ent_rows, 4)))

print("classes %d runs, lower %d runs, cased %d, ignorable %d, ccc %d, decomp %d, width %d, "
      "entities %d" % (len(class_rows), len(lower_rows), len(cased_rows), len(ign_rows),
                       len(ccc_rows), len(dec_rows), len(width_rows), len(ent_rows)))
