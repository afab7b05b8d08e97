#pragma once
// Words of a prompt that the demo model was never taught. Its tokenizer gives every word of its
// grammar one whole-word token; any other word still tokenizes (byte by byte), into pieces the
// text encoder never saw in training, so the picture ignores it or goes astray. Naming those
// words beats a silent drop. No LibTorch.
#include <string>
#include <vector>

namespace hs {
class ClipTokenizer;
}

namespace hs::demo {

// The pipeline class of the demo model's model_index.json.
inline constexpr const char* kDemoPipelineClass = "HalfscopeDemoPipeline";

// Each word of `prompt` (as the tokenizer splits it, lower-cased) that is not one whole-word
// token of the tokenizer, or not a word of a caption grammar, once, in prompt order.
std::vector<std::string> wordsNotUnderstood(const ClipTokenizer& tokenizer,
                                            const std::string& prompt);

// The words the demo model understands: its tokenizer's whole-word tokens that are words of the
// caption grammar (the grammar it was trained on may be an older one: its own vocabulary rules).
std::vector<std::string> understoodWords(const ClipTokenizer& tokenizer);

// "words not understood by the demo model: \"pretty\", \"octagon\" (...)"; "" when none.
std::string notUnderstoodNote(const std::vector<std::string>& words);

}  // namespace hs::demo
