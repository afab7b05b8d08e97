#include "records/run_forecast.h"

#include <algorithm>
#include <vector>

namespace hs {

namespace {

// The full VAE decodes of a run: its preview decodes and the final one.
int fullDecodes(const RunConfig& c) {
    return 1 + (c.decodeEvery > 0 ? std::max(c.steps, 0) / c.decodeEvery : 0);
}

double pixels(const RunConfig& c) {
    return double(std::max(c.width, 1)) * double(std::max(c.height, 1));
}

}  // namespace

bool forecastsRun(const RunRecord& m, const RunConfig& next) {
    const RunConfig& c = m.config;
    return !m.cancelled && m.error.empty() && !m.steps.empty() && m.seconds > 0 &&
           c.modelDir == next.modelDir && c.modelFiles == next.modelFiles && c.plan == next.plan &&
           c.device == next.device && (c.guidance > 1) == (next.guidance > 1);
}

std::optional<RunForecast> forecastRun(const RunRecord& m, const RunConfig& next) {
    if (!forecastsRun(m, next)) return std::nullopt;
    std::vector<double> times;
    double stepsTotal = 0;
    for (size_t i = 0; i < m.steps.size(); ++i) {
        stepsTotal += m.steps[i].seconds;
        if (i > 0 || m.steps.size() == 1) times.push_back(m.steps[i].seconds);
    }
    std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
    const double step = times[times.size() / 2];
    const double fixed = std::max(0.0, m.seconds - stepsTotal);
    const double scale = pixels(next) / pixels(m.config);
    RunForecast f;
    f.seconds = (std::max(next.steps, 0) * step +
                 fixed * double(fullDecodes(next)) / double(fullDecodes(m.config))) *
                scale;
    if (m.estimate && m.estimate->weightBytes >= 0) {
        f.weightsOnly = m.estimate->activationBytes < 0;
        f.bytes = m.estimate->weightBytes + std::max(0.0, m.estimate->activationBytes) * scale;
    }
    return f;
}

}  // namespace hs
