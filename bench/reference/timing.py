"""The `time` and `serve` commands the reference ports share: median wall time of a forward in ms,
or one timed forward per request of a benchmark (bench/python_port.h).
Thread count: OMP_NUM_THREADS (set it to what the C++ side uses; torch here defaults to 1)."""
import statistics
import sys
import time

import torch

import safetensors_io


def time_command(argv, load_folder, forward):
    """argv: [script, "time", FOLDER, INPUTS, fp32|bf16 (default fp32), repeat (default 5)]."""
    name = argv[4] if len(argv) > 4 else "fp32"
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[name]
    repeat = int(argv[5]) if len(argv) > 5 else 5
    cfg, w = load_folder(argv[2], dtype)
    inp = safetensors_io.load(argv[3])
    forward(w, cfg, inp)  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        forward(w, cfg, inp)
        times.append((time.perf_counter() - t0) * 1000)
    print(f"python {name}: median {statistics.median(times):.1f} ms, "
          f"min {min(times):.1f}, max {max(times):.1f} ({torch.get_num_threads()} threads)")


def serve_command(argv, load_folder, forward):
    """argv: [script, "serve", FOLDER, INPUTS, fp32|bf16 (default fp32)]. Loads once, prints
    "ready THREADS", then times one forward per line read and prints "WALL_MS CPU_MS"."""
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16}[argv[4] if len(argv) > 4 else "fp32"]
    cfg, w = load_folder(argv[2], dtype)
    inp = safetensors_io.load(argv[3])
    forward(w, cfg, inp)  # warm-up
    print(f"ready {torch.get_num_threads()}", flush=True)
    while sys.stdin.readline():
        c0, t0 = time.process_time(), time.perf_counter()
        forward(w, cfg, inp)
        print(f"{(time.perf_counter() - t0) * 1e3:.3f} {(time.process_time() - c0) * 1e3:.3f}",
              flush=True)
