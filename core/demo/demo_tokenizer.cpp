#include "demo/demo_tokenizer.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/atomic_file.h"

namespace hs::demo {

namespace {

std::string utf8(uint32_t cp) {
    std::string s;
    if (cp < 0x80) {
        s += char(cp);
    } else if (cp < 0x800) {
        s += char(0xC0 | (cp >> 6));
        s += char(0x80 | (cp & 0x3F));
    } else {
        s += char(0xE0 | (cp >> 12));
        s += char(0x80 | ((cp >> 6) & 0x3F));
        s += char(0x80 | (cp & 0x3F));
    }
    return s;
}

// Through AtomicFile: a file or symlink planted at a temporary name is never followed.
void writeAtomic(const std::filesystem::path& path, const std::string& content) {
    writeFileAtomically(path.string(), content.data(), content.size());
}

}  // namespace

const std::vector<std::string>& byteToUnicode() {
    // Printable Latin-1 bytes map to themselves; the rest to U+0100 onwards, in byte order.
    static const std::vector<std::string> table = [] {
        std::vector<std::string> t(256);
        int n = 0;
        for (int b = 0; b < 256; ++b) {
            bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
            t[b] = utf8(printable ? uint32_t(b) : uint32_t(256 + n++));
        }
        return t;
    }();
    return table;
}

BpeVocabulary learnBpe(const std::vector<std::string>& words) {
    BpeVocabulary v;
    // Base order as CLIP: printable bytes first (in byte order), then the remapped ones.
    std::vector<int> order;
    for (int pass = 0; pass < 2; ++pass)
        for (int b = 0; b < 256; ++b) {
            bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
            if (printable == (pass == 0)) order.push_back(b);
        }
    for (int b : order) v.tokens.push_back(byteToUnicode()[b]);
    for (int b : order) v.tokens.push_back(byteToUnicode()[b] + "</w>");

    std::vector<std::vector<std::string>> seqs;
    for (const auto& w : words) {
        std::vector<std::string> s;
        for (unsigned char c : w) s.push_back(byteToUnicode()[c]);
        if (s.empty()) continue;
        s.back() += "</w>";
        seqs.push_back(std::move(s));
    }
    while (true) {
        std::map<std::pair<std::string, std::string>, int> counts;
        for (const auto& s : seqs)
            for (size_t i = 0; i + 1 < s.size(); ++i) ++counts[{s[i], s[i + 1]}];
        if (counts.empty()) break;
        auto best = counts.begin();  // ties go to the lexicographically first pair
        for (auto it = counts.begin(); it != counts.end(); ++it)
            if (it->second > best->second) best = it;
        const auto pair = best->first;
        v.merges.push_back(pair);
        v.tokens.push_back(pair.first + pair.second);
        for (auto& s : seqs) {
            std::vector<std::string> out;
            for (size_t i = 0; i < s.size(); ++i) {
                if (i + 1 < s.size() && s[i] == pair.first && s[i + 1] == pair.second) {
                    out.push_back(pair.first + pair.second);
                    ++i;
                } else {
                    out.push_back(s[i]);
                }
            }
            s.swap(out);
        }
    }
    v.tokens.push_back("<|startoftext|>");
    v.tokens.push_back("<|endoftext|>");
    return v;
}

void writeTokenizerFolder(const std::string& dir, const BpeVocabulary& v, int modelMaxLength) {
    namespace fs = std::filesystem;
    fs::create_directories(dir);
    nlohmann::ordered_json vocab;
    for (size_t i = 0; i < v.tokens.size(); ++i) vocab[v.tokens[i]] = i;
    writeAtomic(fs::path(dir) / "vocab.json", vocab.dump() + "\n");
    std::string merges = "#version: 0.2\n";
    for (const auto& m : v.merges) merges += m.first + " " + m.second + "\n";
    writeAtomic(fs::path(dir) / "merges.txt", merges);
    nlohmann::ordered_json special = {{"bos_token", "<|startoftext|>"},
                                      {"eos_token", "<|endoftext|>"},
                                      {"pad_token", "<|endoftext|>"},
                                      {"unk_token", "<|endoftext|>"}};
    writeAtomic(fs::path(dir) / "special_tokens_map.json", special.dump(2) + "\n");
    nlohmann::ordered_json config = special;
    config["tokenizer_class"] = "CLIPTokenizer";
    config["model_max_length"] = modelMaxLength;
    config["do_lower_case"] = true;
    config["errors"] = "replace";
    writeAtomic(fs::path(dir) / "tokenizer_config.json", config.dump(2) + "\n");
}

}  // namespace hs::demo
