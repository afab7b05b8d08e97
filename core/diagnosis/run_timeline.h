#pragma once
// A run record read as one sequence in call order (see first_failure.h): the text encoder's
// probes, the text embedding, each step's probes followed by that step's latents, the VAE's
// probes, the image. Shared by the first-failure search and the layer heatmap. No LibTorch.
#include <cstddef>
#include <string>
#include <vector>

#include "records/probe_types.h"

namespace hs {

struct RunRecord;

struct TimelineEntry {
    enum class Kind { Probe, TextEmbedding, Latents, Image };
    Kind kind = Kind::Probe;
    size_t probeIndex = 0;  // into RunRecord::probes (Kind::Probe)
    size_t stepIndex = 0;   // into RunRecord::steps (Kind::Latents)
    int step = -1;
    bool afterLoop = false;  // after the sampling loop (the VAE decode), for step -1 entries
    std::string point;       // probe name, or "text_embedding" / "latents" / "image"
    std::string component;
    const TensorStats* stats = nullptr;  // points into the record: keep it alive
};

std::vector<TimelineEntry> runTimeline(const RunRecord& run);

// The names of the run's components with the denoiser and the VAE roles ("" when it has none).
std::string denoiserComponent(const RunRecord& run);
std::string vaeComponent(const RunRecord& run);

}  // namespace hs
