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

`check`, `compare`, `time` and `serve` are port_commands.py's.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
from common_ops import attention as sdpa, conv, group_norm, linear, upsample  # noqa: E402
from weight_init import RandomWeights  # noqa: E402


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
    q, k, v = (linear(w, p + n, h) for n in (".to_q", ".to_k", ".to_v"))
    o = linear(w, p + ".to_out.0", sdpa(q[:, None], k[:, None], v[:, None])[:, 0])
    return o.transpose(1, 2).reshape(b, c, hh, ww) + x


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
    return port_commands.load_component(d, dtype, skip=("encoder.", "quant_conv."))  # decode only


def make_weights(cfg):
    """Random weights in the full AutoencoderKL key layout (encoder too, so loaders accept it)."""
    w = RandomWeights()
    ch = cfg["block_out_channels"]
    layers = cfg["layers_per_block"]
    lat = cfg["latent_channels"]

    def res(p, i, o):
        w.norm(p + ".norm1", i, bias=0.1)
        w.conv(p + ".conv1", i, o, (3, 3))
        w.norm(p + ".norm2", o, bias=0.1)
        w.conv(p + ".conv2", o, o, (3, 3), scale=0.5)
        if i != o:
            w.conv(p + ".conv_shortcut", i, o, (1, 1))

    def mid(p, c):
        res(p + ".resnets.0", c, c)
        w.norm(p + ".attentions.0.group_norm", c, bias=0.1)
        for n in ("to_q", "to_k", "to_v", "to_out.0"):
            w.linear(f"{p}.attentions.0.{n}", c, c, bias=0.02)
        res(p + ".resnets.1", c, c)

    # encoder: conv_in, down blocks (layers_per_block resnets, a stride-2 conv on all but the last)
    w.conv("encoder.conv_in", cfg["in_channels"], ch[0], (3, 3))
    prev = ch[0]
    for i, c in enumerate(ch):
        for j in range(layers):
            res(f"encoder.down_blocks.{i}.resnets.{j}", prev if j == 0 else c, c)
        prev = c
        if i < len(ch) - 1:
            w.conv(f"encoder.down_blocks.{i}.downsamplers.0.conv", c, c, (3, 3))
    mid("encoder.mid_block", ch[-1])
    w.norm("encoder.conv_norm_out", ch[-1], bias=0.1)
    w.conv("encoder.conv_out", ch[-1], 2 * lat, (3, 3))
    w.conv("quant_conv", 2 * lat, 2 * lat, (1, 1))
    w.conv("post_quant_conv", lat, lat, (1, 1))
    # decoder: conv_in, mid block, up blocks (layers_per_block + 1 resnets, upsampler on all but the last)
    rev = list(reversed(ch))
    w.conv("decoder.conv_in", lat, rev[0], (3, 3))
    mid("decoder.mid_block", rev[0])
    prev = rev[0]
    for i, c in enumerate(rev):
        for j in range(layers + 1):
            res(f"decoder.up_blocks.{i}.resnets.{j}", prev if j == 0 else c, c)
        prev = c
        if i < len(rev) - 1:
            w.conv(f"decoder.up_blocks.{i}.upsamplers.0.conv", c, c, (3, 3))
    w.norm("decoder.conv_norm_out", ch[0], bias=0.1)
    w.conv("decoder.conv_out", ch[0], cfg["out_channels"], (3, 3))
    return w


def make(d):
    # the SD 1.x / SDXL VAE architecture; a 4 x 32 x 32 latent decodes to 256 x 256
    cfg = {"_class_name": "AutoencoderKL", "act_fn": "silu", "block_out_channels": [128, 256, 512, 512],
           "down_block_types": ["DownEncoderBlock2D"] * 4, "force_upcast": True, "in_channels": 3,
           "latent_channels": 4, "latents_mean": None, "latents_std": None, "layers_per_block": 2,
           "mid_block_add_attention": True, "norm_num_groups": 32, "out_channels": 3, "sample_size": 256,
           "scaling_factor": 0.18215, "shift_factor": None, "up_block_types": ["UpDecoderBlock2D"] * 4,
           "use_post_quant_conv": True, "use_quant_conv": True}
    torch.manual_seed(0)
    w = make_weights(cfg)
    port_commands.write_bench_folder(d, cfg, w, {"in.z": torch.randn(1, 4, 32, 32)})


def main():
    port_commands.bench_main(load_folder, forward, ["out.decode.sample"], "diffusers'", make)


if __name__ == "__main__":
    main()
