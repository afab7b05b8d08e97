"""A plain numpy/PyTorch port of diffusers' classic schedulers (EulerDiscreteScheduler,
EulerAncestralDiscreteScheduler, DDIMScheduler, DPMSolverMultistepScheduler, PNDMScheduler), for
reference numbers on configurations the golden file does not cover.

diffusers cannot be installed on this machine (no PyPI); this port follows the schedulers of
src/diffusers/schedulers/ (diffusers 0.40.0.dev0) line by line: the float32 torch tensors
(betas, alphas_cumprod, the scalars of step()) stay torch, the numpy float64 parts
(np.interp, the Karras ramp, _sigma_to_t) stay numpy. One deliberate choice: numpy here is 1.24,
whose value-based casting computes _sigma_to_t's weights in float32; numpy 2 (NEP 50, what a
current diffusers install runs) keeps them in float64 (or float32 throughout for caller-given
float32 sigmas). `_sigma_to_t` below spells those numpy-2 dtypes out so that the data matches a
current diffusers install; the difference is ~1e-7 relative in a Karras timestep.

`check` reproduces the golden cases first (out.<case>.* of sched_io.safetensors, the golden
convention: x_0 = in.x0 * init_noise_sigma; x_{i+1} = step(in.model_output.i, t_i, x_i)); `make`
writes tests/data/sched/cases.json and tests/data/sched/sched_ref.safetensors. The golden file
has no PNDM case: `check-pndm` runs diffusers' own scheduling_pndm.py (its ConfigMixin and
SchedulerMixin bases stubbed; numpy and torch only) on the PNDM cases of a `make` directory and
requires the port's numbers bit for bit.

  /usr/bin/python3 bench/reference/scheduler_reference.py check tests/data/golden
  /usr/bin/python3 bench/reference/scheduler_reference.py make tests/data/sched
  git -C DIFFUSERS show HEAD:src/diffusers/schedulers/scheduling_pndm.py > /tmp/scheduling_pndm.py
  /usr/bin/python3 bench/reference/scheduler_reference.py check-pndm tests/data/sched \\
      /tmp/scheduling_pndm.py
"""
import json
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import safetensors_io  # noqa: E402


# ---------------------------------------------------------------------------------------------
# The training schedule shared by the classes


def betas_for_alpha_bar(n, max_beta=0.999):
    def alpha_bar_fn(t):
        return math.cos((t + 0.008) / 1.008 * math.pi / 2) ** 2

    betas = []
    for i in range(n):
        t1 = i / n
        t2 = (i + 1) / n
        betas.append(min(1 - alpha_bar_fn(t2) / alpha_bar_fn(t1), max_beta))
    return torch.tensor(betas, dtype=torch.float32)


def rescale_zero_terminal_snr(betas):
    alphas = 1.0 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_bar_sqrt = alphas_cumprod.sqrt()
    alphas_bar_sqrt_0 = alphas_bar_sqrt[0].clone()
    alphas_bar_sqrt_T = alphas_bar_sqrt[-1].clone()
    alphas_bar_sqrt -= alphas_bar_sqrt_T
    alphas_bar_sqrt *= alphas_bar_sqrt_0 / (alphas_bar_sqrt_0 - alphas_bar_sqrt_T)
    alphas_bar = alphas_bar_sqrt**2
    alphas = alphas_bar[1:] / alphas_bar[:-1]
    alphas = torch.cat([alphas_bar[0:1], alphas])
    return 1 - alphas


def make_betas(c):
    n = c["num_train_timesteps"]
    if c.get("trained_betas") is not None:
        betas = torch.tensor(c["trained_betas"], dtype=torch.float32)
    elif c["beta_schedule"] == "linear":
        betas = torch.linspace(c["beta_start"], c["beta_end"], n, dtype=torch.float32)
    elif c["beta_schedule"] == "scaled_linear":
        betas = torch.linspace(c["beta_start"] ** 0.5, c["beta_end"] ** 0.5, n, dtype=torch.float32) ** 2
    elif c["beta_schedule"] == "squaredcos_cap_v2":
        betas = betas_for_alpha_bar(n)
    else:
        raise NotImplementedError(c["beta_schedule"])
    if c.get("rescale_betas_zero_snr"):
        betas = rescale_zero_terminal_snr(betas)
    return betas


def alphas_cumprod_of(c, zero_snr_fix=True):
    betas = make_betas(c)
    acp = torch.cumprod(1.0 - betas, dim=0)
    if c.get("rescale_betas_zero_snr") and zero_snr_fix:
        acp[-1] = 2**-24
    return acp


def sigma_to_t(sigma, log_sigmas):
    """_sigma_to_t with numpy 2's dtypes: float64 for a float64 sigma, float32 for a float32 one."""
    dt = np.float32 if isinstance(sigma, np.float32) else np.float64
    log_sigma = np.log(np.maximum(sigma, dt(1e-10))).astype(dt)
    dists = log_sigma - log_sigmas[:, np.newaxis].astype(dt)
    low_idx = np.cumsum((dists >= 0), axis=0).argmax(axis=0).clip(max=log_sigmas.shape[0] - 2)
    high_idx = low_idx + 1
    low = log_sigmas[low_idx]
    high = log_sigmas[high_idx]
    w = (low.astype(dt) - log_sigma) / (low - high).astype(dt)  # low - high: float32
    w = np.clip(w, 0, 1)
    t = (1 - w) * low_idx + w * high_idx
    return t.reshape(np.shape(sigma))


def karras(in_sigmas, n, sigma_min=None, sigma_max=None):
    sigma_min = sigma_min if sigma_min is not None else in_sigmas[-1].item()
    sigma_max = sigma_max if sigma_max is not None else in_sigmas[0].item()
    rho = 7.0
    ramp = np.linspace(0, 1, n)
    min_inv_rho = sigma_min ** (1 / rho)
    max_inv_rho = sigma_max ** (1 / rho)
    return (max_inv_rho + ramp * (min_inv_rho - max_inv_rho)) ** rho


def spaced_timesteps(c, n, dtype):
    """The timesteps of n steps under c["timestep_spacing"], descending: float32 for Euler and
    Euler ancestral; int64 for DDIM and PNDM (PNDM builds on them ascending), whose linspace is
    rounded."""
    N = c["num_train_timesteps"]
    sp = c["timestep_spacing"]
    if sp == "linspace":
        t = np.linspace(0, N - 1, n)
        return (t.round() if dtype == np.int64 else t)[::-1].astype(dtype)
    if sp == "leading":
        ratio = N // n
        return (np.arange(0, n) * ratio).round()[::-1].astype(dtype) + c["steps_offset"]
    if sp == "trailing":
        ratio = N / n
        return np.arange(N, 0, -ratio).round().astype(dtype) - 1
    raise ValueError(sp)


# ---------------------------------------------------------------------------------------------
# EulerDiscreteScheduler

EULER_DEFAULTS = dict(num_train_timesteps=1000, beta_start=0.0001, beta_end=0.02, beta_schedule="linear",
                      trained_betas=None, prediction_type="epsilon", interpolation_type="linear",
                      use_karras_sigmas=False, sigma_min=None, sigma_max=None, timestep_spacing="linspace",
                      timestep_type="discrete", steps_offset=0, rescale_betas_zero_snr=False,
                      final_sigmas_type="zero")


class Euler:
    def __init__(self, **kw):
        self.c = dict(EULER_DEFAULTS, **kw)
        self.alphas_cumprod = alphas_cumprod_of(self.c)

    def set_timesteps(self, n, sigmas=None):
        c = self.c
        acp = self.alphas_cumprod
        if sigmas is not None:
            log_sigmas = np.log(np.array(((1 - acp) / acp) ** 0.5))
            sigmas = np.array(sigmas).astype(np.float32)
            timesteps = np.array([sigma_to_t(s, log_sigmas) for s in sigmas[:-1]])
        else:
            timesteps = spaced_timesteps(c, n, np.float32)
            sigmas = np.array(((1 - acp) / acp) ** 0.5)
            log_sigmas = np.log(sigmas)
            assert c["interpolation_type"] == "linear"
            sigmas = np.interp(timesteps, np.arange(0, len(sigmas)), sigmas)
            if c["use_karras_sigmas"]:
                sigmas = karras(sigmas, n, c["sigma_min"], c["sigma_max"])
                timesteps = np.array([sigma_to_t(s, log_sigmas) for s in sigmas])
            if c["final_sigmas_type"] == "sigma_min":
                sigma_last = ((1 - acp[0]) / acp[0]) ** 0.5
            else:
                sigma_last = 0
            sigmas = np.concatenate([sigmas, [sigma_last]]).astype(np.float32)
        self.sigmas = torch.from_numpy(sigmas).to(torch.float32)
        if c["timestep_type"] == "continuous" and c["prediction_type"] == "v_prediction":
            self.timesteps = torch.Tensor([0.25 * s.log() for s in self.sigmas[:-1]])
        else:
            self.timesteps = torch.from_numpy(timesteps.astype(np.float32))

    @property
    def init_noise_sigma(self):
        m = self.sigmas.max()
        return m if self.c["timestep_spacing"] in ["linspace", "trailing"] else (m**2 + 1) ** 0.5

    def scale_model_input(self, sample, i):
        sigma = self.sigmas[i]
        return sample / ((sigma**2 + 1) ** 0.5)

    def step(self, model_output, i, sample, noise=None):
        sample = sample.to(torch.float32)
        sigma = self.sigmas[i]
        sigma_hat = sigma * (0.0 + 1)
        p = self.c["prediction_type"]
        if p in ("original_sample", "sample"):
            pred = model_output
        elif p == "epsilon":
            pred = sample - sigma_hat * model_output
        elif p == "v_prediction":
            pred = model_output * (-sigma / (sigma**2 + 1) ** 0.5) + (sample / (sigma**2 + 1))
        derivative = (sample - pred) / sigma_hat
        dt = self.sigmas[i + 1] - sigma_hat
        prev = sample + derivative * dt
        return prev.to(model_output.dtype), pred


# ---------------------------------------------------------------------------------------------
# EulerAncestralDiscreteScheduler (the noise of step i comes from the caller)

ANCESTRAL_DEFAULTS = dict(num_train_timesteps=1000, beta_start=0.0001, beta_end=0.02, beta_schedule="linear",
                          trained_betas=None, prediction_type="epsilon", timestep_spacing="linspace",
                          steps_offset=0, rescale_betas_zero_snr=False)


class EulerAncestral:
    def __init__(self, **kw):
        self.c = dict(ANCESTRAL_DEFAULTS, **kw)
        self.alphas_cumprod = alphas_cumprod_of(self.c)

    def set_timesteps(self, n):
        acp = self.alphas_cumprod
        timesteps = spaced_timesteps(self.c, n, np.float32)
        sigmas = np.array(((1 - acp) / acp) ** 0.5)
        sigmas = np.interp(timesteps, np.arange(0, len(sigmas)), sigmas)
        sigmas = np.concatenate([sigmas, [0.0]]).astype(np.float32)
        self.sigmas = torch.from_numpy(sigmas)
        self.timesteps = torch.from_numpy(timesteps)

    @property
    def init_noise_sigma(self):
        if self.c["timestep_spacing"] in ["linspace", "trailing"]:
            return self.sigmas.max()
        return (self.sigmas.max() ** 2 + 1) ** 0.5

    def scale_model_input(self, sample, i):
        sigma = self.sigmas[i]
        return sample / ((sigma**2 + 1) ** 0.5)

    def step(self, model_output, i, sample, noise=None):
        sigma = self.sigmas[i]
        sample = sample.to(torch.float32)
        p = self.c["prediction_type"]
        if p == "epsilon":
            pred = sample - sigma * model_output
        elif p == "v_prediction":
            pred = model_output * (-sigma / (sigma**2 + 1) ** 0.5) + (sample / (sigma**2 + 1))
        else:
            raise NotImplementedError(p)
        sigma_from = self.sigmas[i]
        sigma_to = self.sigmas[i + 1]
        sigma_up = (sigma_to**2 * (sigma_from**2 - sigma_to**2) / sigma_from**2) ** 0.5
        sigma_down = (sigma_to**2 - sigma_up**2) ** 0.5
        derivative = (sample - pred) / sigma
        dt = sigma_down - sigma
        prev = sample + derivative * dt
        prev = prev + noise * sigma_up
        return prev.to(model_output.dtype), pred


# ---------------------------------------------------------------------------------------------
# DDIMScheduler

DDIM_DEFAULTS = dict(num_train_timesteps=1000, beta_start=0.0001, beta_end=0.02, beta_schedule="linear",
                     trained_betas=None, clip_sample=True, set_alpha_to_one=True, steps_offset=0,
                     prediction_type="epsilon", clip_sample_range=1.0, timestep_spacing="leading",
                     rescale_betas_zero_snr=False)


class DDIM:
    init_noise_sigma = 1.0

    def __init__(self, eta=0.0, **kw):
        self.c = dict(DDIM_DEFAULTS, **kw)
        self.eta = eta
        self.alphas_cumprod = alphas_cumprod_of(self.c, zero_snr_fix=False)
        self.final_alpha_cumprod = torch.tensor(1.0) if self.c["set_alpha_to_one"] else self.alphas_cumprod[0]

    def set_timesteps(self, n):
        self.n = n
        self.timesteps = torch.from_numpy(spaced_timesteps(self.c, n, np.int64))
        self.sigmas = None  # diffusers' DDIMScheduler has none

    def scale_model_input(self, sample, i):
        return sample

    def step(self, model_output, i, sample, noise=None):
        c = self.c
        timestep = self.timesteps[i]
        prev_timestep = timestep - c["num_train_timesteps"] // self.n
        a_t = self.alphas_cumprod[timestep]
        a_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod
        b_t = 1 - a_t
        p = c["prediction_type"]
        if p == "epsilon":
            pred = (sample - b_t ** (0.5) * model_output) / a_t ** (0.5)
            eps = model_output
        elif p == "sample":
            pred = model_output
            eps = (sample - a_t ** (0.5) * pred) / b_t ** (0.5)
        elif p == "v_prediction":
            pred = (a_t**0.5) * sample - (b_t**0.5) * model_output
            eps = (a_t**0.5) * model_output + (b_t**0.5) * sample
        if c["clip_sample"]:
            pred = pred.clamp(-c["clip_sample_range"], c["clip_sample_range"])
        b_prev = 1 - a_prev
        variance = (b_prev / b_t) * (1 - a_t / a_prev)
        std_dev_t = self.eta * variance ** (0.5)
        direction = (1 - a_prev - std_dev_t**2) ** (0.5) * eps
        prev = a_prev ** (0.5) * pred + direction
        if self.eta > 0:
            prev = prev + std_dev_t * noise
        return prev, pred


# ---------------------------------------------------------------------------------------------
# DPMSolverMultistepScheduler

DPM_DEFAULTS = dict(num_train_timesteps=1000, beta_start=0.0001, beta_end=0.02, beta_schedule="linear",
                    trained_betas=None, solver_order=2, prediction_type="epsilon", algorithm_type="dpmsolver++",
                    solver_type="midpoint", lower_order_final=True, euler_at_final=False,
                    use_karras_sigmas=False, final_sigmas_type="zero", lambda_min_clipped=-float("inf"),
                    timestep_spacing="linspace", steps_offset=0, rescale_betas_zero_snr=False)


class DPM:
    init_noise_sigma = 1.0

    def __init__(self, **kw):
        self.c = dict(DPM_DEFAULTS, **kw)
        if self.c["lambda_min_clipped"] is None:
            self.c["lambda_min_clipped"] = -float("inf")
        self.alphas_cumprod = alphas_cumprod_of(self.c)
        acp = self.alphas_cumprod
        self.alpha_t = torch.sqrt(acp)
        self.sigma_t = torch.sqrt(1 - acp)
        self.lambda_t = torch.log(self.alpha_t) - torch.log(self.sigma_t)

    def set_timesteps(self, n):
        c = self.c
        N = c["num_train_timesteps"]
        acp = self.alphas_cumprod
        clipped_idx = torch.searchsorted(torch.flip(self.lambda_t, [0]), c["lambda_min_clipped"])
        last = ((N - clipped_idx).numpy()).item()
        sp = c["timestep_spacing"]
        if sp == "linspace":
            t = np.linspace(0, last - 1, n + 1).round()[::-1][:-1].copy().astype(np.int64)
        elif sp == "leading":
            ratio = last // (n + 1)
            t = (np.arange(0, n + 1) * ratio).round()[::-1][:-1].copy().astype(np.int64)
            t += c["steps_offset"]
        elif sp == "trailing":
            ratio = N / n
            t = np.arange(last, 0, -ratio).round().copy().astype(np.int64)
            t -= 1
        sigmas = np.array(((1 - acp) / acp) ** 0.5)
        log_sigmas = np.log(sigmas)
        if c["use_karras_sigmas"]:
            sigmas = np.flip(sigmas).copy()
            sigmas = karras(sigmas, n)
            t = np.array([sigma_to_t(s, log_sigmas) for s in sigmas])
            if c["beta_schedule"] != "squaredcos_cap_v2":
                t = t.round()
        else:
            sigmas = np.interp(t, np.arange(0, len(sigmas)), sigmas)
        if c["final_sigmas_type"] == "sigma_min":
            sigma_last = ((1 - acp[0]) / acp[0]) ** 0.5
        else:
            sigma_last = 0
        sigmas = np.concatenate([sigmas, [sigma_last]]).astype(np.float32)
        self.sigmas = torch.from_numpy(sigmas)
        self.timesteps = torch.from_numpy(t).to(dtype=torch.int64)
        self.n = len(t)
        self.model_outputs = [None] * c["solver_order"]
        self.lower_order_nums = 0

    def scale_model_input(self, sample, i):
        return sample

    @staticmethod
    def alpha_sigma(sigma):
        alpha_t = 1 / ((sigma**2 + 1) ** 0.5)
        return alpha_t, sigma * alpha_t

    def convert(self, model_output, i, sample):
        c = self.c
        sigma = self.sigmas[i]
        alpha_t, sigma_t = self.alpha_sigma(sigma)
        p = c["prediction_type"]
        if c["algorithm_type"] in ("dpmsolver++", "sde-dpmsolver++"):
            if p == "epsilon":
                return (sample - sigma_t * model_output) / alpha_t
            if p == "sample":
                return model_output
            if p == "v_prediction":
                return alpha_t * sample - sigma_t * model_output
            if p == "flow_prediction":
                return sample - sigma * model_output
        else:
            if p == "epsilon":
                return model_output
            if p == "sample":
                return (sample - alpha_t * model_output) / sigma_t
            if p == "v_prediction":
                return alpha_t * model_output + sigma_t * sample
        raise ValueError(p)

    def lam(self, j):
        a, s = self.alpha_sigma(self.sigmas[j])
        return a, s, torch.log(a) - torch.log(s)

    def first_order(self, m, i, x, noise):
        alg = self.c["algorithm_type"]
        alpha_t, sigma_t, lambda_t = self.lam(i + 1)
        alpha_s, sigma_s, lambda_s = self.lam(i)
        h = lambda_t - lambda_s
        if alg == "dpmsolver++":
            return (sigma_t / sigma_s) * x - (alpha_t * (torch.exp(-h) - 1.0)) * m
        if alg == "dpmsolver":
            return (alpha_t / alpha_s) * x - (sigma_t * (torch.exp(h) - 1.0)) * m
        if alg == "sde-dpmsolver++":
            return ((sigma_t / sigma_s * torch.exp(-h)) * x + (alpha_t * (1 - torch.exp(-2.0 * h))) * m
                    + sigma_t * torch.sqrt(1.0 - torch.exp(-2 * h)) * noise)
        return ((alpha_t / alpha_s) * x - 2.0 * (sigma_t * (torch.exp(h) - 1.0)) * m
                + sigma_t * torch.sqrt(torch.exp(2 * h) - 1.0) * noise)

    def second_order(self, ms, i, x, noise):
        alg, st = self.c["algorithm_type"], self.c["solver_type"]
        alpha_t, sigma_t, lambda_t = self.lam(i + 1)
        alpha_s0, sigma_s0, lambda_s0 = self.lam(i)
        _, _, lambda_s1 = self.lam(i - 1)
        m0, m1 = ms[-1], ms[-2]
        h, h_0 = lambda_t - lambda_s0, lambda_s0 - lambda_s1
        r0 = h_0 / h
        D0, D1 = m0, (1.0 / r0) * (m0 - m1)
        if alg == "dpmsolver++":
            if st == "midpoint":
                return ((sigma_t / sigma_s0) * x - (alpha_t * (torch.exp(-h) - 1.0)) * D0
                        - 0.5 * (alpha_t * (torch.exp(-h) - 1.0)) * D1)
            return ((sigma_t / sigma_s0) * x - (alpha_t * (torch.exp(-h) - 1.0)) * D0
                    + (alpha_t * ((torch.exp(-h) - 1.0) / h + 1.0)) * D1)
        if alg == "dpmsolver":
            if st == "midpoint":
                return ((alpha_t / alpha_s0) * x - (sigma_t * (torch.exp(h) - 1.0)) * D0
                        - 0.5 * (sigma_t * (torch.exp(h) - 1.0)) * D1)
            return ((alpha_t / alpha_s0) * x - (sigma_t * (torch.exp(h) - 1.0)) * D0
                    - (sigma_t * ((torch.exp(h) - 1.0) / h - 1.0)) * D1)
        if alg == "sde-dpmsolver++":
            if st == "midpoint":
                return ((sigma_t / sigma_s0 * torch.exp(-h)) * x + (alpha_t * (1 - torch.exp(-2.0 * h))) * D0
                        + 0.5 * (alpha_t * (1 - torch.exp(-2.0 * h))) * D1
                        + sigma_t * torch.sqrt(1.0 - torch.exp(-2 * h)) * noise)
            return ((sigma_t / sigma_s0 * torch.exp(-h)) * x + (alpha_t * (1 - torch.exp(-2.0 * h))) * D0
                    + (alpha_t * ((1.0 - torch.exp(-2.0 * h)) / (-2.0 * h) + 1.0)) * D1
                    + sigma_t * torch.sqrt(1.0 - torch.exp(-2 * h)) * noise)
        if st == "midpoint":
            return ((alpha_t / alpha_s0) * x - 2.0 * (sigma_t * (torch.exp(h) - 1.0)) * D0
                    - (sigma_t * (torch.exp(h) - 1.0)) * D1 + sigma_t * torch.sqrt(torch.exp(2 * h) - 1.0) * noise)
        return ((alpha_t / alpha_s0) * x - 2.0 * (sigma_t * (torch.exp(h) - 1.0)) * D0
                - 2.0 * (sigma_t * ((torch.exp(h) - 1.0) / h - 1.0)) * D1
                + sigma_t * torch.sqrt(torch.exp(2 * h) - 1.0) * noise)

    def third_order(self, ms, i, x, noise):
        alg = self.c["algorithm_type"]
        alpha_t, sigma_t, lambda_t = self.lam(i + 1)
        alpha_s0, sigma_s0, lambda_s0 = self.lam(i)
        _, _, lambda_s1 = self.lam(i - 1)
        _, _, lambda_s2 = self.lam(i - 2)
        m0, m1, m2 = ms[-1], ms[-2], ms[-3]
        h, h_0, h_1 = lambda_t - lambda_s0, lambda_s0 - lambda_s1, lambda_s1 - lambda_s2
        r0, r1 = h_0 / h, h_1 / h
        D0 = m0
        D1_0, D1_1 = (1.0 / r0) * (m0 - m1), (1.0 / r1) * (m1 - m2)
        D1 = D1_0 + (r0 / (r0 + r1)) * (D1_0 - D1_1)
        D2 = (1.0 / (r0 + r1)) * (D1_0 - D1_1)
        if alg == "dpmsolver++":
            return ((sigma_t / sigma_s0) * x - (alpha_t * (torch.exp(-h) - 1.0)) * D0
                    + (alpha_t * ((torch.exp(-h) - 1.0) / h + 1.0)) * D1
                    - (alpha_t * ((torch.exp(-h) - 1.0 + h) / h**2 - 0.5)) * D2)
        if alg == "dpmsolver":
            return ((alpha_t / alpha_s0) * x - (sigma_t * (torch.exp(h) - 1.0)) * D0
                    - (sigma_t * ((torch.exp(h) - 1.0) / h - 1.0)) * D1
                    - (sigma_t * ((torch.exp(h) - 1.0 - h) / h**2 - 0.5)) * D2)
        return ((sigma_t / sigma_s0 * torch.exp(-h)) * x + (alpha_t * (1.0 - torch.exp(-2.0 * h))) * D0
                + (alpha_t * ((1.0 - torch.exp(-2.0 * h)) / (-2.0 * h) + 1.0)) * D1
                + (alpha_t * ((1.0 - torch.exp(-2.0 * h) - 2.0 * h) / (2.0 * h) ** 2 - 0.5)) * D2
                + sigma_t * torch.sqrt(1.0 - torch.exp(-2 * h)) * noise)

    def step(self, model_output, i, sample, noise=None):
        c = self.c
        n = len(self.timesteps)
        lower_order_final = (i == n - 1) and (
            c["euler_at_final"] or (c["lower_order_final"] and n < 15) or c["final_sigmas_type"] == "zero")
        lower_order_second = (i == n - 2) and c["lower_order_final"] and n < 15
        model_output = self.convert(model_output, i, sample)
        for k in range(c["solver_order"] - 1):
            self.model_outputs[k] = self.model_outputs[k + 1]
        self.model_outputs[-1] = model_output
        sample = sample.to(torch.float32)
        if c["algorithm_type"] in ("sde-dpmsolver", "sde-dpmsolver++"):
            noise = noise.to(torch.float32)
        else:
            noise = None
        if c["solver_order"] == 1 or self.lower_order_nums < 1 or lower_order_final:
            prev = self.first_order(model_output, i, sample, noise)
        elif c["solver_order"] == 2 or self.lower_order_nums < 2 or lower_order_second:
            prev = self.second_order(self.model_outputs, i, sample, noise)
        else:
            prev = self.third_order(self.model_outputs, i, sample, noise)
        if self.lower_order_nums < c["solver_order"]:
            self.lower_order_nums += 1
        return prev.to(model_output.dtype), model_output


# ---------------------------------------------------------------------------------------------
# PNDMScheduler (PLMS steps, and the Runge-Kutta warm-up of F-PNDM when skip_prk_steps is false).
# step(i) passes self.timesteps[i] as the pipeline does; counter, ets and cur_sample as diffusers.

PNDM_DEFAULTS = dict(num_train_timesteps=1000, beta_start=0.0001, beta_end=0.02, beta_schedule="linear",
                     trained_betas=None, skip_prk_steps=False, set_alpha_to_one=False,
                     prediction_type="epsilon", timestep_spacing="leading", steps_offset=0)


class PNDM:
    init_noise_sigma = 1.0
    pndm_order = 4

    def __init__(self, **kw):
        self.c = dict(PNDM_DEFAULTS, **kw)
        self.alphas_cumprod = alphas_cumprod_of(self.c, zero_snr_fix=False)
        self.final_alpha_cumprod = torch.tensor(1.0) if self.c["set_alpha_to_one"] else self.alphas_cumprod[0]

    def set_timesteps(self, n):
        c = self.c
        N = c["num_train_timesteps"]
        self.n = n
        ts = spaced_timesteps(c, n, np.int64)[::-1].copy()  # ascending
        if c["skip_prk_steps"]:
            self.prk_timesteps = np.array([])
            self.plms_timesteps = np.concatenate([ts[:-1], ts[-2:-1], ts[-1:]])[::-1].copy()
        else:
            prk = np.array(ts[-self.pndm_order:]).repeat(2) + np.tile(np.array([0, N // n // 2]), self.pndm_order)
            self.prk_timesteps = (prk[:-1].repeat(2)[1:-1])[::-1].copy()
            self.plms_timesteps = ts[:-3][::-1].copy()
        self.timesteps = torch.from_numpy(np.concatenate([self.prk_timesteps, self.plms_timesteps]).astype(np.int64))
        self.sigmas = None  # diffusers' PNDMScheduler has none
        self.ets = []
        self.counter = 0
        self.cur_model_output = 0
        self.cur_sample = None

    def scale_model_input(self, sample, i):
        return sample

    def step(self, model_output, i, sample, noise=None):
        timestep = self.timesteps[i]
        if self.counter < len(self.prk_timesteps) and not self.c["skip_prk_steps"]:
            return self.step_prk(model_output, timestep, sample), None
        return self.step_plms(model_output, timestep, sample), None

    def step_prk(self, model_output, timestep, sample):
        N = self.c["num_train_timesteps"]
        diff_to_prev = 0 if self.counter % 2 else N // self.n // 2
        prev_timestep = timestep - diff_to_prev
        timestep = self.prk_timesteps[self.counter // 4 * 4]
        if self.counter % 4 == 0:
            self.cur_model_output += 1 / 6 * model_output
            self.ets.append(model_output)
            self.cur_sample = sample
        elif (self.counter - 1) % 4 == 0:
            self.cur_model_output += 1 / 3 * model_output
        elif (self.counter - 2) % 4 == 0:
            self.cur_model_output += 1 / 3 * model_output
        elif (self.counter - 3) % 4 == 0:
            model_output = self.cur_model_output + 1 / 6 * model_output
            self.cur_model_output = 0
        cur_sample = self.cur_sample if self.cur_sample is not None else sample
        prev = self.prev_sample(cur_sample, timestep, prev_timestep, model_output)
        self.counter += 1
        return prev

    def step_plms(self, model_output, timestep, sample):
        N = self.c["num_train_timesteps"]
        if not self.c["skip_prk_steps"] and len(self.ets) < 3:
            raise ValueError("plms before 12 prk steps")
        prev_timestep = timestep - N // self.n
        if self.counter != 1:
            self.ets = self.ets[-3:]
            self.ets.append(model_output)
        else:
            prev_timestep = timestep
            timestep = timestep + N // self.n
        if len(self.ets) == 1 and self.counter == 0:
            self.cur_sample = sample
        elif len(self.ets) == 1 and self.counter == 1:
            model_output = (model_output + self.ets[-1]) / 2
            sample = self.cur_sample
            self.cur_sample = None
        elif len(self.ets) == 2:
            model_output = (3 * self.ets[-1] - self.ets[-2]) / 2
        elif len(self.ets) == 3:
            model_output = (23 * self.ets[-1] - 16 * self.ets[-2] + 5 * self.ets[-3]) / 12
        else:
            model_output = (1 / 24) * (55 * self.ets[-1] - 59 * self.ets[-2] + 37 * self.ets[-3] - 9 * self.ets[-4])
        prev = self.prev_sample(sample, timestep, prev_timestep, model_output)
        self.counter += 1
        return prev

    def prev_sample(self, sample, timestep, prev_timestep, model_output):
        a_t = self.alphas_cumprod[timestep]
        a_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod
        b_t = 1 - a_t
        b_prev = 1 - a_prev
        if self.c["prediction_type"] == "v_prediction":
            model_output = (a_t**0.5) * model_output + (b_t**0.5) * sample
        elif self.c["prediction_type"] != "epsilon":
            raise ValueError(self.c["prediction_type"])
        sample_coeff = (a_prev / a_t) ** (0.5)
        denom = a_t * b_prev ** (0.5) + (a_t * b_t * a_prev) ** (0.5)
        return sample_coeff * sample - (a_prev - a_t) * model_output / denom


CLASSES = {"EulerDiscreteScheduler": Euler, "EulerAncestralDiscreteScheduler": EulerAncestral,
           "DDIMScheduler": DDIM, "DPMSolverMultistepScheduler": DPM,
           "PNDMScheduler": PNDM}


def build(cls_name, config, eta=0.0):
    kw = {k: v for k, v in config.items()
          if not k.startswith("_") and k not in config.get("_use_default_values", [])}
    cls = CLASSES[cls_name]
    allowed = {"EulerDiscreteScheduler": EULER_DEFAULTS, "EulerAncestralDiscreteScheduler": ANCESTRAL_DEFAULTS,
               "DDIMScheduler": DDIM_DEFAULTS, "DPMSolverMultistepScheduler": DPM_DEFAULTS,
               "PNDMScheduler": PNDM_DEFAULTS}[cls_name]
    kw = {k: v for k, v in kw.items() if k in allowed}
    return cls(eta=eta, **kw) if cls is DDIM else cls(**kw)


def run_case(name, case, inputs):
    """The golden convention; returns {out.<name>.*: tensor}."""
    s = build(case["class"], case["config"], case.get("eta", 0.0))
    n = case["num_inference_steps"]
    s.set_timesteps(n, **case.get("set_timesteps_kwargs", {}))
    out = {f"out.{name}.timesteps": s.timesteps.to(torch.float32)}
    if s.sigmas is not None:
        out[f"out.{name}.sigmas"] = s.sigmas.clone()
    x = inputs["in.x0"] * s.init_noise_sigma
    for i in range(len(s.timesteps)):
        out[f"out.{name}.scaled_input.{i}"] = s.scale_model_input(x, i)
        noise = inputs.get(f"in.noise.{i}")
        x, _ = s.step(inputs[f"in.model_output.{i}"], i, x, noise)
        out[f"out.{name}.prev_sample.{i}"] = x
    return out


def rel(a, b):
    a, b = a.double(), b.double()
    d = b.abs().max().item()
    return (a - b).abs().max().item() / (d if d > 0 else 1.0)


def check(golden_dir):
    manifest = json.load(open(os.path.join(golden_dir, "manifest.json")))["schedulers"]["cases"]
    io = safetensors_io.load(os.path.join(golden_dir, "sched_io.safetensors"))
    worst_all = 0.0
    for name, case in manifest.items():
        if case["class"] not in CLASSES:
            continue
        out = run_case(name, case, io)
        worst = 0.0
        for k, v in out.items():
            if k in io:
                worst = max(worst, rel(v, io[k]))
            elif not k.endswith(".scaled_input.0") and ".scaled_input." not in k:
                print(f"  ({k} not in the golden file)")
        print(f"{name:12s} worst relative error {worst:.2e}")
        worst_all = max(worst_all, worst)
    return worst_all


SD = dict(num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear")

# Cases the golden file lacks; each runs the golden convention with the inputs written beside it.
CASES = {
    # SDXL's scheduler_config.json (stabilityai/stable-diffusion-xl-base-1.0)
    "euler_sdxl": ("EulerDiscreteScheduler", dict(SD, interpolation_type="linear", prediction_type="epsilon",
                                                  sample_max_value=1.0, set_alpha_to_one=False, skip_prk_steps=True,
                                                  steps_offset=1, timestep_spacing="leading", trained_betas=None,
                                                  use_karras_sigmas=False, clip_sample=False), 12, {}),
    "euler_karras": ("EulerDiscreteScheduler", dict(SD, steps_offset=1, timestep_spacing="leading",
                                                    use_karras_sigmas=True), 10, {}),
    "euler_linspace_v": ("EulerDiscreteScheduler", dict(SD, timestep_spacing="linspace",
                                                        prediction_type="v_prediction"), 7, {}),
    "euler_trailing_zsnr_v": ("EulerDiscreteScheduler", dict(SD, timestep_spacing="trailing",
                                                             rescale_betas_zero_snr=True,
                                                             prediction_type="v_prediction"), 6, {}),
    "euler_cosine_sample_sigmamin": ("EulerDiscreteScheduler", dict(beta_schedule="squaredcos_cap_v2",
                                                                    prediction_type="sample",
                                                                    final_sigmas_type="sigma_min"), 5, {}),
    "euler_linear_karras_minmax": ("EulerDiscreteScheduler", dict(use_karras_sigmas=True, sigma_min=0.05,
                                                                  sigma_max=12.0), 8, {}),
    "euler_continuous_v": ("EulerDiscreteScheduler", dict(SD, timestep_type="continuous",
                                                          prediction_type="v_prediction",
                                                          timestep_spacing="trailing"), 5, {}),
    "euler_custom_sigmas": ("EulerDiscreteScheduler", dict(SD), 0,
                            {"sigmas": [14.6, 7.0, 3.1, 1.2, 0.4, 0.03, 0.0]}),
    "euler_a_sd": ("EulerAncestralDiscreteScheduler", dict(SD, steps_offset=1, timestep_spacing="leading"), 8, {}),
    "euler_a_trailing_v": ("EulerAncestralDiscreteScheduler", dict(SD, timestep_spacing="trailing",
                                                                   prediction_type="v_prediction"), 6, {}),
    "euler_a_linspace_zsnr": ("EulerAncestralDiscreteScheduler", dict(SD, rescale_betas_zero_snr=True,
                                                                      timestep_spacing="linspace"), 5, {}),
    "ddim_trailing": ("DDIMScheduler", dict(SD, clip_sample=False, set_alpha_to_one=False,
                                            timestep_spacing="trailing"), 7, {}),
    "ddim_linspace_v_zsnr": ("DDIMScheduler", dict(SD, clip_sample=False, timestep_spacing="linspace",
                                                   prediction_type="v_prediction",
                                                   rescale_betas_zero_snr=True), 6, {}),
    "ddim_eta": ("DDIMScheduler", dict(SD, clip_sample=True, clip_sample_range=1.5, set_alpha_to_one=False,
                                       steps_offset=1), 6, {"eta": 0.7}),
    "ddim_sample_cosine": ("DDIMScheduler", dict(beta_schedule="squaredcos_cap_v2", prediction_type="sample",
                                                 timestep_spacing="leading"), 4, {}),
    "dpmpp_2m": ("DPMSolverMultistepScheduler", dict(SD, steps_offset=1), 12, {}),
    "dpmpp_2m_karras": ("DPMSolverMultistepScheduler", dict(SD, steps_offset=1, use_karras_sigmas=True), 12, {}),
    "dpmpp_2m_karras_20": ("DPMSolverMultistepScheduler", dict(SD, use_karras_sigmas=True,
                                                               timestep_spacing="leading", steps_offset=1), 20, {}),
    "dpmpp_2m_heun_leading_v": ("DPMSolverMultistepScheduler", dict(SD, solver_type="heun",
                                                                    timestep_spacing="leading", steps_offset=1,
                                                                    prediction_type="v_prediction"), 10, {}),
    "dpmpp_2m_trailing_sigmamin": ("DPMSolverMultistepScheduler", dict(SD, timestep_spacing="trailing",
                                                                       final_sigmas_type="sigma_min"), 8, {}),
    "dpmpp_2m_no_lof_16": ("DPMSolverMultistepScheduler", dict(SD, lower_order_final=False), 16, {}),
    "dpmpp_2m_euler_final_sigmamin_16": ("DPMSolverMultistepScheduler", dict(SD, euler_at_final=True,
                                                                             final_sigmas_type="sigma_min"), 16, {}),
    "dpmpp_1_sample": ("DPMSolverMultistepScheduler", dict(SD, solver_order=1, prediction_type="sample"), 6, {}),
    "dpmpp_3m_leading": ("DPMSolverMultistepScheduler", dict(SD, solver_order=3, timestep_spacing="leading",
                                                             steps_offset=1), 12, {}),
    "dpmpp_2m_cosine": ("DPMSolverMultistepScheduler", dict(beta_schedule="squaredcos_cap_v2"), 9, {}),
    "dpmsolver_2_sigmamin": ("DPMSolverMultistepScheduler", dict(SD, algorithm_type="dpmsolver",
                                                                 final_sigmas_type="sigma_min"), 7, {}),
    "dpmpp_2m_sde_karras": ("DPMSolverMultistepScheduler", dict(SD, algorithm_type="sde-dpmsolver++",
                                                                use_karras_sigmas=True), 10, {}),
    "dpmpp_2m_lambda_clip": ("DPMSolverMultistepScheduler", dict(SD, lambda_min_clipped=-5.1,
                                                                 timestep_spacing="trailing"), 10, {}),
    "dpmpp_2m_zsnr_v_trailing": ("DPMSolverMultistepScheduler", dict(SD, rescale_betas_zero_snr=True,
                                                                     prediction_type="v_prediction",
                                                                     timestep_spacing="trailing",
                                                                     final_sigmas_type="zero"), 8, {}),
    # SD 1.5's scheduler_config.json (runwayml/stable-diffusion-v1-5): PLMS, n + 1 model calls
    "pndm_sd15": ("PNDMScheduler", dict(SD, set_alpha_to_one=False, skip_prk_steps=True, steps_offset=1,
                                        trained_betas=None, clip_sample=False), 5, {}),
    "pndm_sd15_20": ("PNDMScheduler", dict(SD, set_alpha_to_one=False, skip_prk_steps=True, steps_offset=1,
                                           trained_betas=None, clip_sample=False), 20, {}),
    "pndm_v_trailing": ("PNDMScheduler", dict(SD, skip_prk_steps=True, prediction_type="v_prediction",
                                              timestep_spacing="trailing"), 7, {}),
    "pndm_linspace_alpha_one": ("PNDMScheduler", dict(SD, skip_prk_steps=True, set_alpha_to_one=True,
                                                      timestep_spacing="linspace"), 6, {}),
    # skip_prk_steps false (the default): 12 Runge-Kutta calls, then n - 3 PLMS ones
    "pndm_prk": ("PNDMScheduler", dict(SD, set_alpha_to_one=False, steps_offset=1), 6, {}),
    "pndm_prk_linear_v_4": ("PNDMScheduler", dict(prediction_type="v_prediction", timestep_spacing="trailing"),
                            4, {}),
}


def make(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    g = torch.Generator().manual_seed(20240611)
    shape = (1, 4, 4, 4)
    max_steps = 21
    inputs = {"in.x0": torch.randn(shape, generator=g)}
    for i in range(max_steps):
        inputs[f"in.model_output.{i}"] = torch.randn(shape, generator=g)
        inputs[f"in.noise.{i}"] = torch.randn(shape, generator=g)
    cases, tensors = {}, dict(inputs)
    for name, (cls, cfg, n, kwargs) in CASES.items():
        kwargs = dict(kwargs)
        eta = kwargs.pop("eta", 0.0)
        if "sigmas" in kwargs:
            n = len(kwargs["sigmas"]) - 1
        case = {"class": cls, "config": cfg, "num_inference_steps": n, "set_timesteps_kwargs": kwargs}
        if eta:
            case["eta"] = eta
        out = run_case(name, case, inputs)
        steps = sum(1 for k in out if ".prev_sample." in k)
        case["steps_run"] = steps
        cases[name] = case
        tensors.update(out)
        print(f"{name:34s} {cls:32s} {steps:2d} steps, t = {out[f'out.{name}.timesteps'][:4].tolist()}...")
    with open(os.path.join(out_dir, "cases.json"), "w") as f:
        json.dump({"note": "made by bench/reference/scheduler_reference.py make (a port of diffusers "
                           "0.40.0.dev0's schedulers, checked against the golden cases); convention: "
                           "x_0 = in.x0 * init_noise_sigma, x_{i+1} = step(in.model_output.i, t_i, x_i, "
                           "noise in.noise.i)",
                   "cases": cases}, f, indent=1)
    safetensors_io.save(os.path.join(out_dir, "sched_ref.safetensors"), tensors)


def diffusers_pndm_class(source_path):
    """PNDMScheduler from diffusers' scheduling_pndm.py, with minimal stand-ins for its bases."""
    import functools
    import inspect
    import types

    src = open(source_path).read()
    for line in ("from ..configuration_utils import ConfigMixin, register_to_config",
                 "from .scheduling_utils import KarrasDiffusionSchedulers, SchedulerMixin, SchedulerOutput"):
        assert line in src, f"{source_path}: expected '{line}'"
        src = src.replace(line, "")

    def register_to_config(init):  # self.config: the arguments with their defaults
        params = inspect.signature(init).parameters

        @functools.wraps(init)
        def wrapped(self, **kw):
            values = {k: p.default for k, p in params.items() if k != "self"}
            values.update(kw)
            self.config = types.SimpleNamespace(**values)
            init(self, **kw)
        return wrapped

    class SchedulerOutput(types.SimpleNamespace):
        pass

    ns = dict(ConfigMixin=type("ConfigMixin", (), {}), SchedulerMixin=type("SchedulerMixin", (), {}),
              SchedulerOutput=SchedulerOutput, register_to_config=register_to_config,
              KarrasDiffusionSchedulers=[], __name__="diffusers_scheduling_pndm")
    exec(compile(src, source_path, "exec"), ns)
    return ns["PNDMScheduler"]


def check_pndm(data_dir, source_path):
    """diffusers' own PNDMScheduler on the PNDM cases of data_dir; the worst difference."""
    cls = diffusers_pndm_class(source_path)
    cases = json.load(open(os.path.join(data_dir, "cases.json")))["cases"]
    io = safetensors_io.load(os.path.join(data_dir, "sched_ref.safetensors"))
    worst_all = 0.0
    for name, case in cases.items():
        if case["class"] != "PNDMScheduler":
            continue
        s = cls(**{k: v for k, v in case["config"].items() if k in PNDM_DEFAULTS})
        s.set_timesteps(case["num_inference_steps"])
        worst = 0.0 if torch.equal(s.timesteps.float(), io[f"out.{name}.timesteps"]) else float("inf")
        x = io["in.x0"] * s.init_noise_sigma
        for i, t in enumerate(s.timesteps):  # as the pipeline calls it: the tensor timestep
            x = s.step(io[f"in.model_output.{i}"], t, s.scale_model_input(x, t)).prev_sample
            worst = max(worst, rel(x, io[f"out.{name}.prev_sample.{i}"]))
        print(f"{name:26s} {len(s.timesteps):2d} calls, diffusers' PNDMScheduler vs the data: {worst:.2e}")
        worst_all = max(worst_all, worst)
    return worst_all


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("check", "make", "check-pndm") or (
            sys.argv[1] == "check-pndm" and len(sys.argv) < 4):
        print(__doc__)
        sys.exit(2)
    if sys.argv[1] == "check":
        sys.exit(0 if check(sys.argv[2]) < 1e-6 else 1)
    if sys.argv[1] == "check-pndm":
        sys.exit(0 if check_pndm(sys.argv[2], sys.argv[3]) == 0 else 1)
    make(sys.argv[2])
