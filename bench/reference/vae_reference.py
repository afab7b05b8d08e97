"""A plain-PyTorch port of diffusers' AutoencoderKL decode, for timing Halfscope's C++ module
against the same computation in Python on the same weights, dtype and thread count.

diffusers itself cannot be installed on this machine (no PyPI); this port follows
AutoencoderKL.decode (post_quant_conv, then Decoder: conv_in, mid block, up blocks, norm, SiLU,
conv_out) op by op and is checked against the golden outputs that diffusers produced
(tests/data/golden), so it computes what the reference class computes. The latent in.z is fed
to decode() as is (no division by scaling_factor), as in the golden file and run-module.

  /usr/bin/python3 bench/reference/vae_reference.py check tests/data/golden/vae tests/data/golden/vae_io.safetensors
  /usr/bin/python3 bench/reference/vae_reference.py make DIR          # realistic-size folder + inputs
  /usr/bin/python3 bench/reference/vae_reference.py time DIR INPUTS [fp32|bf16] [repeat]
  /usr/bin/python3 bench/reference/vae_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors
"""
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import safetensors_io  # noqa: E402
import timing  # noqa: E402


def conv(w, p, x, padding=1):
    return F.conv2d(x, w[p + ".weight"], w[p + ".bias"], padding=padding)


def group_norm(w, p, x, groups):
    return F.group_norm(x, groups, w[p + ".weight"], w[p + ".bias"], eps=1e-6)


def resnet(w, p, x, groups):
    h = conv(w, p + ".conv1", F.silu(group_norm(w, p + ".norm1", x, groups)))
    h = conv(w, p + ".conv2", F.silu(group_norm(w, p + ".norm2", h, groups)))
    if p + ".conv_shortcut.weight" in w:
        x = conv(w, p + ".conv_shortcut", x, padding=0)
    return (x + h) / 1.0  # output_scale_factor 1


def attention(w, p, x, groups):
    # diffusers' Attention with group_norm, one head of width C, residual, rescale 1
    b, c, hh, ww = x.shape
    h = group_norm(w, p + ".group_norm", x, groups).view(b, c, hh * ww).transpose(1, 2)
    q, k, v = (F.linear(h, w[p + n + ".weight"], w[p + n + ".bias"]) for n in (".to_q", ".to_k", ".to_v"))
    if hasattr(F, "scaled_dot_product_attention"):
        o = F.scaled_dot_product_attention(q[:, None], k[:, None], v[:, None])[:, 0]
    else:
        o = torch.softmax((q.float() @ k.float().transpose(-2, -1)) / math.sqrt(c), -1).to(v.dtype) @ v
    o = F.linear(o, w[p + ".to_out.0.weight"], w[p + ".to_out.0.bias"])
    return o.transpose(1, 2).reshape(b, c, hh, ww) + x


def upsample(w, p, x):
    dtype = x.dtype  # diffusers upsamples bfloat16 in float32
    if dtype == torch.bfloat16:
        x = x.float()
    x = F.interpolate(x.contiguous(), scale_factor=2.0, mode="nearest").to(dtype)
    return conv(w, p + ".conv", x)


def decode(w, cfg, z):
    g = cfg.get("norm_num_groups", 32)
    layers = cfg.get("layers_per_block", 1)
    levels = len(cfg.get("block_out_channels", [64]))
    if cfg.get("use_post_quant_conv", True):
        z = conv(w, "post_quant_conv", z, padding=0)
    x = conv(w, "decoder.conv_in", z)
    x = resnet(w, "decoder.mid_block.resnets.0", x, g)
    if cfg.get("mid_block_add_attention", True):
        x = attention(w, "decoder.mid_block.attentions.0", x, g)
    x = resnet(w, "decoder.mid_block.resnets.1", x, g)
    for i in range(levels):
        for j in range(layers + 1):
            x = resnet(w, f"decoder.up_blocks.{i}.resnets.{j}", x, g)
        if i < levels - 1:
            x = upsample(w, f"decoder.up_blocks.{i}.upsamplers.0", x)
    x = F.silu(group_norm(w, "decoder.conv_norm_out", x, g))
    return conv(w, "decoder.conv_out", x)


def forward(w, cfg, inp):
    return decode(w, cfg, inp["in.z"].to(w["decoder.conv_in.weight"].dtype))


def load_folder(d, dtype=torch.float32):
    cfg = json.load(open(os.path.join(d, "config.json")))
    w = {k: v.to(dtype) for k, v in safetensors_io.load(os.path.join(d, "diffusion_pytorch_model.safetensors")).items()
         if not k.startswith(("encoder.", "quant_conv."))}  # decode only
    return cfg, w


def rel_err(out, ref):
    return ((out.float() - ref.float()).abs().max() / ref.float().abs().max()).item()


def make_weights(cfg):
    """Random weights in the full AutoencoderKL key layout (encoder too, so loaders accept it)."""
    w = {}
    ch = cfg["block_out_channels"]
    layers = cfg["layers_per_block"]
    lat = cfg["latent_channels"]

    def cv(p, i, o, k=3, scale=1.0):
        w[p + ".weight"] = torch.randn(o, i, k, k) * (scale / math.sqrt(i * k * k))
        w[p + ".bias"] = torch.randn(o) * 0.02

    def gn(p, c):
        w[p + ".weight"] = 1 + 0.1 * torch.randn(c)
        w[p + ".bias"] = 0.1 * torch.randn(c)

    def res(p, i, o):
        gn(p + ".norm1", i)
        cv(p + ".conv1", i, o)
        gn(p + ".norm2", o)
        cv(p + ".conv2", o, o, scale=0.5)
        if i != o:
            cv(p + ".conv_shortcut", i, o, k=1)

    def mid(p, c):
        res(p + ".resnets.0", c, c)
        gn(p + ".attentions.0.group_norm", c)
        for n in ("to_q", "to_k", "to_v", "to_out.0"):
            w[f"{p}.attentions.0.{n}.weight"] = torch.randn(c, c) / math.sqrt(c)
            w[f"{p}.attentions.0.{n}.bias"] = torch.randn(c) * 0.02
        res(p + ".resnets.1", c, c)

    # encoder: conv_in, down blocks (layers_per_block resnets, a stride-2 conv on all but the last)
    cv("encoder.conv_in", cfg["in_channels"], ch[0])
    prev = ch[0]
    for i, c in enumerate(ch):
        for j in range(layers):
            res(f"encoder.down_blocks.{i}.resnets.{j}", prev if j == 0 else c, c)
        prev = c
        if i < len(ch) - 1:
            cv(f"encoder.down_blocks.{i}.downsamplers.0.conv", c, c)
    mid("encoder.mid_block", ch[-1])
    gn("encoder.conv_norm_out", ch[-1])
    cv("encoder.conv_out", ch[-1], 2 * lat)
    cv("quant_conv", 2 * lat, 2 * lat, k=1)
    cv("post_quant_conv", lat, lat, k=1)
    # decoder: conv_in, mid block, up blocks (layers_per_block + 1 resnets, upsampler on all but the last)
    rev = list(reversed(ch))
    cv("decoder.conv_in", lat, rev[0])
    mid("decoder.mid_block", rev[0])
    prev = rev[0]
    for i, c in enumerate(rev):
        for j in range(layers + 1):
            res(f"decoder.up_blocks.{i}.resnets.{j}", prev if j == 0 else c, c)
        prev = c
        if i < len(rev) - 1:
            cv(f"decoder.up_blocks.{i}.upsamplers.0.conv", c, c)
    gn("decoder.conv_norm_out", ch[0])
    cv("decoder.conv_out", ch[0], cfg["out_channels"])
    return w


def main():
    torch.set_grad_enabled(False)
    cmd = sys.argv[1]
    if cmd == "check":
        cfg, w = load_folder(sys.argv[2])
        io = safetensors_io.load(sys.argv[3])
        err = rel_err(forward(w, cfg, io), io["out.decode.sample"])
        print(f"relative error against diffusers' output: {err:.2e}")
        sys.exit(0 if err < 1e-4 else 1)
    if cmd == "make":
        d = sys.argv[2]
        os.makedirs(d, exist_ok=True)
        # the SD 1.x / SDXL VAE architecture; a 4 x 32 x 32 latent decodes to 256 x 256
        cfg = {"_class_name": "AutoencoderKL", "act_fn": "silu", "block_out_channels": [128, 256, 512, 512],
               "down_block_types": ["DownEncoderBlock2D"] * 4, "force_upcast": True, "in_channels": 3,
               "latent_channels": 4, "latents_mean": None, "latents_std": None, "layers_per_block": 2,
               "mid_block_add_attention": True, "norm_num_groups": 32, "out_channels": 3, "sample_size": 256,
               "scaling_factor": 0.18215, "shift_factor": None, "up_block_types": ["UpDecoderBlock2D"] * 4,
               "use_post_quant_conv": True, "use_quant_conv": True}
        json.dump(cfg, open(os.path.join(d, "config.json"), "w"), indent=2)
        torch.manual_seed(0)
        w = make_weights(cfg)
        safetensors_io.save(os.path.join(d, "diffusion_pytorch_model.safetensors"), w)
        safetensors_io.save(os.path.join(d, "inputs.safetensors"), {"in.z": torch.randn(1, 4, 32, 32)})
        print(f"wrote {d}: {sum(t.numel() for t in w.values())} parameters")
        return
    if cmd == "compare":
        cfg, w = load_folder(sys.argv[2])
        out = forward(w, cfg, safetensors_io.load(sys.argv[3]))
        cpp = safetensors_io.load(sys.argv[4])["out.decode.sample"]
        if tuple(cpp.shape) != tuple(out.shape):
            print(f"shape mismatch: C++ {tuple(cpp.shape)}, Python {tuple(out.shape)}")
            sys.exit(1)
        err = rel_err(cpp, out)
        print(f"out.decode.sample: relative error C++ vs Python: {err:.2e}")
        sys.exit(0 if err < 1e-4 else 1)
    if cmd == "time":
        timing.time_command(sys.argv, load_folder, forward)
        return
    sys.exit(f"unknown command {cmd!r}; see the module docstring")


if __name__ == "__main__":
    main()
