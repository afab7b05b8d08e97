#pragma once
// "Predict from weights": before any run, from the stored weights alone, which modules of a model
// are fp16 safe, at risk, or will overflow; a clean run's HeadroomReport, when there is one,
// replaces the guess for the modules it measured (measured beats guessed).
//
// The idea is ComfyUI's Z-Image check generalised. ComfyUI (comfy/model_detection.py,
// detect_unet_config, the Lumina 2 / Z-Image branch) allows fp16 for a Z-Image checkpoint only
// when the population std of one norm gain vector, layers.{n_layers-2}.ffn_norm1.weight, is
// below 0.42: a single statistic of one weight, calibrated on one model family. That threshold
// does not transfer to other models, so it is not applied here; what transfers is the premise:
// the weights a bf16-trained model grew bound the activations it will produce.
//
// Rules, per layer (a weight key without its .weight/.bias suffix), with the statistics read
// in the stored dtype (max |w|, RMS, non-finite count):
//   1. certain: a stored value that is NaN/Inf, or whose magnitude rounds to Inf in fp16
//      (|w| >= 65520, see headroom.h), cannot be stored in fp16 at all: "will overflow".
//      65504 < |w| < 65520 saturates to 65504: "at risk".
//   2. heuristic, estimated output peak of the layer for an input of RMS 1 (what a normalised
//      stream gives):
//        linear / conv weight W [out, in...]: RMS of W x = ‖W‖_F / sqrt(out) = rms(W) *
//          sqrt(fan_in) for an isotropic input of RMS 1; the peak is taken as kPeakToRms times
//          that (activations of trained models are heavy-tailed), plus the bias's max |b|;
//        embedding tables (token/position embeddings): the output is a row: max |w|;
//        norm gains g (1-D weights of *norm* modules): the output is g times a normalised
//          value: kPeakToRms * max |g| + max |b|; a gain of kNormGainAtRisk or more is reported
//          as at risk by itself (the norm multiplies the stream's RMS by that much).
//      estimated peak >= 65504: "will overflow"; >= 65504 / kAtRiskFactor: "at risk"; else safe.
//   The estimate ignores what the stream carries into the layer (a residual stream that is
//   already large is unseen by its writers' weights) and cancellation between layers, so it is
//   a guess in both directions: a model flagged "at risk" may run fine, and a model called safe
//   may still overflow through growth across blocks. Only rule 1 is a certainty.
// A module's verdict is its worst layer's; a component's is its worst module's. Modules are
// blockOf() of the weight paths (diagnosis/blocks.h).
// With a clean run's HeadroomReport: every block it recorded (points that run in fp16, before
// any non-finite value) is judged by the run's peak instead: >= 65520 will overflow, >= 65504 /
// kAtRiskFactor at risk, else safe.
// No LibTorch.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "records/format_types.h"
#include "records/message.h"

namespace hs {

struct HeadroomReport;

// Heuristic thresholds (see above).
constexpr double kWeightRiskPeakToRms = 8.0;     // peak / RMS of an activation
constexpr double kWeightRiskAtRiskFactor = 4.0;  // "at risk" within 2 bits of 65504
constexpr double kWeightRiskNormGainAtRisk = 100.0;

enum class Fp16Risk { Safe = 0, AtRisk = 1, WillOverflow = 2 };
std::string fp16RiskName(Fp16Risk r);  // "fp16 safe", "at risk", "will overflow"

// One stored tensor's statistics, computed in its stored dtype (inspect/weight_stats.h).
struct WeightStats {
    std::string component;  // "transformer"
    std::string key;        // "transformer_blocks.0.attn.to_out.0.weight"
    std::string dtype;      // "BF16"
    std::vector<int64_t> shape;
    int64_t nonFinite = 0;
    double maxAbs = 0;  // largest finite |w|
    double rms = 0;     // over the finite values
};

struct ModuleRisk {
    std::string module;     // "transformer.transformer_blocks.0"
    std::string component;  // "transformer"
    Fp16Risk risk = Fp16Risk::Safe;
    std::string reason;        // the worst layer's, in words
    std::string layer;         // that layer ("transformer.transformer_blocks.0.attn.to_out.0")
    double estimatedPeak = 0;  // worst layer's estimated (or measured) output peak
    double maxAbsWeight = 0;   // over the module's tensors
    int tensors = 0;
    bool measured = false;  // from a clean run's headroom, not the weights
};

struct ComponentRisk {
    std::string component;
    Fp16Risk risk = Fp16Risk::Safe;
    std::string reason;       // the worst module's reason; "" when safe
    std::string worstModule;  // "" when safe
    double peak = 0;          // the worst module's estimated (or measured) peak
    bool measured = false;    // that peak was measured by a clean run
    int modules = 0, atRisk = 0, willOverflow = 0;
};

struct WeightRiskReport {
    std::vector<ModuleRisk> modules;        // in first-seen order of the weights
    std::vector<ComponentRisk> components;  // in first-seen order
    std::vector<std::string> notes;         // tensors skipped, unreliable headroom ...
    // Up to `n` modules, riskiest first (verdict, then estimated peak).
    std::vector<ModuleRisk> riskiest(size_t n) const;
    const ComponentRisk* component(const std::string& name) const;
    const ModuleRisk* module(const std::string& name) const;
};

// The weight-only prediction.
WeightRiskReport assessWeights(const std::vector<WeightStats>& stats);

// Replaces the guess by the run's measurement for the blocks `run` covers (adds those it has
// and the weights did not), then recomputes the components.
void applyHeadroom(WeightRiskReport& report, const HeadroomReport& run);

// "text_encoder fp16 safe; transformer at risk (context_embedder, estimated peak 2.1e+04); vae
// fp16 safe": one short line for a log.
std::string componentLine(const WeightRiskReport& r);
MessageText componentLineMessage(const WeightRiskReport& r);  // the same line as a message
// Per-component verdicts and the `top` riskiest modules with reasons, for a terminal.
std::string formatWeightRisk(const WeightRiskReport& r, size_t top = 5);
nlohmann::json toJson(const WeightRiskReport& r, size_t top = 5);

}  // namespace hs
