#include "denoising/clip_tokenizers.h"

#include "base/pipeline_error.h"
#include "denoising/token_bounds.h"

namespace hs {

ClipTokenizer clipTokenizerFor(const PipelineFolder& folder, const std::string& slot,
                               TextEncoderComponent* encoder, const std::string& encoderSlot) {
    const ModelFileSlot* row = modelFileSlot(slot);
    const std::string option = row ? row->option : "--tokenizer";
    const PipelineComponent* c = folder.find(slot);
    if (!c)
        throw PipelineError(folder.dir + ": no " + slot + " for " + encoderSlot +
                            "; give its folder with " + option + " DIR (vocab.json + merges.txt)");
    ClipTokenizer tokenizer = ClipTokenizer::fromFolder(c->dir);
    if (c->config.is_object() && c->config.contains("pad_token")) {
        ClipSpecialTokens s = tokenizer.specialTokens();
        s.pad = c->config["pad_token"].get<std::string>();
        tokenizer = tokenizer.withSpecialTokens(s);
    }
    // Ids past the embedding would index out of it: a tokenizer of another CLIP (the bundled
    // CLIP-L one for a file set whose encoder is not CLIP-L) is refused.
    if (!encoder) return tokenizer;
    const TokenTable table = encoder->tokenTable();
    if (table.rows > 0 && tokenizer.vocabSize() > size_t(table.rows))
        throw PipelineError(folder.dir + ": the CLIP tokenizer (" + c->dir + ") has " +
                            std::to_string(tokenizer.vocabSize()) + " ids but " + encoderSlot +
                            " embeds only " + std::to_string(table.rows) +
                            " (vocab_size): give its own tokenizer with " + option + " DIR");
    // The count fits, but ids may leave gaps: the highest one must have a row too.
    checkIdsFitEmbedding(highestVocabularyId(c->dir), table.rows, encoderSlot);
    if (table.maxPositions > 0 && tokenizer.modelMaxLength() > table.maxPositions)
        throw PipelineError(folder.dir + ": the CLIP tokenizer (" + c->dir + ") pads to " +
                            std::to_string(tokenizer.modelMaxLength()) + " tokens but " +
                            encoderSlot + " has " + std::to_string(table.maxPositions) +
                            " positions");
    return tokenizer;
}

}  // namespace hs
