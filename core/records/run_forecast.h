#pragma once
// What a run will take before it starts, from a finished run of the same model, plan and device
// (the run's own estimate, pipeline/run_estimate.h, comes only after its second step).
//
// Method. The measured run's step time is the median of its steps after the first (the first
// builds kernels and warms caches; with one step, that step), and the rest of its time (text
// encoding, decodes, a reload) is its fixed part. The denoiser's work and the VAE's grow with the
// pixels, so both scale by the ratio of pixel counts; the fixed part also scales by the number of
// full decodes (1 + preview decodes). The text encoder does not grow with the pixels, so a larger
// image is forecast a little long, a smaller one a little short.
//   seconds = (steps * step time + fixed * decodes' / decodes) * pixels' / pixels
// Memory: the measured run's weights plus its activations scaled by the pixels (weights only
// where its activations were not measured).
// A run with classifier-free guidance does two denoiser passes a step where one without does
// one, and how a model's guidance works is not in the record: a measured run whose guidance is
// on (> 1) where the next one's is off, or the reverse, gives no forecast.
#include <optional>

#include "records/run_types.h"

namespace hs {

struct RunForecast {
    double seconds = -1;
    double bytes = -1;         // weights + activations; -1 when the measured run made no estimate
    bool weightsOnly = false;  // the measured run's activations were unknown (a GPU)
};

// Whether `measured` can forecast `next`: it finished (not cancelled, no error) with at least
// one step, on the same model (folder and file set), plan and device, with guidance on or off
// as `next` has it.
bool forecastsRun(const RunRecord& measured, const RunConfig& next);

// The forecast of `next` from `measured`, or nullopt where forecastsRun() is false.
std::optional<RunForecast> forecastRun(const RunRecord& measured, const RunConfig& next);

}  // namespace hs
