// numpy evaluates a * b + c as two rounded operations; so must this file (no fused multiply-add,
// which a compiler may otherwise contract on targets that have one).
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "sampling/numpy_ops.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hs::np {

std::vector<double> linspace(double start, double stop, int64_t num) {
    if (num < 0) throw std::invalid_argument("linspace: negative number of samples");
    std::vector<double> y(static_cast<size_t>(num));
    if (num == 0) return y;
    if (num == 1) {
        y[0] = start;
        return y;
    }
    const double div = double(num - 1), delta = stop - start, step = delta / div;
    for (int64_t i = 0; i < num; ++i) {
        const double ramp = step == 0 ? double(i) / div * delta : double(i) * step;
        y[size_t(i)] = ramp + start;
    }
    y.back() = stop;
    return y;
}

std::vector<double> arange(double start, double stop, double step) {
    if (step == 0 || std::isnan(step)) throw std::invalid_argument("arange: bad step");
    const double len = std::ceil((stop - start) / step);
    if (!(len > 0)) return {};
    if (len > 1e8) throw std::invalid_argument("arange: too many values");
    std::vector<double> v(static_cast<size_t>(len));
    v[0] = start;
    if (v.size() > 1) v[1] = start + step;
    const double delta = v.size() > 1 ? v[1] - v[0] : 0;
    for (size_t i = 2; i < v.size(); ++i) v[i] = start + double(i) * delta;
    return v;
}

double round(double x) {
    return std::nearbyint(x);
}

std::vector<double> interpIndex(const std::vector<double>& x, const std::vector<float>& fp) {
    if (fp.empty()) throw std::invalid_argument("interp: empty table");
    const int64_t last = int64_t(fp.size()) - 1;
    std::vector<double> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const double v = x[i];
        double r;
        if (std::isnan(v)) {
            r = v;
        } else if (v > double(last)) {
            r = fp[size_t(last)];  // right
        } else if (v < 0) {
            r = fp[0];  // left
        } else {
            const int64_t j = std::min<int64_t>(int64_t(std::floor(v)), last);
            const double dj = double(j);
            if (j == last || dj == v) {
                r = fp[size_t(j)];
            } else {
                const double y0 = fp[size_t(j)], y1 = fp[size_t(j + 1)];
                const double slope = (y1 - y0) / ((dj + 1) - dj);
                r = slope * (v - dj) + y0;
                if (std::isnan(r)) {
                    r = slope * (v - (dj + 1)) + y1;
                    if (std::isnan(r) && y0 == y1) r = y0;
                }
            }
        }
        out[i] = r;
    }
    return out;
}

std::vector<float> logf(const std::vector<float>& v) {
    std::vector<float> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) out[i] = std::log(v[i]);
    return out;
}

namespace {

// np.cumsum(dists >= 0).argmax().clip(max=len - 2): the last index whose log-sigma is at most
// log(sigma) (0 when none is), at most len - 2.
template <typename T>
int64_t lowIndex(T logSigma, const std::vector<float>& ls) {
    if (ls.size() < 2) throw std::invalid_argument("sigma_to_t: fewer than 2 training sigmas");
    int64_t low = 0;
    for (size_t i = 0; i < ls.size(); ++i)
        if (T(logSigma - T(ls[i])) >= 0) low = int64_t(i);
    return std::min<int64_t>(low, int64_t(ls.size()) - 2);
}

}  // namespace

double sigmaToT(double sigma, const std::vector<float>& ls) {
    const double logSigma = std::log(std::max(sigma, 1e-10));
    const int64_t lo = lowIndex(logSigma, ls), hi = lo + 1;
    const float low = ls[size_t(lo)], high = ls[size_t(hi)];
    double w = (double(low) - logSigma) / double(low - high);  // low - high in float32
    if (w < 0) w = 0;
    if (w > 1) w = 1;
    return (1.0 - w) * double(lo) + w * double(hi);
}

double sigmaToT(float sigma, const std::vector<float>& ls) {
    const float logSigma = std::log(std::max(sigma, float(1e-10)));
    const int64_t lo = lowIndex(logSigma, ls), hi = lo + 1;
    const float low = ls[size_t(lo)], high = ls[size_t(hi)];
    float w = (low - logSigma) / (low - high);
    if (w < 0) w = 0;
    if (w > 1) w = 1;
    return double(1.0f - w) * double(lo) + double(w) * double(hi);
}

std::vector<double> karras(double sigmaMin, double sigmaMax, int64_t n) {
    const double rho = 7.0;
    const double minInvRho = std::pow(sigmaMin, 1 / rho), maxInvRho = std::pow(sigmaMax, 1 / rho);
    std::vector<double> s = linspace(0, 1, n);
    for (double& r : s) r = std::pow(maxInvRho + r * (minInvRho - maxInvRho), rho);
    return s;
}

}  // namespace hs::np
