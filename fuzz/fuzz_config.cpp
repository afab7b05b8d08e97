// libFuzzer target: the config.json readers of every model family. The first byte picks the
// family (mod 10), the rest is the config text. It is parsed as readBoundedJson does (nesting
// checked first); a config the reader accepts must keep the sizes the model is built from sane:
// each derived size (head width, inner width, down factor, ...) is computed, so a zero divisor,
// a signed overflow or a bad shift is a UBSan report. A ConfigError refusal is fine; any other
// escape goes to hs::fuzz::escapedException (abort under HALFSCOPE_FUZZ_STRICT=1).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "fuzz_util.h"
#include "io/bounded_read.h"
#include "families/anima/anima_config.h"
#include "families/clip/clip_config.h"
#include "families/cosmos/cosmos_config.h"
#include "families/flux/flux_config.h"
#include "families/qwen/qwen_config.h"
#include "families/qwenimage/qwenimage_config.h"
#include "families/t5/t5_config.h"
#include "families/unet/unet_config.h"
#include "families/vae/vae_config.h"
#include "families/wan_vae/wan_vae_config.h"

namespace {

volatile int64_t g_sink;

void use(int64_t v) {
    g_sink = v;
}

void readFamily(int family, const nlohmann::json& j) {
    switch (family) {
        case 0: {
            const auto c = hs::clipTextConfigFromJson(j, j.size() % 2);
            use(c.headDim());
            break;
        }
        case 1: {
            const auto c = hs::t5ConfigFromJson(j);
            use(c.innerDim());
            break;
        }
        case 2: {
            const auto c = hs::qwenConfigFromJson(j);
            use(c.qWidth() + int64_t(c.kvWidth()));
            break;
        }
        case 3: {
            const auto c = hs::unetConfigFromJson(j);
            use(c.levels() + int64_t(c.downFactor()) + c.contextDim() + c.timeEmbedDim());
            break;
        }
        case 4: {
            const auto c = hs::AutoencoderKLConfig::fromJson(j);
            use(c.downFactor());
            break;
        }
        case 5: {
            const auto c = hs::FluxConfig::fromJson(j);
            use(c.innerDim() + int64_t(c.outDim()));
            break;
        }
        case 6: {
            const auto c = hs::QwenImageConfig::fromJson(j);
            use(c.innerDim() + int64_t(c.outDim()));
            break;
        }
        case 7: {
            const auto c = hs::CosmosConfig::fromJson(j);
            use(c.innerDim() + int64_t(c.ffDim()) + c.patchInDim() + c.outDim() +
                c.maxPatchedPositions());
            break;
        }
        case 8: {
            const auto c = hs::AnimaAdapterConfig::fromJson(j);
            use(c.headDim() + int64_t(c.mlpDim()));
            break;
        }
        default: {
            const auto c = hs::WanVaeConfig::fromJson(j);
            use(c.downFactor());
            break;
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    nlohmann::json j;
    try {
        hs::checkJsonDepth(text);
        j = nlohmann::json::parse(text);
    } catch (const std::exception&) {
        return 0;  // not JSON: the file reader refuses it before any family sees it
    }
    try {
        readFamily(data[0] % 10, j);
    } catch (const hs::ConfigError&) {
    } catch (const std::exception& e) {
        hs::fuzz::escapedException(e);
    }
    return 0;
}
