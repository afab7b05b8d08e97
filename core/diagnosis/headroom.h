#pragma once
// Overflow headroom to fp16, from a run that did not fail (fp32 or bf16): how far each probe
// point's largest magnitude stays below fp16's largest finite value, and which points would
// turn into Inf if the run were made in fp16.
//
// Headroom in bits: log2(65504 / max|x|); negative means max|x| is above fp16's largest finite
// value (+inf when the point only ever held zeros).
//
// Overflow threshold: 65520, not 65504. A value is stored in fp16 by round-to-nearest-even:
// values in (65504, 65520) round down to 65504 and stay finite; 65520 is exactly halfway
// between 65504 and 65536 (= 2^16, one step past the largest exponent) and ties go to the even
// mantissa, i.e. to 65536, which does not exist: Inf. So a point is predicted to overflow when
// max|x| >= 65520, and only "saturates" (loses nothing but its last bits) when 65504 < max|x| <
// 65520. This is what an fp16 GPU does when it accumulates in fp32 and stores the op's output
// in fp16, and what Halfscope's CPU emulation does. (A bf16 run cannot hold a value in the
// saturating band: bf16's neighbours of 65504 are 65280 and 65536.)
//
// The prediction reads the values of this run: in fp16 the values differ by rounding, so a
// point within a fraction of a bit of the threshold may go either way; and everything after the
// first overflow changes, so only the first predicted failure is a firm prediction.
// No LibTorch.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "records/precision_plan.h"
#include "records/message.h"
#include "records/probe_types.h"

namespace hs {

struct RunRecord;

// The fp16 rounding boundary described above.
constexpr double kFp16OverflowThreshold = 65520.0;

struct PointHeadroom {
    std::string name;
    std::string block;
    std::string component;
    ProbeLevel granularity = ProbeLevel::Module;
    size_t firstIndex = 0;       // index of its first record in RunRecord::probes (call order)
    int records = 0;             // how many times it was recorded (once per step, or once)
    double maxAbs = 0;           // max |x| over all its records (finite values)
    int peakStep = -1;           // step of that maximum (-1: outside the sampling loop)
    double headroomBits = 0;     // log2(65504 / maxAbs); +inf for maxAbs == 0
    int64_t overFp16 = 0;        // largest per-record count of |x| > 65504
    bool overflows = false;      // maxAbs >= 65520: becomes Inf in fp16
    bool saturates = false;      // 65504 < maxAbs < 65520: rounds to 65504, stays finite
    int firstOverflowStep = -1;  // step of its first overflowing record (-1 outside the loop)
    bool runsInFp16 = true;      // false when the target plan keeps it out of fp16
    bool afterFailure = false;   // first recorded at or after this run's first non-finite value
};

struct PredictedFailure {
    std::string point;
    std::string block;
    int step = -1;
    double maxAbs = 0;
    size_t probeIndex = 0;
};

struct HeadroomOptions {
    // The fp16 plan to predict for: points it resolves to another format are not predicted to
    // overflow. Unset: every point is assumed to run in fp16.
    std::optional<PrecisionPlan> targetPlan;
};

struct HeadroomReport {
    std::vector<PointHeadroom> points;  // every probe point, in call order
    std::vector<size_t> overflowing;    // indices into points: predicted to overflow, call order
    std::optional<PredictedFailure> firstFailure;  // the earliest overflowing record of the run
    double minHeadroomBits = 0;  // over the points that run in fp16 (+inf when none)
    bool reliable = true;        // false when the run itself held non-finite values
    std::string note;            // why it is not reliable, or empty
    MessageText noteMessage;     // the note as messages
};

HeadroomReport analyzeHeadroom(const RunRecord& run, const HeadroomOptions& options = {});

// log2(65504 / maxAbs), +inf for 0, NaN for NaN.
double fp16HeadroomBits(double maxAbs);

}  // namespace hs
