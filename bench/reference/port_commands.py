"""What the reference ports share around their forward: reading a component folder, the relative
error, and the commands

  check FOLDER IO                      the port against the reference library's outputs in IO
  compare FOLDER INPUTS CPP_OUTPUT     the C++ module's outputs against the port's
  time FOLDER INPUTS [fp32|bf16] [repeat]
  serve FOLDER INPUTS [fp32|bf16]      for the benchmarks (bench/python_port.h)

`time` prints the median wall time of a forward in ms. `serve` loads once and runs one warm-up
forward, prints "ready THREADS", then times one forward per line read from stdin and answers
"WALL_MS CPU_MS" (process CPU time, all threads); it exits at the end of stdin. Thread count:
OMP_NUM_THREADS (set it to what the C++ side uses; torch here defaults to 1).

A forward is forward(w, cfg, inputs) with the in.* tensors; it returns one tensor, a tuple, or
a dict of out.* tensors. `keys` names a tensor's or a tuple's outputs."""
import json
import os
import statistics
import sys
import time

import torch

import safetensors_io

DIFFUSERS_WEIGHTS = "diffusion_pytorch_model.safetensors"
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}


def load_component(d, dtype=torch.float32, weights=DIFFUSERS_WEIGHTS, floating_only=False,
                   skip=()):
    """(config, weights cast to dtype) of the folder d: its config.json and `weights` file, less
    the keys that start with one of `skip` (and the integer tensors with floating_only)."""
    cfg = json.load(open(os.path.join(d, "config.json")))
    w = {k: v.to(dtype) for k, v in safetensors_io.load(os.path.join(d, weights)).items()
         if not k.startswith(tuple(skip)) and (v.is_floating_point() or not floating_only)}
    return cfg, w


def write_component(d, cfg, w, weights=DIFFUSERS_WEIGHTS, indent=2):
    """A component folder: config.json and the weights."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=indent)
    safetensors_io.save(os.path.join(d, weights), w)


def write_bench_folder(d, cfg, w, inputs):
    """What `make` writes for a benchmark: the component folder (w: a weight_init.Weights) and the
    in.* tensors `inputs` in inputs.safetensors."""
    write_component(d, cfg, w)
    safetensors_io.save(os.path.join(d, "inputs.safetensors"), inputs)
    print(f"wrote {d}: {w.count()} parameters")


def rel_err(out, ref, dtype=torch.float32):
    """max |out - ref| / max |ref|, computed in dtype."""
    out, ref = out.to(dtype), ref.to(dtype)
    return ((out - ref).abs().max() / ref.abs().max()).item()


def named_outputs(y, keys):
    return y if isinstance(y, dict) else dict(zip(keys, y if isinstance(y, tuple) else (y,)))


def check(argv, load_folder, forward, keys, source, threshold=1e-4, dtype=torch.float32):
    """argv: [script, "check", FOLDER, IO]: forward on IO's inputs against each of `keys` that IO
    holds (what `source`, the reference library, computed); fails past `threshold`."""
    cfg, w = load_folder(argv[2])
    io = safetensors_io.load(argv[3])
    out = named_outputs(forward(w, cfg, io), keys)
    errs = []
    for key in (k for k in keys if k in io and k in out):
        errs.append(rel_err(out[key], io[key], dtype))
        print(f"{key}: relative error against {source} output: {errs[-1]:.2e}")
    if not errs:
        print(f"{argv[3]} holds none of {', '.join(keys)}")
    sys.exit(0 if errs and all(e < threshold for e in errs) else 1)


def compare(argv, load_folder, forward, keys, dtype=torch.float32):
    """argv: [script, "compare", FOLDER, INPUTS, CPP_OUTPUT]: the C++ module's `keys` against
    the port's on the same inputs (the errors computed in dtype)."""
    cfg, w = load_folder(argv[2])
    out = named_outputs(forward(w, cfg, safetensors_io.load(argv[3])), keys)
    cpp = safetensors_io.load(argv[4])
    errs = []
    for key in keys:
        if tuple(cpp[key].shape) != tuple(out[key].shape):
            print(f"{key}: shape mismatch: C++ {tuple(cpp[key].shape)}, Python {tuple(out[key].shape)}")
            sys.exit(1)
        errs.append(rel_err(cpp[key], out[key], dtype))
        print(f"{key}: relative error C++ vs Python: {errs[-1]:.2e}")
    sys.exit(0 if all(e < 1e-4 for e in errs) else 1)


def _load_timed(argv, load_folder, cast_inputs):
    """The dtype's name, config, weights and inputs of a time or serve command (argv[4] the dtype,
    fp32 by default); with cast_inputs the floating inputs are cast to the dtype too."""
    name = argv[4] if len(argv) > 4 else "fp32"
    dtype = DTYPES[name]
    cfg, w = load_folder(argv[2], dtype)
    inp = safetensors_io.load(argv[3])
    if cast_inputs:
        inp = {k: (v.to(dtype) if v.is_floating_point() else v) for k, v in inp.items()}
    return name, cfg, w, inp


def time_command(argv, load_folder, forward, cast_inputs=False):
    """argv: [script, "time", FOLDER, INPUTS, fp32|bf16 (default fp32), repeat (default 5)]."""
    name, cfg, w, inp = _load_timed(argv, load_folder, cast_inputs)
    repeat = int(argv[5]) if len(argv) > 5 else 5
    forward(w, cfg, inp)  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        forward(w, cfg, inp)
        times.append((time.perf_counter() - t0) * 1000)
    print(f"python {name}: median {statistics.median(times):.1f} ms, "
          f"min {min(times):.1f}, max {max(times):.1f} ({torch.get_num_threads()} threads)")


def serve_command(argv, load_folder, forward, cast_inputs=False):
    """argv: [script, "serve", FOLDER, INPUTS, fp32|bf16 (default fp32)]."""
    _, cfg, w, inp = _load_timed(argv, load_folder, cast_inputs)
    forward(w, cfg, inp)  # warm-up
    print(f"ready {torch.get_num_threads()}", flush=True)
    while sys.stdin.readline():
        c0, t0 = time.process_time(), time.perf_counter()
        forward(w, cfg, inp)
        print(f"{(time.perf_counter() - t0) * 1e3:.3f} {(time.process_time() - c0) * 1e3:.3f}",
              flush=True)


def standard_commands(load_folder, forward, keys, source, cast_inputs=False, dtype=torch.float32):
    """check, compare, time and serve of a port whose forward gives `keys`."""
    return {"check": lambda argv: check(argv, load_folder, forward, keys, source, dtype=dtype),
            "compare": lambda argv: compare(argv, load_folder, forward, keys, dtype),
            "time": lambda argv: time_command(argv, load_folder, forward, cast_inputs),
            "serve": lambda argv: serve_command(argv, load_folder, forward, cast_inputs)}


def bench_main(load_folder, forward, keys, source, make):
    """main() of a port with the standard commands and `make FOLDER` (the benchmark's folder)."""
    main({**standard_commands(load_folder, forward, keys, source),
          "make": lambda argv: make(argv[2])})


def main(commands, usage=None):
    """Runs the command that sys.argv[1] names (`commands`: name -> function of argv), without
    autograd; an unknown one exits with `usage`."""
    torch.set_grad_enabled(False)
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd not in commands:
        sys.exit(usage or f"unknown command {cmd!r}; see the module docstring")
    commands[cmd](sys.argv)
