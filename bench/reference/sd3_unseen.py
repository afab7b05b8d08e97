"""Halfscope's SD3 transformer on configurations the goldens do not cover, against
sd3_reference.py's port of diffusers' SD3Transformer2DModel: other patch sizes, channel counts
(out_channels unlike in_channels, or null), depths, dual-attention layers (none, some, all, the
last block included), qk_norm null / "rms_norm", positional tables larger than the latent
(cropped, odd margins) or the same size, non-square latents, batch 2 with two timesteps. The
golden sd3 / sd35 folders run first as a control.

  /usr/bin/python3 bench/reference/sd3_unseen.py [--cli build-tests/app/halfscope-cli]
      [--work DIR] [--golden DIR] [--only NAME]

For each configuration it writes a component folder (config.json + random weights) and its
in.* tensors under DIR, runs `halfscope-cli run-module`, and prints the relative error of the C++
out.sample against the port's; exits 1 when one exceeds 1e-4 or fails to run.
"""
import argparse
import os
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
import safetensors_io  # noqa: E402
import sd3_reference  # noqa: E402

THRESHOLD = 1e-4
ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))


def config(patch, in_ch, out_ch, layers, heads, head_dim, dual=(), qk=None, sample=32,
           max_size=24, joint=24, pooled=20):
    return {"_class_name": "SD3Transformer2DModel", "sample_size": sample, "patch_size": patch,
            "in_channels": in_ch, "out_channels": out_ch, "num_layers": layers,
            "attention_head_dim": head_dim, "num_attention_heads": heads,
            "joint_attention_dim": joint, "caption_projection_dim": heads * head_dim,
            "pooled_projection_dim": pooled, "pos_embed_max_size": max_size,
            "dual_attention_layers": list(dual), "qk_norm": qk}


# name, config, (batch, latent height, latent width, text tokens), timesteps
CASES = [
    ("p2 c16 sd3-medium-like", config(2, 16, 16, 2, 4, 8), (1, 16, 16, 7), [500.0]),
    ("p2 in4 out8 dual(0,2) rms", config(2, 4, 8, 3, 2, 16, dual=(0, 2), qk="rms_norm"),
     (1, 12, 20, 5), [731.5]),
    ("p1 in8 out4 4L dual-all rms", config(1, 8, 4, 4, 3, 16, dual=(0, 1, 2, 3), qk="rms_norm",
                                           max_size=20), (1, 9, 13, 6), [3.0]),
    ("p4 in4 out-null 2L", config(4, 4, None, 2, 4, 8, sample=64, max_size=10), (1, 24, 16, 4),
     [999.0]),
    ("p2 1L dual(0,) rms (only block pre-only)", config(2, 16, 16, 1, 2, 16, dual=(0,),
                                                         qk="rms_norm"), (1, 8, 8, 3), [250.0]),
    ("p2 in8 out16 4L dual(0,2) batch2", config(2, 8, 16, 4, 3, 16, dual=(0, 2)), (2, 14, 10, 9),
     [100.0, 900.0]),
    ("p1 c4 3L rms no-dual, latent = table (no crop)", config(1, 4, 4, 3, 4, 8, qk="rms_norm",
                                                              sample=12, max_size=12),
     (1, 12, 12, 1), [0.0]),
    ("p2 c16 sample128 max8 dual(1,) batch2", config(2, 16, 16, 2, 2, 24, dual=(1,),
                                                     sample=128, max_size=8),
     (2, 16, 6, 8), [42.0, 42.0]),
]


def run_case(name, folder, inputs_path, cfg, w, inp, cli):
    """Runs the C++ module on the folder; returns the relative error against the port (None if
    the CLI failed, printing why)."""
    out_path = os.path.join(os.path.dirname(inputs_path), os.path.basename(folder) + "_cpp.safetensors")
    r = subprocess.run([cli, "run-module", "--model", folder, "--inputs", inputs_path,
                        "--output", out_path, "--device", "cpu"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{name}: halfscope-cli failed ({r.returncode}): {(r.stderr or r.stdout).strip()[-400:]}")
        return None
    ref = sd3_reference.forward(w, cfg, inp)
    cpp = safetensors_io.load(out_path)["out.sample"]
    if tuple(cpp.shape) != tuple(ref.shape):
        print(f"{name}: shape mismatch: C++ {tuple(cpp.shape)}, Python {tuple(ref.shape)}")
        return None
    return port_commands.rel_err(cpp, ref)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", default=os.path.join(ROOT, "build-tests/app/halfscope-cli"))
    ap.add_argument("--work", default="/tmp/sd3_unseen")
    ap.add_argument("--golden", default=os.path.join(ROOT, "tests/data/golden"))
    ap.add_argument("--only", default=None, help="run the cases whose name holds this text")
    args = ap.parse_args()
    torch.set_grad_enabled(False)
    os.makedirs(args.work, exist_ok=True)

    jobs = []  # name, folder, inputs path, config, weights, inputs
    for g in ("sd3", "sd35"):
        folder = os.path.join(args.golden, g)
        cfg, w = port_commands.load_component(folder)
        io_path = os.path.join(args.golden, g + "_io.safetensors")
        io = safetensors_io.load(io_path)
        jobs.append((f"golden {g} (control)", folder, io_path, cfg, w,
                     {k: v for k, v in io.items() if k.startswith("in.")}))
    for i, (name, cfg, (b, hgt, wid, txt), steps) in enumerate(CASES):
        gen = torch.Generator().manual_seed(1000 + i)
        w = sd3_reference.random_weights(cfg, gen)
        inp = {"in.hidden_states": torch.randn(b, cfg["in_channels"], hgt, wid, generator=gen),
               "in.encoder_hidden_states": torch.randn(b, txt, cfg["joint_attention_dim"],
                                                       generator=gen),
               "in.pooled_projections": torch.randn(b, cfg["pooled_projection_dim"], generator=gen),
               "in.timestep": torch.tensor(steps)}
        folder = os.path.join(args.work, f"case{i}")
        port_commands.write_component(folder, cfg, w)
        inputs_path = os.path.join(args.work, f"case{i}_inputs.safetensors")
        safetensors_io.save(inputs_path, inp)
        jobs.append((name, folder, inputs_path, cfg, w, inp))

    failed = 0
    for name, folder, inputs_path, cfg, w, inp in jobs:
        if args.only and args.only not in name:
            continue
        err = run_case(name, folder, inputs_path, cfg, w, inp, args.cli)
        if err is None or not err < THRESHOLD:
            failed += 1
        if err is not None:
            shape = "x".join(str(s) for s in inp["in.hidden_states"].shape)
            print(f"{'FAIL' if not err < THRESHOLD else 'ok  '} {name:48s} in {shape:12s} "
                  f"max rel err {err:.2e}")
    print(f"{failed} failing" if failed else f"all within {THRESHOLD:g}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
