// The demo model's caption grammar: optional attributes that say what they state, held-out
// templates the trainer never draws, every word one token, and unknown words named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "demo/caption_grammar.h"
#include "demo/demo_config.h"
#include "demo/demo_tokenizer.h"
#include "demo/prompt_words.h"
#include "test_util.h"
#include "text/clip_tokenizer.h"

using namespace hs;
using namespace hs::demo;

namespace {

ClipTokenizer grammarTokenizerCaptionGrammar() {
    static const std::string dir = [] {
        const std::string d = test::tempDir("grammar-tok");
        writeTokenizerFolder(d, learnBpe(grammarWords()), kTextLength);
        return d;
    }();
    return ClipTokenizer::fromFolder(dir);
}

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool hasWord(const std::string& text, const std::string& word) {
    const std::string t = " " + lower(text) + " ";
    for (const char* after : {" ", ",", ".", "!"})
        if (t.find(" " + word + after) != std::string::npos) return true;
    return false;
}

const std::vector<std::string> kPositionWords = {"left",   "right",  "top",   "bottom", "centre",
                                                 "center", "middle", "upper", "lower"};
const std::vector<std::string> kSizeWords = {"small", "tiny", "little", "large", "big"};

}  // namespace

TEST(CaptionGrammar, EveryCaptionIsUnderstoodAndFitsTheTextLength) {
    const ClipTokenizer tok = grammarTokenizerCaptionGrammar();
    size_t longest = 0;
    for (auto set : {TemplateSet::Training, TemplateSet::HeldOut})
        for (uint64_t seed = 0; seed < 4000; ++seed) {
            const Caption c = describeScene(randomScene(seed), seed * 7 + 1, set,
                                            {1.0, 1.0, seed % 2 ? 1.0 : 0.0});
            EXPECT_TRUE(wordsNotUnderstood(tok, c.text).empty()) << c.text;
            longest = std::max(longest, tok.encode(c.text).size());
        }
    EXPECT_LE(longest, size_t(kTextLength)) << "bos + words + eos must fit without truncation";
    EXPECT_GE(longest, 20u);  // two objects with every attribute stated are long
}

TEST(CaptionGrammar, StatedFlagsMatchTheWordsAndUnstatedAttributesAreAbsent) {
    int sized = 0, unsized = 0, placed = 0, unplaced = 0, withBg = 0, withoutBg = 0;
    for (uint64_t seed = 0; seed < 3000; ++seed) {
        const Scene s = randomScene(seed);
        const Caption c = describeScene(s, seed, TemplateSet::Training);
        ASSERT_EQ(c.sizeStated.size(), s.objects.size());
        ASSERT_EQ(c.positionStated.size(), s.objects.size());
        if (s.objects.size() != 1) continue;
        const bool anySize = std::any_of(kSizeWords.begin(), kSizeWords.end(),
                                         [&](const auto& w) { return hasWord(c.text, w); });
        const bool anyPosition = std::any_of(kPositionWords.begin(), kPositionWords.end(),
                                             [&](const auto& w) { return hasWord(c.text, w); });
        EXPECT_EQ(anySize, c.sizeStated[0]) << c.text;
        EXPECT_EQ(anyPosition, c.positionStated[0]) << c.text;
        EXPECT_EQ(hasWord(c.text, palette()[s.background].name), c.backgroundStated) << c.text;
        EXPECT_TRUE(hasWord(c.text, palette()[s.objects[0].colour].name)) << c.text;
        EXPECT_TRUE(hasWord(c.text, shapeNames()[int(s.objects[0].shape)])) << c.text;
        (c.sizeStated[0] ? sized : unsized)++;
        (c.positionStated[0] ? placed : unplaced)++;
        (c.backgroundStated ? withBg : withoutBg)++;
    }
    for (int n : {sized, unsized, placed, unplaced, withBg, withoutBg}) EXPECT_GT(n, 150);
}

TEST(CaptionGrammar, PhrasingsVaryAndHeldOutTemplatesAreTheirOwn) {
    const auto& train = captionTemplates(TemplateSet::Training);
    const auto& held = captionTemplates(TemplateSet::HeldOut);
    for (const auto& t : held)
        EXPECT_EQ(std::find(train.begin(), train.end(), t), train.end()) << t;
    // One scene, many seeds: many different captions, with capitals, punctuation, synonyms
    // ("big"/"large"), articles ("an orange") or none ("orange ring", "Big orange ring").
    std::set<std::string> texts;
    bool capital = false, stop = false, big = false, large = false, an = false, bare = false;
    SceneObject o;
    o.colour = 5;  // orange
    o.size = Size::Large;
    Scene s;
    s.background = 2;
    s.objects = {o};
    for (uint64_t seed = 0; seed < 400; ++seed) {
        const std::string t = describeScene(s, seed, TemplateSet::Training, {1, 1, 1}).text;
        texts.insert(t);
        capital |= std::isupper(static_cast<unsigned char>(t[0])) != 0;
        stop |= t.back() == '.';
        big |= hasWord(t, "big");
        large |= hasWord(t, "large");
        an |= lower(t).find("an orange") != std::string::npos;
        const std::string l = lower(t);
        bare |= l.rfind("orange ", 0) == 0 || l.rfind("big orange ", 0) == 0 ||
                l.rfind("large orange ", 0) == 0;
    }
    EXPECT_GT(texts.size(), 100u);
    EXPECT_TRUE(capital && stop && big && large && an && bare);
}

TEST(PromptWords, NamesWordsOutsideTheGrammarOnceEach) {
    const ClipTokenizer tok = grammarTokenizerCaptionGrammar();
    EXPECT_TRUE(wordsNotUnderstood(tok, "A BIG Red Circle, on a blue background!").empty());
    EXPECT_EQ(wordsNotUnderstood(tok, "a teal hexagon and a teal circle over a blue backdrop"),
              (std::vector<std::string>{"teal", "hexagon"}));
    // A one-letter word is a base token, yet not one the model learned; non-Latin text too.
    EXPECT_EQ(wordsNotUnderstood(tok, "a red circle x 六角形"),
              (std::vector<std::string>{"x", "六角形"}));
    const std::string note = notUnderstoodNote({"teal", "hexagon"});
    EXPECT_NE(note.find("not understood by the demo model: \"teal\", \"hexagon\""),
              std::string::npos)
        << note;
    EXPECT_EQ(notUnderstoodNote({}), "");
}
