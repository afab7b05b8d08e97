#pragma once
// The numpy computations of diffusers' set_timesteps, step for step in the same precision, so
// that a schedule rounds where diffusers' rounds: np.linspace and np.arange (float64, with
// numpy's own formulas), round half to even, np.interp over the training sigmas, the Karras ramp
// and _sigma_to_t (numpy 2 dtypes: float64 for a float64 sigma, float32 for a float32 one).
#include <cstdint>
#include <vector>

namespace hs::np {

// np.linspace(start, stop, num): i * step + start in float64, the last value set to stop.
std::vector<double> linspace(double start, double stop, int64_t num);
// np.arange(start, stop, step) for a float step: length ceil((stop - start) / step); values
// start, start + step, then start + i * ((start + step) - start), as numpy fills them.
std::vector<double> arange(double start, double stop, double step);
// np.round / ndarray.round: half to even.
double round(double x);
// np.interp(x, np.arange(len(fp)), fp) in float64, fp given as float32 (diffusers' sigmas).
std::vector<double> interpIndex(const std::vector<double>& x, const std::vector<float>& fp);
// np.log of a float32 array (float32 results).
std::vector<float> logf(const std::vector<float>& v);
// _sigma_to_t: the fractional training timestep whose log-sigma is log(sigma), linearly
// interpolated in log_sigmas (float32, ascending).
double sigmaToT(double sigma, const std::vector<float>& logSigmas);
double sigmaToT(float sigma, const std::vector<float>& logSigmas);
// _convert_to_karras: (max^(1/7) + ramp * (min^(1/7) - max^(1/7)))^7, ramp = linspace(0, 1, n).
std::vector<double> karras(double sigmaMin, double sigmaMax, int64_t n);

}  // namespace hs::np
