// T5 tokenizer (FLUX.1's tokenizer_2): ids against SentencePiece's own spm_encode on a small
// Unigram model trained here with spm_train (no real T5 spiece.model is reachable), the fast
// tokenizer's differences (trailing whitespace, special tokens in the text), padding and
// truncation as the FluxPipeline asks for them, errors, and megabyte-long prompts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "single_file_helpers.h"
#include "test_util.h"
#include "text/sentencepiece_model.h"
#include "text/t5_tokenizer.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

double msSinceT5Tokenizer(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string runCommand(const std::string& cmd, int& status) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
        status = -1;
        return out;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    status = pclose(p);
    return out;
}

// A few hundred varied English sentences (capitals, punctuation, digits), then accented, CJK and
// emoji lines. No '<', '>', '{', '☃' or 'Ж': those stay unknown to the model.
std::string trainingCorpus() {
    const char* adjectives[] = {"red",   "quiet",  "ancient", "glowing", "tiny",   "enormous",
                                "rusty", "golden", "misty",   "crowded", "silver", "lonely"};
    const char* nouns[] = {"cat",    "lighthouse", "robot",  "forest", "castle", "river",
                           "teapot", "dragon",     "violin", "train",  "garden", "mountain"};
    const char* verbs[] = {"sleeps", "stands", "floats", "waits", "shines", "rests", "sings"};
    const char* places[] = {
        "on a hill", "under the stars", "in the rain",      "near the sea",
        "at dawn",   "beside a lake",   "in a busy market", "inside an old library"};
    const char* styles[] = {"oil painting", "photograph", "watercolor sketch", "3D render",
                            "pencil drawing"};
    std::ostringstream out;
    int i = 0;
    for (const char* a : adjectives)
        for (const char* n : nouns)
            for (const char* v : verbs)
                for (const char* p : places) {
                    if (++i % 17) continue;  // ~400 of the 5376 combinations
                    std::string line = std::string(i % 3 ? "A " : "The ") + a + " " + n + " " + v +
                                       " " + p + ", " + styles[i % 5] + ".";
                    if (i % 51 == 0)
                        for (char& c : line) c = char(std::toupper(static_cast<unsigned char>(c)));
                    if (i % 7 == 0) line += " Shot on 35mm film (1987)!";
                    out << line << "\n";
                }
    const char* others[] = {
        "Café crème à la française, très élégant.",
        "El niño está en la montaña con su mamá.",
        "Über den Wolken muß die Freiheit grenzenlos sein.",
        "Façade, naïve, résumé, jalapeño, São Paulo.",
        "一只猫坐在窗台上。",
        "东京的夜景非常美丽。",
        "山の上の古い城。",
        "고양이가 창문 옆에 앉아 있다.",
        "A cat 🐱 under cherry blossoms 🌸 and a rocket 🚀.",
        "Stars ✨ and hearts ❤️ everywhere!",
    };
    for (int r = 0; r < 3; ++r)
        for (const char* o : others) out << o << "\n";
    return out.str();
}

class T5TokenizerTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        int status = 0;
        runCommand("command -v spm_train >/dev/null 2>&1 && command -v spm_encode >/dev/null 2>&1",
                   status);
        if (status != 0) {
            s_skip =
                "spm_train / spm_encode are not on PATH (Debian package 'sentencepiece'; "
                "packaging/install-deps.sh --tests installs it): no model to test with";
            return;
        }
        s_dir = test::tempDir("t5tok");
        std::ofstream(s_dir + "/corpus.txt") << trainingCorpus();
        // T5's conventions: pad 0, </s> 1, <unk> 2, no bos; nmt_nfkc normalisation (the default).
        const auto t0 = std::chrono::steady_clock::now();
        const std::string cmd = "spm_train --input=" + s_dir +
                                "/corpus.txt --model_prefix=" + s_dir +
                                "/spiece --model_type=unigram --vocab_size=200 "
                                "--pad_id=0 --eos_id=1 --unk_id=2 --bos_id=-1 "
                                "--character_coverage=1.0 --num_threads=1 > " +
                                s_dir + "/spm_train.log 2>&1";
        runCommand(cmd, status);
        if (status != 0 || !fs::exists(s_dir + "/spiece.model")) {
            s_skip = "spm_train failed: see " + s_dir + "/spm_train.log";
            return;
        }
        std::cout << "[ t5 tokenizer ] spm_train: " << msSinceT5Tokenizer(t0) << " ms\n";
        s_tok = new T5Tokenizer(T5Tokenizer::fromFolder(s_dir));
    }
    static void TearDownTestSuite() {
        delete s_tok;
        s_tok = nullptr;
        if (!s_dir.empty()) fs::remove_all(s_dir);
    }
    void SetUp() override {
        if (!s_skip.empty()) GTEST_SKIP() << s_skip;
        ASSERT_NE(s_tok, nullptr);
    }

    const T5Tokenizer& tok() const { return *s_tok; }
    static std::string modelPath() { return s_dir + "/spiece.model"; }

    // spm_encode's output for each line (ids or pieces), split on spaces.
    static std::vector<std::vector<std::string>> spmEncode(const std::vector<std::string>& lines,
                                                           const char* format) {
        const std::string in = s_dir + "/spm_input.txt";
        {
            std::ofstream f(in, std::ios::binary);
            for (const auto& l : lines) f << l << "\n";
        }
        int status = 0;
        const std::string out = runCommand(
            "spm_encode --model=" + modelPath() + " --output_format=" + format + " < " + in,
            status);
        EXPECT_EQ(status, 0) << "spm_encode failed";
        std::vector<std::vector<std::string>> result;
        std::istringstream ls(out);
        std::string line;
        while (std::getline(ls, line)) {
            std::vector<std::string> fields;
            std::istringstream fsn(line);
            std::string w;
            while (fsn >> w) fields.push_back(w);
            result.push_back(fields);
        }
        EXPECT_EQ(result.size(), lines.size());
        return result;
    }
    static std::vector<std::vector<int>> spmIds(const std::vector<std::string>& lines) {
        std::vector<std::vector<int>> ids;
        for (const auto& fields : spmEncode(lines, "id")) {
            ids.emplace_back();
            for (const auto& f : fields) ids.back().push_back(std::stoi(f));
        }
        return ids;
    }
    static std::vector<int> spmIds(const std::string& line) {
        return spmIds(std::vector<std::string>{line}).at(0);
    }
    static std::vector<int> withEos(std::vector<int> ids) {
        ids.push_back(1);
        return ids;
    }

    static std::string s_skip;
    static std::string s_dir;
    static T5Tokenizer* s_tok;
};

std::string T5TokenizerTest::s_skip;
std::string T5TokenizerTest::s_dir;
T5Tokenizer* T5TokenizerTest::s_tok = nullptr;

// Prompts typed for this test, none from the training corpus.
const std::vector<std::string> kPrompts = {
    "A Majestic Lion resting on a rock at sunset, highly detailed, 8k.",
    "Two robots playing chess in a smoky jazz bar; cinematic lighting!",
    "What's the QUICKEST way to the moon? (asked the tiny fox)",
    "portrait of an old sailor -- dramatic, oil on canvas",
    "Crème brûlée on a marble table, soft morning light",
    "Ein großer Hund läuft über die Straße",
    "一只小狗在雪地里奔跑",
    "Sunset over Mount Fuji 🌅 with cherry blossoms 🌸",
    "  leading spaces and   inner   runs",
    "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ and ﬁne ligatures",
};

TEST_F(T5TokenizerTest, UsesT5sIdConventions) {
    EXPECT_EQ(tok().padId(), 0);
    EXPECT_EQ(tok().eosId(), 1);
    EXPECT_EQ(tok().unkId(), 2);
    EXPECT_EQ(tok().vocabSize(), 300u);  // 200 pieces + 100 extra ids
    EXPECT_EQ(tok().modelMaxLength(), 512);
    EXPECT_EQ(tok().idOf("</s>"), 1);
    EXPECT_EQ(tok().idOf("<pad>"), 0);
    EXPECT_EQ(tok().idOf("<extra_id_0>"), 299);
    EXPECT_EQ(tok().idOf("<extra_id_99>"), 200);
    EXPECT_FALSE(tok().idOf("<extra_id_100>").has_value());
    EXPECT_FALSE(tok().idOf("\xe2\x98\x83").has_value());  // ☃: not in the model
    EXPECT_EQ(tok().pieceOf(1), "</s>");
    EXPECT_EQ(tok().pieceOf(299), "<extra_id_0>");
    EXPECT_EQ(tok().pieceOf(300), "");
}

TEST_F(T5TokenizerTest, IdsAreSentencePiecesIdsThenEos) {
    const auto ids = spmIds(kPrompts);
    const auto pieces = spmEncode(kPrompts, "piece");
    int same = 0;
    for (size_t i = 0; i < kPrompts.size(); ++i) {
        const auto mine = tok().encode(kPrompts[i]);
        EXPECT_EQ(mine, withEos(ids[i])) << kPrompts[i];
        EXPECT_EQ(tok().pieces(kPrompts[i]), pieces[i]) << kPrompts[i];
        EXPECT_EQ(mine.back(), tok().eosId());
        same += mine == withEos(ids[i]);
    }
    std::cout << "[ t5 tokenizer ] prompts matching spm_encode + </s>: " << same << "/"
              << kPrompts.size() << "\n";
}

TEST_F(T5TokenizerTest, NormalisesWithTheModelAndKeepsCaseAndAccents) {
    // nmt_nfkc: full-width letters and ligatures become ASCII; case and accents stay.
    EXPECT_EQ(tok().encode("\xef\xbc\xa1 ﬁne"), tok().encode("A fine"));
    EXPECT_NE(tok().encode("CAT"), tok().encode("cat"));
    std::string joined;
    for (const auto& p : tok().pieces("Crème brûlée")) joined += p;
    EXPECT_EQ(joined,
              "\xe2\x96\x81"
              "Crème\xe2\x96\x81"
              "brûlée");
}

TEST_F(T5TokenizerTest, UnknownCharactersAreOneUnkPerRun) {
    const std::vector<std::string> texts = {"a snowman \xe2\x98\x83 in {curly} braces",
                                            "\xd0\x96\xd0\x96\xd0\x96 and \xe2\x98\x83\xe2\x98\x83",
                                            "<<<>>>"};
    const auto ref = spmIds(texts);
    for (size_t i = 0; i < texts.size(); ++i) {
        const auto ids = tok().encode(texts[i]);
        EXPECT_EQ(ids, withEos(ref[i])) << texts[i];
        EXPECT_NE(std::find(ids.begin(), ids.end(), tok().unkId()), ids.end()) << texts[i];
    }
    // Three unknown characters in a row: one unk, as SentencePiece and tokenizers fuse them.
    const auto run = tok().encode("\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83");
    EXPECT_EQ(std::count(run.begin(), run.end(), tok().unkId()), 1);
    EXPECT_EQ(tok().pieces("\xe2\x98\x83\xe2\x98\x83").back(), "\xe2\x98\x83\xe2\x98\x83");
}

TEST_F(T5TokenizerTest, LongUnknownRunsAreCutYetMatchSentencePiece) {
    // Runs past the 1 KB where the tokenizer hands SentencePiece parts of them.
    auto repeat = [](const std::string& s, int n) {
        std::string out;
        for (int i = 0; i < n; ++i) out += s;
        return out;
    };
    const std::vector<std::string> texts = {
        repeat("\xe2\x98\x83", 3000) + " snow " + repeat("{", 5000) + "x" + repeat("<", 1500),
        "word" + repeat("\xd0\x96", 2000) + "rain" + repeat("\xe2\x98\x83\xd0\x96", 700) + ".",
        repeat("a\xe2\x98\x83\xe2\x98\x83"
               "b ",
               2000) +
            "end",
    };
    const auto ref = spmIds(texts);
    const auto refPieces = spmEncode(texts, "piece");
    for (size_t i = 0; i < texts.size(); ++i) {
        EXPECT_EQ(tok().encode(texts[i]), withEos(ref[i])) << "text " << i;
        EXPECT_EQ(tok().pieces(texts[i]), refPieces[i]) << "text " << i;
    }
}

TEST_F(T5TokenizerTest, TrailingWhitespaceIsOneSpaceToken) {
    // T5TokenizerFast keeps whitespace at the end as a "▁" word (tokenizers issue #1250:
    // "   space   " -> [628, 3, 1] for t5-v1_1); SentencePiece (and the slow tokenizer) drop it.
    const int space = tok().idOf("\xe2\x96\x81").value();
    const auto base = spmIds("a red cat");
    auto expected = base;
    expected.push_back(space);
    expected.push_back(1);
    EXPECT_EQ(tok().encode("a red cat "), expected);
    EXPECT_EQ(tok().encode("a red cat \t \n"), expected);
    EXPECT_EQ(tok().encode("a red cat\xe3\x80\x80"), expected);  // U+3000: a space after NFKC
    EXPECT_EQ(tok().encode("   a red cat   "), expected);
    EXPECT_EQ(tok().encode("a red cat"), withEos(base));
    EXPECT_EQ(tok().encode("   "), (std::vector<int>{space, 1}));
    EXPECT_EQ(tok().pieces("a red cat ").back(), "\xe2\x96\x81");
}

TEST_F(T5TokenizerTest, SpecialTokensInTheTextAreTheirIds) {
    // The fast tokenizer splits added tokens out first and tokenizes each piece of text alone
    // (each with its own "▁" prefix; transformers PR #26678 shows ['▁Hey', '▁', '</s>', '▁.'...]).
    const int space = tok().idOf("\xe2\x96\x81").value();
    const auto ref = spmIds({"a cat", "dog", "x"});
    std::vector<int> expected = ref[0];
    expected.push_back(space);  // "a cat " ends in a space
    expected.push_back(1);      // </s>
    expected.insert(expected.end(), ref[1].begin(), ref[1].end());
    expected.push_back(1);
    EXPECT_EQ(tok().encode("a cat </s> dog"), expected);
    std::vector<int> extra = ref[2];
    extra.push_back(299);  // <extra_id_0>
    extra.push_back(0);    // <pad>
    extra.insert(extra.end(), ref[2].begin(), ref[2].end());
    extra.push_back(2);  // <unk>
    extra.push_back(1);
    EXPECT_EQ(tok().encode("x<extra_id_0><pad>x<unk>"), extra);
    std::vector<std::string> pieces = spmEncode({"x"}, "piece").at(0);  // "▁x", or "▁" "x"
    pieces.push_back("</s>");
    EXPECT_EQ(tok().pieces("x</s>"), pieces);
}

TEST_F(T5TokenizerTest, EmptyPromptIsEosThenPadding) {
    EXPECT_EQ(tok().encode(""), (std::vector<int>{1}));
    EXPECT_TRUE(tok().pieces("").empty());
    EXPECT_EQ(tok().encodePadded("", 6), (std::vector<int>{1, 0, 0, 0, 0, 0}));
}

TEST_F(T5TokenizerTest, PadsToMaxLength) {
    const std::string prompt = "A Majestic Lion resting on a rock";
    const auto ids = tok().encode(prompt);
    ASSERT_LT(ids.size(), 60u);
    const auto padded = tok().encodePadded(prompt, 64);
    ASSERT_EQ(padded.size(), 64u);
    EXPECT_TRUE(std::equal(ids.begin(), ids.end(), padded.begin()));
    for (size_t i = ids.size(); i < padded.size(); ++i) EXPECT_EQ(padded[i], 0) << i;
    EXPECT_EQ(tok().encodePadded(prompt, int(ids.size())), ids);  // exactly full: no change
}

TEST_F(T5TokenizerTest, TruncationKeepsEosLast) {
    std::string longPrompt;
    for (int i = 0; i < 120; ++i) longPrompt += kPrompts[size_t(i) % 5] + " ";
    const auto full = tok().encode(longPrompt);
    ASSERT_GT(full.size(), 600u);
    // FLUX.1-dev's 512, schnell's 256, and a tiny 5.
    for (int n : {512, 256, 5}) {
        const auto ids = tok().encodePadded(longPrompt, n);
        ASSERT_EQ(ids.size(), size_t(n));
        EXPECT_TRUE(std::equal(ids.begin(), ids.end() - 1, full.begin())) << n;
        EXPECT_EQ(ids.back(), 1) << n;
    }
    const auto five = tok().encodePadded(kPrompts[0], 5);
    std::vector<int> expected(full.begin(), full.begin() + 4);
    expected.push_back(1);
    EXPECT_EQ(five, expected);
    EXPECT_EQ(tok().encodePadded(kPrompts[0], 1), (std::vector<int>{1}));
    EXPECT_THROW(tok().encodePadded(kPrompts[0], 0), std::invalid_argument);
    EXPECT_THROW(tok().encodePadded(kPrompts[0], -3), std::invalid_argument);
}

TEST_F(T5TokenizerTest, InvalidUtf8NamesTheByteOffset) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"ab\xff", "byte offset 2"},          {"cat \x80", "byte offset 4"},
        {"x\xe6\x97", "byte offset 1"},       {"\xc0\xaf", "byte offset 0"},
        {"ok \xed\xa0\x80", "byte offset 3"},
    };
    for (const auto& c : cases) {
        for (int fn = 0; fn < 3; ++fn) {
            try {
                if (fn == 0) tok().encode(c.first);
                if (fn == 1) tok().encodePadded(c.first, 16);
                if (fn == 2) tok().pieces(c.first);
                ADD_FAILURE() << "no error for case expecting " << c.second;
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find(c.second), std::string::npos) << e.what();
            }
        }
    }
    // Past the truncation point too.
    EXPECT_THROW(tok().encodePadded(std::string(100000, 'a') + " b\xff", 8), std::invalid_argument);
}

TEST_F(T5TokenizerTest, FolderWithoutSpieceModelNamesTheFile) {
    const std::string dir = test::tempDir("t5tok-missing");
    EXPECT_EQ(test::messageOf<TokenizerError>([&] { T5Tokenizer::fromFolder(dir); }),
              dir + "/spiece.model: missing: the T5 tokenizer needs spiece.model");
    fs::remove_all(dir);
}

TEST_F(T5TokenizerTest, CorruptModelIsAClearError) {
    const std::string dir = test::tempDir("t5tok-corrupt");
    std::mt19937 rng(7);
    std::string bytes(4096, '\0');
    for (char& c : bytes) c = char(rng());
    std::ofstream(dir + "/spiece.model", std::ios::binary) << bytes;
    try {
        T5Tokenizer::fromFolder(dir);
        ADD_FAILURE() << "no error";
    } catch (const TokenizerError& e) {
        const std::string what = e.what();
        std::cout << "[ t5 tokenizer ] corrupt model: " << what << "\n";
        EXPECT_EQ(what.rfind(dir + "/spiece.model: SentencePiece cannot load it: ", 0), 0u) << what;
    }
    fs::remove_all(dir);
}

TEST_F(T5TokenizerTest, ReadsTokenizerConfig) {
    const std::string dir = test::tempDir("t5tok-config");
    fs::copy_file(modelPath(), dir + "/spiece.model");
    // As FLUX.1's tokenizer_2/tokenizer_config.json writes it (schnell's length here).
    std::ofstream(dir + "/tokenizer_config.json") << R"({
        "eos_token": {"content": "</s>", "lstrip": false},
        "pad_token": "<pad>", "unk_token": "<unk>", "extra_ids": 100,
        "additional_special_tokens": ["<extra_id_0>", "<extra_id_1>"],
        "model_max_length": 256, "legacy": true, "tokenizer_class": "T5Tokenizer"})";
    const auto t = T5Tokenizer::fromFolder(dir);
    EXPECT_EQ(t.modelMaxLength(), 256);
    EXPECT_EQ(t.vocabSize(), 300u);
    EXPECT_EQ(t.idOf("<extra_id_1>"), 298);
    EXPECT_EQ(t.encode(kPrompts[0]), tok().encode(kPrompts[0]));
    // transformers' "unset" length keeps T5's 512.
    std::ofstream(dir + "/tokenizer_config.json") << R"({"model_max_length": 1e30})";
    EXPECT_EQ(T5Tokenizer::fromFolder(dir).modelMaxLength(), 512);
    // A special token the model does not have.
    std::ofstream(dir + "/special_tokens_map.json") << R"({"eos_token": "<eos>"})";
    try {
        T5Tokenizer::fromFolder(dir);
        ADD_FAILURE() << "no error";
    } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find("the eos token '<eos>' is not in the model"),
                  std::string::npos)
            << e.what();
    }
    fs::remove_all(dir);
}

TEST_F(T5TokenizerTest, FromSerializedModelMatchesTheFolder) {
    std::ifstream in(modelPath(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const auto t = T5Tokenizer::fromSerializedModel(bytes.str());
    for (const auto& p : kPrompts) EXPECT_EQ(t.encode(p), tok().encode(p)) << p;
    EXPECT_THROW(T5Tokenizer::fromSerializedModel("not a model"), TokenizerError);
}

TEST_F(T5TokenizerTest, MegabytePromptsAreFastAndKeepTheFirstIds) {
    // Each reference: a prefix with the same first 511 ids ("": fewer ids in all).
    const std::string phrase = "A Majestic Lion resting on a rock at sunset, ";
    const std::vector<test::MegabytePrompt> cases = {
        {"phrase", test::megabyteOf(phrase),
         test::megabyteOf(phrase).substr(0, 80 * phrase.size())},
        {"one word", std::string(1 << 20, 'a'), std::string(20000, 'a')},
        {"cjk", test::megabyteOf("一只猫坐在窗台上"),
         test::megabyteOf("一只猫坐在窗台上").substr(0, 24000)},
        {"emoji", test::megabyteOf("🐱🌸"), test::megabyteOf("🐱🌸").substr(0, 4000)},
        {"unknown run", test::megabyteOf("\xe2\x98\x83"), ""},
        {"unknown ascii run", std::string(1 << 20, '{'), ""},
        {"spaces", std::string(1 << 20, ' '), ""},
        {"special tokens", test::megabyteOf("<extra_id_1>"),
         test::megabyteOf("<extra_id_1>").substr(0, 12 * 600)},
    };
    for (const auto& c : cases) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto ids = tok().encodePadded(c.text, 512);
        const double ms = msSinceT5Tokenizer(t0);
        std::cout << "[ t5 tokenizer ] 1 MB " << c.name << ", max_length 512: " << ms << " ms\n";
        EXPECT_LT(ms, 1000.0) << c.name;
        ASSERT_EQ(ids.size(), 512u);
        if (!c.reference.empty()) {
            auto expected = tok().encode(c.reference);  // whole, not truncated
            ASSERT_GT(expected.size(), 512u) << c.name;
            expected.resize(511);
            expected.push_back(1);
            EXPECT_EQ(ids, expected) << c.name;
        } else {
            EXPECT_LE(std::count(ids.begin(), ids.end(), 0), 510) << c.name;
        }
    }
    // The unknown run is one unk all the same: [▁, unk, </s>, <pad>…].
    const auto run = tok().encodePadded(test::megabyteOf("\xe2\x98\x83"), 4);
    EXPECT_EQ(run, (std::vector<int>{tok().idOf("\xe2\x96\x81").value(), 2, 1, 0}));
}

}  // namespace
// SentencePiece indexes its piece table with an id unchecked: an id outside the vocabulary
// (from a saved run, a hostile config) is refused by name, never read past the table.
TEST_F(T5TokenizerTest, SentencePieceIdsOutsideTheVocabularyAreRefused) {
    std::ifstream in(modelPath(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const SentencePieceModel sp(bytes, modelPath());
    ASSERT_EQ(sp.pieceSize(), 200);
    EXPECT_EQ(sp.idToPiece(2), "<unk>");
    for (const int id : {-1, 200, 999999999}) {
        const std::string m = test::errorOf<TokenizerError>([&] { sp.idToPiece(id); });
        EXPECT_NE(m.find("token id " + std::to_string(id) + " is outside the vocabulary of 200"),
                  std::string::npos)
            << m;
    }
    EXPECT_EQ(tok().pieceOf(999999999), "");
}

}  // namespace hs
