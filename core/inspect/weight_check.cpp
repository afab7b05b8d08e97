#include "inspect/weight_check.h"

#include <chrono>
#include <filesystem>

#include "inspect/weight_stats.h"

namespace hs {

uint64_t safetensorsBytes(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) return fs::file_size(path, ec);
    uint64_t n = 0;
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".safetensors")
            n += it->file_size(ec);
    return n;
}

MessageText loadTimeWeightCheckMessage(const std::string& modelPath, uint64_t maxBytes) {
    try {
        const uint64_t bytes = safetensorsBytes(modelPath);
        if (bytes > maxBytes) return {{"weight_check.skipped", {std::to_string(bytes >> 20)}}};
        const auto t0 = std::chrono::steady_clock::now();
        const WeightRiskReport r = predictFromWeights(modelPath);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        MessageText m = {{"weight_check.done", {std::to_string(int(ms + 0.5))}}};
        const MessageText line = componentLineMessage(r);
        m.insert(m.end(), line.begin(), line.end());
        return m;
    } catch (const std::exception& e) {
        return {{"weight_check.failed", {e.what()}}};
    }
}

std::string loadTimeWeightCheck(const std::string& modelPath, uint64_t maxBytes) {
    return englishText(loadTimeWeightCheckMessage(modelPath, maxBytes));
}

}  // namespace hs
