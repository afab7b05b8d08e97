#include "reproduce/a1111_infotext.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

#include "reproduce/sampler_names.h"

namespace hs {

namespace {

using json = nlohmann::json;

// Python's str.isspace for the ASCII range (strip() also drops Unicode spaces; an infotext's
// prompt edges have none that matter).
bool isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' ||
           c == '\x1c' || c == '\x1d' || c == '\x1e' || c == '\x1f';
}

std::string strip(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && isSpace(s[b])) ++b;
    while (e > b && isSpace(s[e - 1])) --e;
    return s.substr(b, e - b);
}

// Python's \w on str: letters and digits of any script, and "_". A byte of a UTF-8 sequence
// counts as a letter (an infotext's keys are ASCII; this only decides where a key may start).
bool isWord(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') ||
           (u >= 'A' && u <= 'Z') || c == '_';
}

bool allDigits(const std::string& s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

bool isKeyChar(char c) {
    return isWord(c) || c == ' ' || c == '-' || c == '/';
}

// Per position of a line, what re_param's parts would consume from there, computed right to
// left once so that trying every start stays linear (a line of 10^6 spaces or of unclosed
// quotes costs no more than a line of fields).
// 32-bit positions: a line is at most a text chunk (8 MB), and the index 12 bytes a character.
struct LineIndex {
    static constexpr uint32_t none = UINT32_MAX;
    std::vector<uint32_t> keyEnd;    // the end of the run of key characters starting here
    std::vector<uint32_t> nonSpace;  // the first non-space at or after here
    std::vector<uint32_t> closing;   // the '"' a quoted value's body starting here ends at
    explicit LineIndex(const std::string& line) {
        if (line.size() >= none) throw std::runtime_error("the infotext's last line is too long");
        const uint32_t n = uint32_t(line.size());
        keyEnd.assign(n + 1, n);
        nonSpace.assign(n + 1, n);
        closing.assign(n + 2, none);
        for (uint32_t i = n; i-- > 0;) {
            keyEnd[i] = isKeyChar(line[i]) ? keyEnd[i + 1] : i;
            nonSpace[i] = isSpace(line[i]) ? nonSpace[i + 1] : i;
            // (?:\\.|[^\\"])+ then '"': an escape takes two characters.
            closing[i] = line[i] == '"' ? i : line[i] == '\\' ? closing[i + 2] : closing[i + 1];
        }
    }
};

// One match of A1111's re_param, \s*(\w[\w \-/]+):\s*("(?:\\.|[^\\"])+"|[^,]*)(?:,|$), at
// `start`: the key's run of key characters must end at the ':' (a shorter key would end on a
// key character); the value is a quoted string followed by ',' or the end, else everything up
// to the next ','.
bool matchField(const std::string& line, const LineIndex& at, size_t start, std::string& key,
                std::string& value, size_t& next) {
    const size_t p = at.nonSpace[start];
    if (p >= line.size() || !isWord(line[p])) return false;
    const size_t colon = at.keyEnd[p];
    if (colon < p + 2 || colon >= line.size() || line[colon] != ':') return false;
    key = line.substr(p, colon - p);
    const size_t v = at.nonSpace[colon + 1];
    if (v < line.size() && line[v] == '"') {
        const size_t q = at.closing[v + 1];
        if (q != LineIndex::none && q > v + 1 && (q + 1 == line.size() || line[q + 1] == ',')) {
            value = line.substr(v, q + 1 - v);
            next = q + 1 == line.size() ? q + 1 : q + 2;
            return true;
        }
    }
    const size_t comma = line.find(',', v);
    value = line.substr(v, (comma == std::string::npos ? line.size() : comma) - v);
    next = comma == std::string::npos ? line.size() : comma + 1;
    return true;
}

// re_param.findall(line), as (key, value) pairs, with the value unquoted as A1111 does
// (json.loads of a quoted value; left as it is when that fails). An empty value is dropped
// (A1111 fails on it and skips the field) but counted in `matches`.
std::vector<std::pair<std::string, std::string>> findFields(const std::string& line,
                                                            size_t& matches) {
    const LineIndex index(line);
    std::vector<std::pair<std::string, std::string>> out;
    matches = 0;
    for (size_t start = 0; start < line.size();) {
        std::string key, value;
        size_t next = 0;
        if (!matchField(line, index, start, key, value, next)) {
            ++start;
            continue;
        }
        if (++matches > kMaxInfotextFields)
            throw std::runtime_error("the infotext's last line has more than " +
                                     std::to_string(kMaxInfotextFields) + " fields (the cap)");
        start = next;
        if (value.empty()) continue;
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
            const json unquoted = json::parse(value, nullptr, false);
            if (unquoted.is_string()) value = unquoted.get<std::string>();
        }
        // "Size: 512x768" is two fields, Size-1 and Size-2 (re_imagesize).
        const size_t x = value.find('x');
        if (x != std::string::npos && allDigits(value.substr(0, x)) &&
            allDigits(value.substr(x + 1))) {
            out.emplace_back(key + "-1", value.substr(0, x));
            out.emplace_back(key + "-2", value.substr(x + 1));
            continue;
        }
        out.emplace_back(std::move(key), std::move(value));
    }
    return out;
}

double toNumber(const Infotext& info, const char* key) {
    const std::string v = strip(*info.find(key));
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0')
        throw std::runtime_error(std::string("the infotext's ") + key + " is not a number");
    return d;
}

std::optional<double> optionalNumber(const Infotext& info, const char* key) {
    if (!info.find(key)) return std::nullopt;
    return toNumber(info, key);
}

std::optional<int64_t> optionalInteger(const Infotext& info, const char* key) {
    if (!info.find(key)) return std::nullopt;
    const std::string v = strip(*info.find(key));
    char* end = nullptr;
    const long long n = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0')
        throw std::runtime_error(std::string("the infotext's ") + key + " is not an integer");
    return int64_t(n);
}

// "<lora:name:0.8>" (and <lyco:...>) in a prompt: the names.
void addPromptNetworks(const std::string& prompt, ReproduceSettings& s) {
    for (const char* tag : {"<lora:", "<lyco:", "<hypernet:"}) {
        const std::string open = tag;
        for (size_t at = prompt.find(open); at != std::string::npos;
             at = prompt.find(open, at + 1)) {
            const size_t end = prompt.find_first_of(":>", at + open.size());
            if (end == std::string::npos) break;
            const std::string kind = open == "<hypernet:" ? "hypernetwork " : "LoRA ";
            s.addUnsupported(kind + prompt.substr(at + open.size(), end - at - open.size()));
        }
    }
}

// "name [hash]" (Refiner, Hires checkpoint): the name.
std::string withoutHash(const std::string& v) {
    const size_t at = v.rfind(" [");
    return at != std::string::npos && v.back() == ']' ? v.substr(0, at) : v;
}

}  // namespace

const std::string* Infotext::find(const std::string& key) const {
    for (auto it = fields.rbegin(); it != fields.rend(); ++it)
        if (it->first == key) return &it->second;
    return nullptr;
}

Infotext parseInfotext(const std::string& text) {
    Infotext info;
    std::vector<std::string> lines;
    const std::string body = strip(text);
    for (size_t b = 0;;) {
        const size_t e = body.find('\n', b);
        lines.push_back(body.substr(b, e == std::string::npos ? std::string::npos : e - b));
        if (e == std::string::npos) break;
        b = e + 1;
    }
    std::string last = lines.back();
    lines.pop_back();
    size_t matches = 0;
    auto fields = findFields(last, matches);
    // A last line of fewer than three matches is prompt text.
    if (matches < 3) {
        lines.push_back(last);
        fields.clear();
    }
    info.fields = std::move(fields);
    bool negative = false;
    for (const std::string& raw : lines) {
        std::string line = strip(raw);
        if (line.rfind("Negative prompt:", 0) == 0) {
            negative = true;
            line = strip(line.substr(16));
        }
        std::string& to = negative ? info.negativePrompt : info.prompt;
        to += (to.empty() ? "" : "\n") + line;
    }
    return info;
}

ReproduceSettings settingsFromInfotext(const Infotext& info) {
    ReproduceSettings s;
    s.source = ReproduceSource::A1111;
    s.chunk = "parameters";
    s.prompt = info.prompt;
    s.negativePrompt = info.negativePrompt;
    if (const auto seed = optionalInteger(info, "Seed")) s.seed = *seed;
    s.steps = optionalInteger(info, "Steps");
    s.cfg = optionalNumber(info, "CFG scale");
    s.guidance = optionalNumber(info, "Distilled CFG Scale");  // Forge, Flux
    s.width = optionalInteger(info, "Size-1");
    s.height = optionalInteger(info, "Size-2");
    s.shift = optionalNumber(info, "Shift");  // Forge, flow models
    if (const std::string* sampler = info.find("Sampler")) {
        const std::string* schedule = info.find("Schedule type");
        const ComfySamplerName n = comfySamplerName(*sampler, schedule ? *schedule : "");
        s.sampler = n.sampler;
        s.scheduler = n.scheduler;
        if (!n.samplerKnown) s.addUnsupported("sampler " + *sampler);
        if (!n.schedulerKnown) s.addUnsupported("schedule type " + *schedule);
    }
    for (const char* key : {"Model", "VAE"})
        if (const std::string* v = info.find(key)) s.addRunFile(*v);
    if (const std::string* hash = info.find("Model hash"); hash && info.find("Model")) {
        s.modelHash = strip(*hash);
        s.hashedFile = *info.find("Model");
    }
    // Forge: the text encoders and VAE loaded beside the model.
    for (const auto& [key, value] : info.fields)
        if (key.rfind("Module ", 0) == 0) s.addRunFile(value);
    // Hires fix: a second pass at a larger size, its denoise the field's; else a denoising
    // strength means img2img, whose source image the infotext does not hold.
    const bool hires = info.find("Hires upscale") || info.find("Hires resize-1") ||
                       info.find("Hires upscaler") || info.find("Hires steps");
    if (hires) {
        s.stages = 2;
        s.addUnsupported("hires fix");
        if (const std::string* c = info.find("Hires checkpoint")) s.addFile(withoutHash(*c));
    } else if (info.find("Denoising strength")) {
        s.denoise = toNumber(info, "Denoising strength");
        s.addUnsupported("img2img (Denoising strength without hires fix)");
    }
    if (const std::string* refiner = info.find("Refiner")) {
        s.stages += 1;
        s.addFile(withoutHash(*refiner));
    }
    addPromptNetworks(info.prompt, s);
    addPromptNetworks(info.negativePrompt, s);
    if (const std::string* hashes = info.find("Lora hashes")) {
        // "name: hash, name2: hash2"
        for (size_t b = 0; b < hashes->size();) {
            const size_t e = std::min(hashes->find(',', b), hashes->size());
            const std::string item = strip(hashes->substr(b, e - b));
            const size_t colon = item.rfind(':');
            s.addUnsupported("LoRA " + strip(item.substr(0, colon)));
            b = e + 1;
        }
    }
    if (const std::string* skip = info.find("Clip skip"); skip && strip(*skip) != "1")
        s.addUnsupported("Clip skip " + strip(*skip));
    // Forge's distilled guidance is Flux's.
    std::string model = info.find("Model") ? *info.find("Model") : "";
    for (char& c : model) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (s.guidance || model.find("flux") != std::string::npos) s.family = "flux";
    return s;
}

}  // namespace hs
