#pragma once
// Where a run's first non-finite value appeared and how it spread.
//
// The run is read as one timeline in call order: the text encoder's probes (step -1, before the
// loop), the text embedding, then for each sampling step its probes and the latents after it,
// then the VAE's probes (step -1, after the loop) and the decoded image. The first failure is
// the first entry of that timeline holding NaN or Inf. With probes recorded it is a probe point;
// with probing off it falls back to the text embedding, a step's latents or the image.
// No LibTorch.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "records/message.h"
#include "records/probe_types.h"

namespace hs {

struct RunRecord;

enum class NonFiniteKind { PosInf, NegInf, NaN };
std::string nonFiniteKindName(NonFiniteKind k);  // "+Inf", "-Inf", "NaN"

// One hop of the spread: where the non-finite values were first seen in each later stage.
struct SpreadLink {
    std::string label;         // a block, or "text_embedding", "latents", "image"
    std::string point;         // the probe point (or the label for the record statistics)
    std::string component;     // "text_encoder", "transformer", "vae" ...
    int step = -1;             // sampling step, -1 outside the loop
    int64_t nonFinite = 0;     // NaN + Inf count at that point
    std::string text() const;  // "transformer.transformer_blocks.2 (step 0)", "vae.decoder"
};

struct FirstFailure {
    int step = -1;           // sampling step, -1 for text encoding and VAE decode
    std::string component;   // first path segment: text_encoder / transformer / vae
    std::string point;       // the probe point, or "text_embedding" / "latents" / "image"
    std::string block;       // blockOf(point) for probes; the label for record statistics
    bool fromProbe = false;  // false: found in the step / image statistics (probing off)
    size_t probeIndex = 0;   // position in RunRecord::probes when fromProbe
    ProbeLevel granularity = ProbeLevel::Module;
    Format format = Format::FP32;
    Execution execution = Execution::Native;

    // The primary kind: Inf when any Inf is present (an overflow is the origin of NaN, as
    // Inf - Inf or 0 * Inf), the sign that is more numerous (ties: +Inf); NaN otherwise.
    NonFiniteKind kind = NonFiniteKind::NaN;
    int64_t nan = 0, posInf = 0, negInf = 0;
    int64_t count = 0;  // elements at the point

    // The entry recorded just before it (its input, roughly), when there is one.
    std::optional<std::string> inputPoint;
    double inputAbsMax = 0;  // |max| over the finite values of that entry (NaN when unknown)
    int inputStep = -1;

    // Origin first, then one link per later stage that the values reached, in run order, e.g.
    //   transformer.transformer_blocks.2 (step 0) -> latents (step 0) -> vae.decoder -> image
    std::vector<SpreadLink> chain;
    bool reachedImage = false;

    std::string kindText() const;        // "+Inf (12 +Inf, 0 -Inf, 3 NaN of 4096)"
    std::string chainText() const;       // the links joined with " -> "
    std::string summary() const;         // one sentence for a report heading or a log line
    MessageText summaryMessage() const;  // the same sentence as messages
};

// nullopt when the run holds no non-finite value anywhere (probes, steps, image).
std::optional<FirstFailure> findFirstFailure(const RunRecord& run);

}  // namespace hs
