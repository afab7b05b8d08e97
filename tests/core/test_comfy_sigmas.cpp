// ComfyUI's model sigmas and sigma schedules (sampling/comfy_sigmas.h): properties and values
// derived by hand from the formulas, and the beta schedule's quantiles against the incomplete
// beta integral evaluated here by quadrature.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sampling/comfy_sigmas.h"

namespace hs {
namespace {

nlohmann::json sdSchedulerConfig() {
    return {{"_class_name", "EulerDiscreteScheduler"},
            {"num_train_timesteps", 1000},
            {"beta_start", 0.00085},
            {"beta_end", 0.012},
            {"beta_schedule", "scaled_linear"}};
}

ComfyModelSampling sdSampling() {
    return ComfyModelSampling::discrete(sdSchedulerConfig(), ComfyPrediction::Eps);
}

// Schedule `name` on SD's table, checked to hold steps + 1 sigmas ending in ComfyUI's 0 (padded
// with NaN when it does not, so that the callers' indexing stays in bounds).
std::vector<double> sdSchedule(const std::string& name, int steps) {
    auto s = comfySigmas(sdSampling(), name, steps);
    EXPECT_EQ(s.size(), size_t(steps) + 1) << name << " " << steps;
    EXPECT_EQ(s.back(), 0.0) << name << " " << steps;
    s.resize(size_t(steps) + 1, std::nan(""));
    return s;
}

// SD's training sigmas by the formula, in long double: betas on a line in sqrt space.
std::vector<long double> sdSigmasByHand() {
    std::vector<long double> out;
    const long double a = std::sqrt(0.00085L), b = std::sqrt(0.012L);
    long double acp = 1;
    for (int k = 0; k < 1000; ++k) {
        const long double s = a + (b - a) * k / 999;
        acp *= 1 - s * s;
        out.push_back(std::sqrt((1 - acp) / acp));
    }
    return out;
}

// sigma(t) of the discrete table by hand: log-linear between the neighbouring entries.
double tableSigma(const std::vector<float>& table, double t) {
    const auto lo = size_t(std::floor(t)), hi = size_t(std::ceil(t));
    const double w = t - std::floor(t);
    return std::exp((1 - w) * std::log(double(table[lo])) + w * std::log(double(table[hi])));
}

// I_x(a, b) by Simpson's rule after t = u^(1/a), which removes t^(a-1)'s singularity at 0; the
// upper half by the symmetry I_x(a, b) = 1 - I_(1-x)(b, a).
double incompleteBetaByQuadrature(double x, double a, double b) {
    auto lowerIntegral = [](double x, double a, double b) {  // int_0^x t^(a-1) (1-t)^(b-1) dt
        const int n = 200000;
        const double uEnd = std::pow(x, a), h = uEnd / n;
        auto f = [&](double u) { return std::pow(1 - std::pow(u, 1 / a), b - 1) / a; };
        double sum = f(0) + f(uEnd);
        for (int i = 1; i < n; ++i) sum += (i % 2 ? 4 : 2) * f(i * h);
        return sum * h / 3;
    };
    const double whole = lowerIntegral(0.5, a, b) + lowerIntegral(0.5, b, a);
    return x <= 0.5 ? lowerIntegral(x, a, b) / whole : 1 - lowerIntegral(1 - x, b, a) / whole;
}

TEST(ComfySigmas, DiscreteTableIsSdsTrainingSigmas) {
    const ComfyModelSampling ms = sdSampling();
    const auto byHand = sdSigmasByHand();
    ASSERT_EQ(ms.sigmas().size(), 1000u);
    for (size_t k = 0; k < 1000; ++k)
        EXPECT_NEAR(ms.sigmas()[k], double(byHand[k]), 1e-6 * double(byHand[k])) << k;
    EXPECT_NEAR(ms.sigmaMin(), 0.0291675, 1e-6);
    EXPECT_NEAR(ms.sigmaMax(), 14.614642, 1e-5);
    EXPECT_FALSE(ms.flow());
}

TEST(ComfySigmas, DiscreteTimestepIsTheNearestLogSigmaIndex) {
    const ComfyModelSampling ms = sdSampling();
    for (int k : {0, 1, 250, 998, 999}) EXPECT_EQ(ms.timestep(ms.sigmas()[size_t(k)]), k);
    // Just below and above the log-midpoint of entries 500 and 501.
    const double mid = std::sqrt(double(ms.sigmas()[500]) * ms.sigmas()[501]);
    EXPECT_EQ(ms.timestep(mid * 0.9999), 500);
    EXPECT_EQ(ms.timestep(mid * 1.0001), 501);
    EXPECT_EQ(ms.timestep(1e-6), 0);   // below the table: its first entry
    EXPECT_EQ(ms.timestep(1e6), 999);  // above: its last
    // sigma(t): the table at integers, the geometric mean half-way, clamped outside.
    EXPECT_FLOAT_EQ(float(ms.sigma(321)), ms.sigmas()[321]);
    EXPECT_NEAR(ms.sigma(500.5), mid, 1e-6 * mid);
    EXPECT_FLOAT_EQ(float(ms.sigma(5000)), ms.sigmas()[999]);
}

TEST(ComfySigmas, NormalIsTheTableAtEvenlySpacedTimesteps) {
    const ComfyModelSampling ms = sdSampling();
    for (int steps : {1, 2, 7, 20, 30}) {
        const auto s = sdSchedule("normal", steps);
        for (int i = 0; i < steps; ++i) {
            const double t = steps == 1 ? 999 : 999.0 - 999.0 * i / (steps - 1);
            const double want = tableSigma(ms.sigmas(), t);
            EXPECT_NEAR(s[size_t(i)], want, 2e-6 * want) << steps << " " << i;
        }
        EXPECT_FLOAT_EQ(float(s[0]), ms.sigmas()[999]);
        if (steps > 1) EXPECT_FLOAT_EQ(float(s[size_t(steps) - 1]), ms.sigmas()[0]);
    }
}

TEST(ComfySigmas, SgmUniformDropsTheLastOfOneMoreTimestep) {
    const ComfyModelSampling ms = sdSampling();
    const int steps = 10;
    const auto s = sdSchedule("sgm_uniform", steps);
    for (int i = 0; i < steps; ++i) {  // linspace(999, 0, 11) without its 0
        const double want = tableSigma(ms.sigmas(), 999.0 - 99.9 * i);
        EXPECT_NEAR(s[size_t(i)], want, 2e-6 * want) << i;
    }
    EXPECT_GT(s[9], ms.sigmaMin() * 1.5);  // the table's smallest sigma is never reached
}

TEST(ComfySigmas, KarrasEndsAtTheTablesRangeWithEvenSpacingInSigmaToTheOneOverRho) {
    const ComfyModelSampling ms = sdSampling();
    const int steps = 12;
    const auto s = sdSchedule("karras", steps);
    EXPECT_NEAR(s.front(), ms.sigmaMax(), 1e-5 * ms.sigmaMax());
    EXPECT_NEAR(s[11], ms.sigmaMin(), 1e-5 * ms.sigmaMin());
    const double step = std::pow(s[1], 1 / 7.0) - std::pow(s[0], 1 / 7.0);
    EXPECT_LT(step, 0);
    for (int i = 1; i < steps; ++i)
        EXPECT_NEAR(std::pow(s[size_t(i)], 1 / 7.0) - std::pow(s[size_t(i) - 1], 1 / 7.0), step,
                    1e-5)
            << i;
}

TEST(ComfySigmas, ExponentialIsEvenlySpacedInLogSigma) {
    const ComfyModelSampling ms = sdSampling();
    const auto s = sdSchedule("exponential", 9);
    const double ratio = std::log(ms.sigmaMin() / ms.sigmaMax()) / 8;
    for (int i = 1; i < 9; ++i)
        EXPECT_NEAR(std::log(s[size_t(i)] / s[size_t(i) - 1]), ratio, 1e-5) << i;
    EXPECT_NEAR(s[0], ms.sigmaMax(), 1e-5 * ms.sigmaMax());
}

TEST(ComfySigmas, SimplePicksEveryLenOverStepsthTableEntryFromTheTop) {
    const ComfyModelSampling ms = sdSampling();
    const auto s = sdSchedule("simple", 10);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(s[size_t(i)], ms.sigmas()[size_t(999 - 100 * i)]) << i;
    // 1000 / 3 = 333.33..: indices 999, 999 - 333, 999 - 666.
    const auto t = comfySigmas(ms, "simple", 3);
    EXPECT_EQ(t[1], ms.sigmas()[666]);
    EXPECT_EQ(t[2], ms.sigmas()[333]);
}

TEST(ComfySigmas, DdimUniformTakesEveryLenOverStepsthEntryFromTheSecond) {
    const ComfyModelSampling ms = sdSampling();
    const auto s = sdSchedule("ddim_uniform", 20);  // indices 951, 901, ..., 1, then 0
    for (int i = 0; i < 20; ++i) EXPECT_EQ(s[size_t(i)], ms.sigmas()[size_t(951 - 50 * i)]) << i;
    // 1000 // 7 = 142 does not divide 999: ComfyUI's loop gives 8 sigmas for 7 steps.
    EXPECT_EQ(comfySigmas(ms, "ddim_uniform", 7).size(), 9u);
}

TEST(ComfySigmas, IncompleteBetaMatchesQuadratureAndInverts) {
    for (double x : {0.001, 0.05, 0.3, 0.5, 0.77, 0.999}) {
        const double q = incompleteBetaByQuadrature(x, 0.6, 0.6);
        EXPECT_NEAR(regularizedIncompleteBeta(x, 0.6, 0.6), q, 1e-8) << x;
        EXPECT_NEAR(regularizedIncompleteBeta(x, 2.0, 3.5), incompleteBetaByQuadrature(x, 2.0, 3.5),
                    1e-8)
            << x;
    }
    EXPECT_NEAR(regularizedIncompleteBeta(0.3, 1, 1), 0.3, 1e-14);   // the uniform distribution
    EXPECT_NEAR(regularizedIncompleteBeta(0.3, 2, 1), 0.09, 1e-14);  // x^2
    for (double p : {1e-9, 0.01, 0.25, 0.5, 0.6, 0.9, 0.999999}) {
        const double x = inverseRegularizedIncompleteBeta(p, 0.6, 0.6);
        EXPECT_NEAR(regularizedIncompleteBeta(x, 0.6, 0.6), p, 1e-10) << p;
    }
    EXPECT_EQ(inverseRegularizedIncompleteBeta(0.5, 0.6, 0.6), 0.5);
    EXPECT_EQ(inverseRegularizedIncompleteBeta(0, 0.6, 0.6), 0);
    EXPECT_EQ(inverseRegularizedIncompleteBeta(1, 0.6, 0.6), 1);
    EXPECT_THROW(inverseRegularizedIncompleteBeta(1.5, 0.6, 0.6), std::invalid_argument);
}

TEST(ComfySigmas, BetaPicksTheTableAtTheBetaQuantilesOfQuadrature) {
    const ComfyModelSampling ms = sdSampling();
    const int steps = 10;
    const auto s = sdSchedule("beta", steps);  // no repeats among 10 quantiles of 1000 entries
    EXPECT_EQ(s[0], ms.sigmas()[999]);         // the quantile of 1 is 1
    EXPECT_EQ(s[5], ms.sigmas()[500]);         // of 0.5: 499.5, rounded half to even
    for (int i = 1; i < steps; ++i) {
        const double p = 1 - i / double(steps);
        const auto k = size_t(ms.timestep(s[size_t(i)]));
        // Index k is the rounding of 999 * quantile(p): the CDF brackets p at k -+ 1/2.
        EXPECT_LE(incompleteBetaByQuadrature((k - 0.5) / 999, 0.6, 0.6), p + 1e-9) << i;
        EXPECT_GE(incompleteBetaByQuadrature((k + 0.5) / 999, 0.6, 0.6), p - 1e-9) << i;
    }
    // Many steps on a short range repeat indices: repeats are dropped.
    EXPECT_LT(comfySigmas(ComfyModelSampling::discreteFlow(3.0), "beta", 999).size(), 1000u);
}

TEST(ComfySigmas, LinearQuadraticAndKlOptimalFollowTheirFormulas) {
    const ComfyModelSampling flow = ComfyModelSampling::discreteFlow(1.0);
    const auto lq = comfySigmas(flow, "linear_quadratic", 4);
    ASSERT_EQ(lq.size(), 5u);
    // linear part: 1 - i * 0.025 / 2 for i < 2; then the quadratic to 0 at the end.
    EXPECT_NEAR(lq[0], 1.0, 1e-7);
    EXPECT_NEAR(lq[1], 1 - 0.0125, 1e-7);
    EXPECT_EQ(lq[4], 0.0);
    const ComfyModelSampling sd = sdSampling();
    const auto kl = comfySigmas(sd, "kl_optimal", 5);
    ASSERT_EQ(kl.size(), 6u);
    for (int i = 0; i < 5; ++i) {
        const double w = i / 4.0;
        const double want =
            std::tan(w * std::atan(sd.sigmaMin()) + (1 - w) * std::atan(sd.sigmaMax()));
        EXPECT_NEAR(kl[size_t(i)], want, 2e-5 * want) << i;
    }
    EXPECT_EQ(kl.back(), 0.0);
}

TEST(ComfySigmas, FlowTablesFollowTheShiftFormulas) {
    const ComfyModelSampling sd3 = ComfyModelSampling::discreteFlow(3.0);
    ASSERT_EQ(sd3.sigmas().size(), 1000u);
    EXPECT_TRUE(sd3.flow());
    for (int k : {1, 10, 500, 1000}) {
        const double t = k / 1000.0;
        EXPECT_NEAR(sd3.sigmas()[size_t(k) - 1], 3 * t / (1 + 2 * t), 1e-6) << k;
    }
    EXPECT_NEAR(sd3.timestep(0.5), 500.0, 1e-4);
    // normal on a flow table: evenly spaced in t = timestep / 1000 from sigma_max's to
    // sigma_min's, then shifted.
    const auto s = comfySigmas(sd3, "normal", 4);
    ASSERT_EQ(s.size(), 5u);
    const double tMin = sd3.sigmaMin();
    for (int i = 0; i < 4; ++i) {
        const double t = 1.0 + (tMin - 1.0) * i / 3;
        EXPECT_NEAR(s[size_t(i)], 3 * t / (1 + 2 * t), 2e-6) << i;
    }

    const double mu = comfyFluxMu(1024, 1024);
    EXPECT_NEAR(mu, 1.15, 1e-12);                     // 4096 tokens: max_shift
    EXPECT_NEAR(comfyFluxMu(512, 512), 0.63, 1e-12);  // 1024 tokens
    EXPECT_NEAR(comfyFluxMu(256, 256), 0.5, 1e-12);   // 256 tokens: base_shift
    const ComfyModelSampling flux = ComfyModelSampling::flux(mu);
    ASSERT_EQ(flux.sigmas().size(), 10000u);
    EXPECT_NEAR(flux.sigmaMax(), 1.0, 1e-6);
    const double t = 0.25;
    EXPECT_NEAR(flux.sigmas()[2499], std::exp(mu) / (std::exp(mu) + 1 / t - 1), 1e-6);
    EXPECT_EQ(flux.timestep(0.7), float(0.7));
    const auto simple = comfySigmas(flux, "simple", 4);  // entries 9999, 7499, 4999, 2499
    EXPECT_EQ(simple[1], flux.sigmas()[7499]);
    EXPECT_EQ(simple[3], flux.sigmas()[2499]);
}

TEST(ComfySigmas, ZeroTerminalSnrKeepsTheLargestSigmaFinite) {
    nlohmann::json c = sdSchedulerConfig();
    c["rescale_betas_zero_snr"] = true;
    const auto ms = ComfyModelSampling::discrete(c, ComfyPrediction::V);
    EXPECT_NEAR(ms.sigmaMax(), std::sqrt((1 - 4.8973451890853435e-08) / 4.8973451890853435e-08),
                0.01);
    EXPECT_NEAR(ms.sigmaMin(), sdSampling().sigmaMin(), 1e-6);  // the first alpha-bar is kept
}

TEST(ComfySigmas, UnknownSchedulerIsAClearError) {
    const ComfyModelSampling ms = sdSampling();
    try {
        comfySigmas(ms, "align_your_steps", 10);
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("unknown ComfyUI scheduler 'align_your_steps'"), std::string::npos) << m;
        EXPECT_NE(m.find("karras"), std::string::npos) << m;
    }
    EXPECT_THROW(comfySigmas(ms, "normal", 0), std::invalid_argument);
    EXPECT_TRUE(isComfyScheduler("beta"));
    EXPECT_FALSE(isComfyScheduler("Karras"));
}

}  // namespace
}  // namespace hs
