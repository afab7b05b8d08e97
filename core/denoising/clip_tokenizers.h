#pragma once
// A CLIP text encoder's tokenizer, as the pipelines that use one read it: from the pipeline's
// tokenizer slot, with the special tokens its inline config gives (a file set's bundled CLIP-L
// tokenizer standing in for an OpenCLIP one pads with "!"), checked against the encoder it feeds.
#include <string>

#include "io/model_folder.h"
#include "models/roles.h"
#include "text/clip_tokenizer.h"

namespace hs {

// The tokenizer in `folder`'s `slot` ("tokenizer", "tokenizer_2"). Throws PipelineError when the
// slot is missing (naming the option that gives it) or when its ids or length do not fit
// `encoder` (a CLIP text encoder; other encoders are not checked), TokenizerError for its files.
ClipTokenizer clipTokenizerFor(const PipelineFolder& folder, const std::string& slot,
                               TextEncoderComponent* encoder, const std::string& encoderSlot);

}  // namespace hs
