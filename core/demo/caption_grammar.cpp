#include "demo/caption_grammar.h"

#include <cctype>
#include <random>
#include <set>
#include <sstream>

namespace hs::demo {

namespace {

// Indexed by Size and Position.
const std::vector<std::vector<std::string>> kSizeWords = {{"small", "tiny", "little"},
                                                          {"large", "big"}};
const std::vector<std::vector<std::string>> kPositionPhrases = {
    {"on the left", "on the left side", "to the left", "at the left"},
    {"on the right", "on the right side", "to the right", "at the right"},
    {"at the top", "near the top", "in the upper half"},
    {"at the bottom", "near the bottom", "in the lower half"},
    {"in the centre", "in the center", "in the middle", "at the centre"},
};
// Words that say nothing about the scene; the text encoder learns to ignore them.
const std::vector<std::string> kDistractors = {"simple", "flat", "nice", "plain"};
const std::vector<std::string> kJoiners = {" and ", " and ", " with ", ", and "};
constexpr double kNoArticle = 0.2;

using Rng = std::mt19937_64;

bool chance(Rng& rng, double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

const std::string& pick(Rng& rng, const std::vector<std::string>& v) {
    return v[rng() % v.size()];
}

bool startsWithVowel(const std::string& w) {
    return !w.empty() && std::string("aeiou").find(w[0]) != std::string::npos;
}

// "a big red circle on the left", "an orange ring", "a green tiny star in the middle", and one in
// five without its article ("red circle", "big red circle on the left"), as prompts are typed: a
// text encoder that never saw a caption open with the object's colour reads "red circle, blue
// background" as red background ("{bg} background, {objs}" opens with a colour).
std::string objectPhrase(const SceneObject& o, bool sizeStated, bool positionStated, Rng& rng) {
    std::vector<std::string> adjectives;
    if (chance(rng, 0.1)) adjectives.push_back(pick(rng, kDistractors));
    const std::string colour = palette()[o.colour].name;
    if (sizeStated) {
        const std::string& size = pick(rng, kSizeWords[int(o.size)]);
        if (chance(rng, 0.8))
            adjectives.insert(adjectives.end(), {size, colour});
        else
            adjectives.insert(adjectives.end(), {colour, size});
    } else {
        adjectives.push_back(colour);
    }
    std::string s;
    if (!chance(rng, kNoArticle)) s = startsWithVowel(adjectives.front()) ? "an " : "a ";
    for (const auto& a : adjectives) s += a + " ";
    s += shapeNames()[int(o.shape)];
    if (positionStated) s += " " + pick(rng, kPositionPhrases[int(o.position)]);
    return s;
}

void replaceAll(std::string& s, const std::string& what, const std::string& with) {
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
        s.replace(at, what.size(), with);
}

}  // namespace

const std::vector<std::string>& captionTemplates(TemplateSet set) {
    static const std::vector<std::string> training = {
        "{objs}, {bg} background",
        "{objs} on a {bg} background",
        "{objs} against {bg}",
        "{objs} over a {bg} backdrop",
        "{objs}, {bg} backdrop",
        "{objs} on {bg}",
        "{bg} background, {objs}",
        "{bg} background with {objs}",
        "a picture of {objs} on a {bg} background",
        "an image of {objs}, {bg} background",
        "a drawing of {objs} against {bg}",
        "please draw {objs} on {bg}",
        "there is {objs} on a {bg} background",
        "{objs}",
        "a picture of {objs}",
        "an image of {objs}",
        "there is {objs}",
    };
    // Never drawn by the trainer: the same words in arrangements it has not seen.
    static const std::vector<std::string> heldOut = {
        "{objs} against a {bg} backdrop",
        "{objs} with a {bg} background",
        "{bg} backdrop, {objs}",
        "a drawing of {objs} over a {bg} backdrop",
        "please draw {objs}, {bg} background",
        "there is {objs} against {bg}",
        "please draw {objs}",
        "a drawing of {objs}",
    };
    return set == TemplateSet::Training ? training : heldOut;
}

Caption describeScene(const Scene& scene, uint64_t seed, TemplateSet set,
                      const PhrasingOdds& odds) {
    Rng rng(seed * 0xD1B54A32D192ED03ull + 7);
    Caption c;
    c.backgroundStated = chance(rng, odds.background);
    std::vector<const std::string*> templates;
    for (const auto& t : captionTemplates(set))
        if ((t.find("{bg}") != std::string::npos) == c.backgroundStated) templates.push_back(&t);
    std::string text = *templates[rng() % templates.size()];

    std::string objs;
    for (size_t i = 0; i < scene.objects.size(); ++i) {
        c.sizeStated.push_back(chance(rng, odds.size));
        c.positionStated.push_back(chance(rng, odds.position));
        if (i) objs += pick(rng, kJoiners);
        objs += objectPhrase(scene.objects[i], c.sizeStated[i], c.positionStated[i], rng);
    }
    replaceAll(text, "{objs}", objs);
    replaceAll(text, "{bg}", palette()[scene.background].name);

    if (chance(rng, 0.05)) {
        for (auto& ch : text) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    } else if (chance(rng, 0.25)) {
        text[0] = char(std::toupper(static_cast<unsigned char>(text[0])));
    }
    if (chance(rng, 0.25))
        text += ".";
    else if (chance(rng, 0.05))
        text += "!";
    c.text = text;
    return c;
}

std::vector<std::string> grammarWords() {
    std::set<std::string> words = {",", ".", "!", "a", "an", "and", "with"};
    auto addWords = [&](const std::string& phrase) {
        std::istringstream in(phrase);
        for (std::string w; in >> w;) {
            if (w.front() == '{') continue;
            if (w.back() == ',') w.pop_back();
            words.insert(w);
        }
    };
    for (auto set : {TemplateSet::Training, TemplateSet::HeldOut})
        for (const auto& t : captionTemplates(set)) addWords(t);
    for (const auto& v : kSizeWords)
        for (const auto& w : v) words.insert(w);
    for (const auto& v : kPositionPhrases)
        for (const auto& p : v) addWords(p);
    for (const auto& w : kDistractors) words.insert(w);
    for (const auto& c : palette()) words.insert(c.name);
    for (const auto& s : shapeNames()) words.insert(s);
    return {words.begin(), words.end()};
}

}  // namespace hs::demo
