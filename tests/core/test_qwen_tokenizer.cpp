// Qwen2 tokenizer (Qwen2 / Qwen2.5-VL / Qwen3 text encoders): the real Qwen2 vocabulary and merges
// (resources/tokenizers/qwen2, from a Qwen2-1.5B-Instruct folder) against ids the Hugging Face
// tokenizer gave for llama.cpp's tokenizer tests, pre-token splits of the regex module, special
// tokens, NFC, digits, whitespace rules, decoding, batches, errors, and huge prompts.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"
#include "text/byte_level_bpe.h"
#include "text/clip_bpe.h"
#include "text/qwen_pretokenizer.h"
#include "text/qwen_tokenizer.h"
#include "text/unicode.h"
#include "text/utf8.h"

namespace hs {
namespace {

namespace fs = std::filesystem;
using test::dataPath;

double msSinceQwenTokenizer(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double s_loadMs = 0;

// The Qwen2 tokenizer Halfscope bundles for single files (resources/tokenizers/qwen2).
std::string qwenDir() {
    return dataPath("../../resources/tokenizers/qwen2");
}

const QwenTokenizer& qwen2() {
    static const QwenTokenizer tok = [] {
        const auto t0 = std::chrono::steady_clock::now();
        QwenTokenizer t = QwenTokenizer::fromFolder(qwenDir());
        s_loadMs = msSinceQwenTokenizer(t0);
        return t;
    }();
    return tok;
}

std::string readFileQwenTokenizer(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// llama.cpp's models/ggml-vocab-qwen2.gguf.{inp,out}: texts separated by
// "\n__ggml_vocab_test__\n", and one line of ids per text made by the Hugging Face tokenizer
// (convert_hf_to_gguf_update.py: tokenizer.encode(text, add_special_tokens=False)).
std::vector<std::pair<std::string, std::vector<int>>> llamaCppCases() {
    const std::string inp = readFileQwenTokenizer(dataPath("qwen_tokenizer/llama_cpp_qwen2.inp"));
    const std::string out = readFileQwenTokenizer(dataPath("qwen_tokenizer/llama_cpp_qwen2.out"));
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::pair<std::string, std::vector<int>>> cases;
    std::istringstream lines(out);
    for (size_t pos = 0;;) {
        const size_t at = inp.find(sep, pos);
        if (at == std::string::npos) break;
        std::string line;
        std::getline(lines, line);
        std::istringstream nums(line);
        std::vector<int> ids;
        for (int id; nums >> id;) ids.push_back(id);
        cases.emplace_back(inp.substr(pos, at - pos), ids);
        pos = at + sep.size();
    }
    return cases;
}

template <class F>
void expectTokenizerError(F&& f, const std::string& needle) {
    try {
        f();
        ADD_FAILURE() << "no TokenizerError (expected one naming '" << needle << "')";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
}

TEST(QwenTokenizer, LoadsTheQwen2Folder) {
    const auto& tok = qwen2();
    std::cout << "[ qwen tokenizer ] loading vocab.json + merges.txt (151,643 tokens, 151,387 "
                 "merges): "
              << s_loadMs << " ms\n";
    EXPECT_LT(s_loadMs, 20000.0);  // generous: the machine is shared; ~0.3 s typical
    EXPECT_EQ(tok.vocabSize(), 151646u);
    EXPECT_EQ(tok.padId(), 151643);
    EXPECT_EQ(tok.modelMaxLength(), 32768);
    EXPECT_EQ(tok.paddingSide(), PaddingSide::Left);  // this folder's tokenizer_config.json
    EXPECT_EQ(tok.idOf("<|endoftext|>"), 151643);
    EXPECT_EQ(tok.idOf("<|im_start|>"), 151644);
    EXPECT_EQ(tok.idOf("<|im_end|>"), 151645);
    EXPECT_EQ(tok.tokenOf(21927), "\xc4\xa0Hello");  // "ĠHello"
    EXPECT_EQ(tok.addedTokens().size(), 3u);
}

TEST(QwenTokenizer, MatchesTheHuggingFaceIdsOfLlamaCppsTests) {
    const auto cases = llamaCppCases();
    ASSERT_EQ(cases.size(), 46u);
    int passed = 0;
    for (const auto& [text, ids] : cases) {
        const auto got = qwen2().encode(text);
        EXPECT_EQ(got, ids) << "text: " << text;
        passed += got == ids;
        // The texts are NFC already, so decoding gives them back byte for byte.
        EXPECT_EQ(qwen2().decode(got), text);
    }
    std::cout << "[ qwen tokenizer ] llama.cpp / HF cases passed: " << passed << "/" << cases.size()
              << "\n";
}

// cases.json: bench/reference/qwen_tokenizer_reference.py write — the regex module's splits and
// a Python port of Qwen2Tokenizer (itself checked against the llama.cpp ids) on random mixes.
TEST(QwenTokenizer, MatchesTheRegexModuleOnRandomMixes) {
    const auto j =
        nlohmann::json::parse(readFileQwenTokenizer(dataPath("qwen_tokenizer/cases.json")));
    int passed = 0, total = 0;
    for (const auto& c : j["cases"]) {
        const std::string text = c["text"];
        const auto ids = qwen2().encode(text);
        std::vector<std::string> pieces;
        // The regex's pieces of the text between added tokens, as UTF-8.
        std::string rest = text;
        for (const auto& t : qwen2().addedTokens())
            for (size_t p; (p = rest.find(t.content)) != std::string::npos;)
                rest.replace(p, t.content.size(), "\x01");
        size_t start = 0;
        auto flush = [&](size_t end) {
            if (end <= start) return;
            std::u32string seg = decodeUtf8(rest.substr(start, end - start));
            seg = nfc(seg);
            for (const auto& [b, e] : qwenPretokenize(seg))
                pieces.push_back(encodeUtf8(seg.substr(b, e - b)));
        };
        for (size_t i = 0; i < rest.size(); ++i)
            if (rest[i] == '\x01') flush(i), start = i + 1;
        flush(rest.size());
        const bool ok = ids == c["ids"].get<std::vector<int>>() &&
                        pieces == c["pieces"].get<std::vector<std::string>>();
        EXPECT_TRUE(ok) << "text: " << text;
        passed += ok;
        ++total;
    }
    std::cout << "[ qwen tokenizer ] regex-module cases passed: " << passed << "/" << total << "\n";
    EXPECT_EQ(total, 309);
}

TEST(QwenTokenizer, SpecialTokensAreKeptWhole) {
    const auto ids = qwen2().encode("<|im_start|>user\nA cat<|im_end|>\n<|im_start|>assistant\n");
    ASSERT_GE(ids.size(), 6u);
    EXPECT_EQ(ids.front(), 151644);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), 151644), 2);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), 151645), 1);
    // The text after a special token starts a new segment: "user" without a leading space.
    EXPECT_EQ(ids[1], *qwen2().idOf("user"));
    EXPECT_EQ(qwen2().decode(ids), "<|im_start|>user\nA cat<|im_end|>\n<|im_start|>assistant\n");
    // A broken special token is plain text.
    const auto partial = qwen2().encode("<|im_start");
    EXPECT_EQ(std::count(partial.begin(), partial.end(), 151644), 0);
    EXPECT_GT(partial.size(), 1u);
    EXPECT_EQ(qwen2().encode("<|endoftext|><|endoftext|>"), (std::vector<int>{151643, 151643}));
}

TEST(QwenTokenizer, NormalisesToNfcWithoutLowerCasing) {
    EXPECT_EQ(qwen2().encode("caf\x65\xcc\x81"), qwen2().encode("caf\xc3\xa9"));  // e + U+0301
    EXPECT_NE(qwen2().encode("Hello"), qwen2().encode("hello"));
    EXPECT_EQ(qwen2().decode(qwen2().encode("caf\x65\xcc\x81")), "caf\xc3\xa9");
}

TEST(QwenTokenizer, DigitsAreOneTokenEach) {
    const auto ids = qwen2().encode("2024");
    ASSERT_EQ(ids.size(), 4u);
    EXPECT_EQ(ids, (std::vector<int>{*qwen2().idOf("2"), *qwen2().idOf("0"), *qwen2().idOf("2"),
                                     *qwen2().idOf("4")}));
    // A space before a digit stays alone: " 7" is two pieces.
    EXPECT_EQ(qwen2().pieces(" 7"), (std::vector<std::string>{"\xc4\xa0", "7"}));
}

TEST(QwenTokenizer, LineBreaksAndTrailingSpacesFollowTheRegex) {
    auto pre = [](const std::string& s) {
        std::vector<std::string> out;
        const std::u32string t = decodeUtf8(s);
        for (const auto& [b, e] : qwenPretokenize(t)) out.push_back(encodeUtf8(t.substr(b, e - b)));
        return out;
    };
    using V = std::vector<std::string>;
    EXPECT_EQ(pre("a  \n\n b "), (V{"a", "  \n\n", " b", " "}));  // \s*[\r\n]+, then \s+
    EXPECT_EQ(pre("a   b"), (V{"a", "  ", " b"}));                // \s+(?!\S) leaves one space
    EXPECT_EQ(pre("x!!\n\ny"), (V{"x", "!!\n\n", "y"}));          //  ?[^\s\p{L}\p{N}]+[\r\n]*
    EXPECT_EQ(pre("don't 'RE"), (V{"don", "'t", " '", "RE"}));    // contractions, any case
    EXPECT_EQ(pre("\tword\n word"), (V{"\tword", "\n", " word"}));
    EXPECT_EQ(qwen2().encode("\n\n"), (std::vector<int>{271}));
    EXPECT_EQ(qwen2().encode("Hello "), (std::vector<int>{9707, 220}));
}

TEST(QwenTokenizer, EmptyPromptGivesNoIds) {
    EXPECT_TRUE(qwen2().encode("").empty());
    const auto batch = qwen2().encodeBatchLongest({"", ""}, 512);
    EXPECT_EQ(batch.length, 0);
    ASSERT_EQ(batch.ids.size(), 2u);
    EXPECT_TRUE(batch.ids[0].empty());
    EXPECT_TRUE(batch.attentionMask[1].empty());
}

TEST(QwenTokenizer, BatchesPadToTheLongestAndTruncate) {
    const auto a = qwen2().encode("a cat");
    const auto b = qwen2().encode("a photo of a red fox in the snow");
    ASSERT_LT(a.size(), b.size());
    const auto batch = qwen2().encodeBatchLongest({"a cat", "a photo of a red fox in the snow"});
    ASSERT_EQ(batch.length, int(b.size()));
    EXPECT_EQ(batch.ids[1], b);
    EXPECT_EQ(std::vector<int>(batch.ids[0].begin(), batch.ids[0].begin() + a.size()), a);
    for (size_t i = 0; i < b.size(); ++i) {
        EXPECT_EQ(batch.attentionMask[0][i], i < a.size() ? 1 : 0);
        EXPECT_EQ(batch.attentionMask[1][i], 1);
        if (i >= a.size()) EXPECT_EQ(batch.ids[0][i], 151643);
    }
    const auto left = qwen2().encodeBatchLongest({"a cat", "a photo of a red fox in the snow"}, 0,
                                                 PaddingSide::Left);
    EXPECT_EQ(std::vector<int>(left.ids[0].end() - a.size(), left.ids[0].end()), a);
    EXPECT_EQ(left.attentionMask[0].front(), 0);
    EXPECT_EQ(left.attentionMask[0].back(), 1);
    const auto cut = qwen2().encodeBatchLongest({"a photo of a red fox in the snow"}, 3);
    EXPECT_EQ(cut.length, 3);
    EXPECT_EQ(cut.ids[0], std::vector<int>(b.begin(), b.begin() + 3));
    EXPECT_THROW(qwen2().encodeBatchLongest({"x"}, -1), std::invalid_argument);
}

TEST(QwenTokenizer, DecodeReplacesInvalidUtf8) {
    // " 🦙" (U+1F999) is "ĠðŁ" "¦" "Ļ": its four bytes cut after the second.
    const auto llama = qwen2().encode(" \xf0\x9f\xa6\x99");
    ASSERT_EQ(llama, (std::vector<int>{11162, 99, 247}));
    EXPECT_EQ(qwen2().decode({11162}), " \xef\xbf\xbd");  // a cut sequence is one U+FFFD
    EXPECT_EQ(qwen2().decode({99, 247}), "\xef\xbf\xbd\xef\xbf\xbd");  // two lone continuations
    EXPECT_EQ(qwen2().decode(llama), " \xf0\x9f\xa6\x99");
    EXPECT_EQ(utf8Lossy("a\xff"
                        "b\xe2\x82"
                        "c\xed\xa0\x80"),
              "a\xef\xbf\xbd"
              "b\xef\xbf\xbd"
              "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    expectTokenizerError([] { qwen2().decode({999999}); }, "999999");
    expectTokenizerError([] { qwen2().decode({-1}); }, "-1");
    EXPECT_THROW(qwen2().encode("ok \xc3"), std::invalid_argument);
}

TEST(QwenTokenizer, HugeInputsAreBounded) {
    qwen2();  // loaded outside the timings
    auto t0 = std::chrono::steady_clock::now();
    const auto run = qwen2().encode(std::string(100000, 'a'));
    const double runMs = msSinceQwenTokenizer(t0);
    EXPECT_FALSE(run.empty());
    EXPECT_EQ(qwen2().decode(run), std::string(100000, 'a'));
    std::string mb;
    while (mb.size() < (size_t(1) << 20)) mb += "a photo of a cat, \xe7\x8c\xab 12 ";
    t0 = std::chrono::steady_clock::now();
    const auto ids = qwen2().encode(mb);
    const double mbMs = msSinceQwenTokenizer(t0);
    t0 = std::chrono::steady_clock::now();
    const auto first = qwen2().encodeBatchLongest({mb}, 512);
    const double cutMs = msSinceQwenTokenizer(t0);
    std::cout << "[ qwen tokenizer ] 100k 'a': " << runMs << " ms; 1 MB prompt: " << mbMs << " ms ("
              << ids.size() << " ids); first 512 of it: " << cutMs << " ms\n";
    EXPECT_LT(runMs, 10000.0);  // generous: the machine is shared
    EXPECT_LT(mbMs, 20000.0);
    // One megabyte-long pre-token of each other kind: spaces, symbols (4-byte emoji), line
    // breaks, digits.
    for (const std::string& unit :
         {std::string(" "), std::string("\xf0\x9f\xa6\x99"), std::string("\n"), std::string("7")}) {
        std::string big;
        while (big.size() < (size_t(1) << 20)) big += unit;
        t0 = std::chrono::steady_clock::now();
        const auto bigIds = qwen2().encode(big);
        const double ms = msSinceQwenTokenizer(t0);
        EXPECT_LT(ms, 20000.0);
        EXPECT_EQ(qwen2().decode(bigIds), big);
        std::cout << "[ qwen tokenizer ] 1 MB of U+" << std::hex << decodeUtf8(unit)[0] << std::dec
                  << ": " << ms << " ms\n";
    }
    ASSERT_EQ(first.length, 512);
    EXPECT_EQ(first.ids[0], std::vector<int>(ids.begin(), ids.begin() + 512));
}

TEST(QwenTokenizer, ShortPromptsAreFast) {
    const std::string prompt =
        "a highly detailed oil painting of a red fox sitting in a snowy forest at dawn, soft "
        "golden light, mist between the pine trees, 8k, intricate fur texture, a highly "
        "detailed oil painting of a red fox sitting in a snowy forest at dawn, soft golden "
        "light, mist between the pine trees, 8k, intricate fur texture, a highly detailed oil "
        "painting of a red fox sitting in a snowy forest at dawn, soft golden light, mist "
        "between the pine trees";
    const auto ids = qwen2().encode(prompt);
    const int reps = 200;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) EXPECT_EQ(qwen2().encode(prompt).size(), ids.size());
    const double us = msSinceQwenTokenizer(t0) * 1000.0 / reps;
    std::cout << "[ qwen tokenizer ] 77-word prompt (" << ids.size() << " ids): " << us
              << " us per encode\n";
    EXPECT_LT(us, 50000.0);  // generous: the machine is shared
}

// A tiny vocabulary: the 256 byte symbols, two merges, one added token.
std::unordered_map<std::string, int> tinyVocab() {
    std::unordered_map<std::string, int> v;
    for (int b = 0; b < 256; ++b) v.emplace(byteSymbol(uint8_t(b)), b);
    v.emplace("ca", 256);
    v.emplace("cat", 257);
    return v;
}

void writeTinyTokenizerJson(const std::string& path, bool pairMerges) {
    nlohmann::json vocab = nlohmann::json::object();
    for (const auto& [k, id] : tinyVocab()) vocab[k] = id;
    nlohmann::json merges = pairMerges ? nlohmann::json::parse(R"([["c","a"],["ca","t"]])")
                                       : nlohmann::json::parse(R"(["c a","ca t"])");
    nlohmann::json j = {
        {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}},
        {"added_tokens", {{{"id", 300}, {"content", "<|endoftext|>"}, {"special", true}}}}};
    std::ofstream(path) << j.dump();
}

TEST(QwenTokenizer, LoadsTokenizerJsonWithEitherMergeFormat) {
    for (bool pairs : {false, true}) {
        const std::string dir = test::tempDir("qwen-tokenizer-json");
        writeTinyTokenizerJson(dir + "/tokenizer.json", pairs);
        const auto tok = QwenTokenizer::fromFolder(dir);
        EXPECT_EQ(tok.encode("a cat<|endoftext|>"),
                  (std::vector<int>{'a', ' ', 257, 300}))  // a, Ġ, cat, <|endoftext|>
            << "pairs: " << pairs;
        EXPECT_EQ(tok.vocabSize(), 259u);
        EXPECT_EQ(tok.padId(), 300);
        fs::remove_all(dir);
    }
}

// The real vocabulary as a tokenizers >= 0.20 tokenizer.json (merges as pairs), the form a
// folder without vocab.json / merges.txt has: the same ids for every llama.cpp case.
TEST(QwenTokenizer, RealVocabularyFromTokenizerJson) {
    const std::string dir = test::tempDir("qwen-tokenizer-real-json");
    {
        nlohmann::json vocab =
            nlohmann::json::parse(readFileQwenTokenizer(qwenDir() + "/vocab.json"));
        nlohmann::json merges = nlohmann::json::array();
        std::istringstream lines(readFileQwenTokenizer(qwenDir() + "/merges.txt"));
        std::string line;
        std::getline(lines, line);  // #version: 0.2
        while (std::getline(lines, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            const size_t sp = line.find(' ');
            if (sp != std::string::npos)
                merges.push_back({line.substr(0, sp), line.substr(sp + 1)});
        }
        nlohmann::json added = nlohmann::json::array();
        for (const auto& t : qwen2().addedTokens())
            added.push_back({{"id", t.id}, {"content", t.content}, {"special", t.special}});
        nlohmann::json j = {{"added_tokens", added},
                            {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
        std::ofstream(dir + "/tokenizer.json") << j.dump();
    }
    const auto t0 = std::chrono::steady_clock::now();
    const auto tok = QwenTokenizer::fromFolder(dir);
    std::cout << "[ qwen tokenizer ] loading the real tokenizer.json: " << msSinceQwenTokenizer(t0)
              << " ms\n";
    EXPECT_EQ(tok.vocabSize(), 151646u);
    EXPECT_EQ(tok.padId(), 151643);
    for (const auto& [text, ids] : llamaCppCases()) EXPECT_EQ(tok.encode(text), ids) << text;
    fs::remove_all(dir);
}

TEST(QwenTokenizer, VocabJsonEscapesAndIgnoreMerges) {
    const std::string dir = test::tempDir("qwen-tokenizer-escapes");
    // ensure_ascii: every non-ASCII byte symbol written as \uXXXX.
    nlohmann::json v = nlohmann::json::object();
    for (const auto& [k, id] : tinyVocab()) v[k] = id;
    v["<|endoftext|>"] = 300;
    std::ofstream(dir + "/vocab.json") << v.dump(1, '\t', true);
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\nc a\r\nca  t\n\n";
    const auto tok = QwenTokenizer::fromFolder(dir);
    EXPECT_EQ(tok.encode("a cat\n"), (std::vector<int>{'a', ' ', 257, '\n'}));
    EXPECT_EQ(tok.vocabSize(), 259u);
    fs::remove_all(dir);
    // tokenizers' ignore_merges: a pre-token that is a vocabulary entry is that entry.
    auto vocab = tinyVocab();
    vocab.emplace("ct", 258);
    const std::vector<std::pair<std::string, std::string>> merges = {{"c", "a"}};
    const QwenTokenizer plain(vocab, merges, {{"<|endoftext|>", 300, true}});
    const QwenTokenizer ignoring(vocab, merges, {{"<|endoftext|>", 300, true}}, "<|endoftext|>",
                                 32768, "test", true);
    EXPECT_EQ(plain.encode("ct"), (std::vector<int>{'c', 't'}));
    EXPECT_EQ(ignoring.encode("ct"), (std::vector<int>{258}));
}

TEST(QwenTokenizer, FolderErrorsNameWhatIsMissing) {
    const std::string dir = test::tempDir("qwen-tokenizer-errors");
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir + "/nope"); }, "nope");
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); }, "tokenizer.json");
    std::ofstream(dir + "/vocab.json") << R"({"a": 0})";
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); }, "merges.txt");
    std::ofstream(dir + "/vocab.json") << R"({"a": 0,)";
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\n";
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); }, "vocab.json");
    // A vocabulary without the byte 0x0A ('Ċ').
    {
        nlohmann::json v = nlohmann::json::object();
        for (int b = 0; b < 256; ++b)
            if (b != '\n') v[byteSymbol(uint8_t(b))] = b;
        v["<|endoftext|>"] = 300;
        std::ofstream(dir + "/vocab.json") << v.dump();
    }
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); }, "byte 0x0A");
    {
        nlohmann::json v = nlohmann::json::object();
        for (int b = 0; b < 256; ++b) v[byteSymbol(uint8_t(b))] = b;
        std::ofstream(dir + "/vocab.json") << v.dump();
    }
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\nc a\nca t x\n";
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); }, "merges.txt line 3");
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\nc a\n";
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); }, "'ca'");
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\n";
    // No added tokens: the default pad token <|endoftext|> is nowhere.
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); }, "pad token '<|endoftext|>'");
    std::ofstream(dir + "/tokenizer_config.json")
        << R"({"added_tokens_decoder": {"300": {"content": "<|endoftext|>"}},)"
        << R"( "model_max_length": 512, "padding_side": "right"})";
    const auto tok = QwenTokenizer::fromFolder(dir);
    EXPECT_EQ(tok.padId(), 300);
    EXPECT_EQ(tok.modelMaxLength(), 512);
    EXPECT_EQ(tok.encode("cat"), (std::vector<int>{'c', 'a', 't'}));
    std::ofstream(dir + "/tokenizer_config.json") << R"({"added_tokens_decoder": {"x": 1}})";
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); }, "added_tokens_decoder['x']");
    // An id the id table would be sized by (about 9 GB at 999,999,999): refused before any table.
    std::ofstream(dir + "/tokenizer_config.json")
        << R"({"added_tokens_decoder": {"999999999": {"content": "<|endoftext|>"}}})";
    const auto t0 = std::chrono::steady_clock::now();
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); },
                         "added_tokens_decoder['999999999']: the id is outside 0..16777216");
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
    fs::remove_all(dir);
}

}  // namespace
// Found by fuzz_qwen_tokenizer: a flag of another type escaped as nlohmann's type_error.
TEST(QwenTokenizer, FlagsThatAreNotBooleansAreNamed) {
    const std::string dir = test::tempDir("qwen-tokenizer-flags");
    std::ofstream(dir + "/tokenizer.json")
        << R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "ignore_merges": "yes"}})";
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); },
                         "'ignore_merges' must be true or false, got \"yes\"");
    std::ofstream(dir + "/tokenizer.json")
        << R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},)"
        << R"( "added_tokens": [{"id": 5, "content": "<x>", "special": "no"}]})";
    expectTokenizerError([&] { QwenTokenizer::fromFolder(dir); },
                         "'special' must be true or false");
    std::filesystem::remove_all(dir);
}

}  // namespace hs
