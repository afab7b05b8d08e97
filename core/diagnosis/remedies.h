#pragma once
// The remedies people use for a failing fp16 run, as candidate plans to try on the user's model,
// and the ranked table of what each did. The caller runs the trials (pipeline/precision_search.h).
//
// Candidates, for the blocks that fail (the bisection's kept blocks, else the block of each fp16
// component's first non-finite value) and, except for formats, for their components as a whole
// (one plan naming every such component):
//   format         the blocks in bf16, and in fp32 (the plan rules of a format change);
//   clamp          PATH=clamp: outputs and residual streams clipped to fp16's range (diffusers);
//   scale          PATH=scale:K, K from the reference run's largest value there, one bit spare
//                  (stable-diffusion.cpp scales output projections by 2^-5);
//   fp32-residual  PATH=fp32-residual (ComfyUI's Cosmos/Anima).
// Ranking: rows that pass first, those whose weights fit the target's memory before those that
// do not (known memory only); then fewest plan rules added; then smallest image difference to
// the reference (differences within 0.001 count as equal); then the cheapest on the target
// device: bf16 0.1 where it runs fast and 3 where it is slow (compute capability < 8.0), fp32 2
// on a GPU with fast fp16 (tensor cores lost, twice the weights) and 0.5 elsewhere, clamp 0.01,
// scale 0.02, fp32-residual 0.05. The costs speak for the target, not for the machine that ran
// the trials: the time per step column is measured here, under emulation, and says so.
// No LibTorch.
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "diagnosis/bisection.h"
#include "diagnosis/device_info.h"
#include "records/message.h"
#include "records/run_types.h"

namespace hs {

enum class RemedyKind { Format, Clamp, Scale, Fp32Residual };
std::string remedyKindName(RemedyKind k);  // "format", "clamp", "scale", "fp32-residual"
// "format,clamp,scale,fp32-residual" in any order; throws std::invalid_argument naming the
// accepted names on an unknown, repeated or empty entry.
std::vector<RemedyKind> parseRemedyKinds(const std::string& text);

struct RemedyCandidate {
    RemedyKind kind = RemedyKind::Format;
    std::string scope;                 // "blocks" or "component"
    std::vector<std::string> modules;  // what the added rules name, in call order
    Format format = Format::FP16;      // format rows: bf16 or fp32
    int scaleBits = 0;                 // scale rows: K
    int changes = 0;                   // plan rules added to the failing plan
    PrecisionPlan plan;                // the failing plan plus those rules
};

// The candidates of `kinds`. absMaxOf(module) is the largest |value| the reference run stored
// inside the module (0 when unknown): it sets scale's K.
std::vector<RemedyCandidate> remedyCandidates(
    const PrecisionPlan& failing, const std::vector<std::string>& failingBlocks,
    const std::vector<RemedyKind>& kinds,
    const std::function<double(const std::string&)>& absMaxOf);
// What a candidate changes, in words: "clamp transformer_blocks 0-1", "the whole vae in fp32".
std::string remedyAction(const RemedyCandidate& c);
// The same words as a message (englishText of it is remedyAction).
MessageText remedyActionMessage(const RemedyCandidate& c);
// K such that absMax * 2^-K stays below fp16's largest value with one bit to spare (1..24).
int scaleBitsFor(double absMax);

struct RemedyRow {
    int rank = 0;  // 1 = the best
    RemedyCandidate candidate;
    std::string planText;
    TrialOutcome outcome;
    bool passed = false;
    std::string why;
    MessageText whyMessage;  // the same as a message (empty in reports written before it)
    double psnr = std::numeric_limits<double>::quiet_NaN();  // dB against the reference image
    double secondsPerStep = 0;                               // measured here
    double extraWeightMB = 0;  // weights beyond fp16 on the target, MB (10^6 bytes)
    double costScore = 0;
    bool fits = true;  // the model's weights under the plan fit the target (true when unknown)
    std::string cost;  // for the target, in words
    MessageText costMessage;  // the cost as a message (empty in reports written before it)
};

struct RemedyTable {
    std::string referencePlan;  // what the image difference is measured against
    std::string target;         // DeviceInfo::describe() of the target
    std::vector<std::string> failingBlocks;
    std::vector<RemedyRow> rows;  // ranked, best first
    std::string message;          // one sentence for the user
    MessageText messageText;      // that sentence as a message (empty in older reports)
    bool anyPassed() const;
};

// Fills each row's cost for `target` (components give the parameter counts; a block's share
// of its component assumes blocks of equal size, `blocksOf` counts a component's blocks), then
// ranks the rows and writes the message.
void rankRemedies(RemedyTable& table, const DeviceInfo& target,
                  const std::vector<ComponentInfo>& components,
                  const std::function<int(const std::string&)>& blocksOf);

// PSNR in dB of two 8-bit images from their mean squared difference of levels; +Inf when equal.
double psnrFromMse(double mse);

}  // namespace hs
