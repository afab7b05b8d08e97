"""A plain-PyTorch port of diffusers' AutoencoderKLQwenImage / AutoencoderKLWan (Wan 2.1 layout:
is_residual false, no patch_size) for one frame, the way images use it: T = 1, first chunk, so
the feature cache is empty, every causal conv pads two zero frames in front (for 3x3x3 kernels),
and the resamplers' time_conv is not run. It works on 5-D tensors [B, C, T, H, W] with real
Conv3d kernels, as diffusers does, so it checks the C++ module's 2-D shortcut independently.

Checked against diffusers' own outputs (tests/data/golden/qwen_vae*), then used to make
reference cases for configurations the golden file does not cover:

  /usr/bin/python3 bench/reference/wan_vae_reference.py check tests/data/golden/qwen_vae tests/data/golden/qwen_vae_io.safetensors
  /usr/bin/python3 bench/reference/wan_vae_reference.py make-wan tests/data/wan_vae/wan21_tiny
  /usr/bin/python3 bench/reference/wan_vae_reference.py original tests/data/golden/qwen_vae tests/data/wan_vae/qwen_vae_original.safetensors
  /usr/bin/python3 bench/reference/wan_vae_reference.py make DIR          # Qwen-Image widths, 1 x 16 x 1 x 32 x 32 latent
  /usr/bin/python3 bench/reference/wan_vae_reference.py time DIR INPUTS [fp32|bf16] [repeat]
  /usr/bin/python3 bench/reference/wan_vae_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors
  /usr/bin/python3 bench/reference/wan_vae_reference.py serve DIR INPUTS [fp32|bf16]   (for bench_wan_vae)

`check`, `compare`, `time` and `serve` are port_commands.py's (the last three decode only).
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
import safetensors_io  # noqa: E402
from weight_init import RandomWeights  # noqa: E402

DEFAULT_MEAN = [-0.7571, -0.7089, -0.9113, 0.1075, -0.1745, 0.9653, -0.1517, 1.5508,
                0.4134, -0.0715, 0.5517, -0.3632, -0.1922, -0.9497, 0.2503, -0.2921]
DEFAULT_STD = [2.8184, 1.4541, 2.3275, 2.6558, 1.2196, 1.7708, 2.6052, 2.0743,
               3.2687, 2.1526, 2.8652, 1.5579, 1.6382, 1.1253, 2.8251, 1.9160]


def arch(cfg):
    """The architecture switches both class names share, with diffusers' defaults."""
    qwen = cfg.get("_class_name") == "AutoencoderKLQwenImage"
    base = cfg.get("base_dim", 96)
    a = {
        "base": base,
        "dec_base": base if qwen or cfg.get("decoder_base_dim") is None else cfg["decoder_base_dim"],
        "z": cfg.get("z_dim", 16),
        "mult": cfg.get("dim_mult", [1, 2, 4, 4]),
        "nres": cfg.get("num_res_blocks", 2),
        "attn_scales": cfg.get("attn_scales", []),
        "tdown": cfg.get("temperal_downsample", [False, True, True]),
        "cin": cfg.get("input_channels", 3) if qwen else cfg.get("in_channels", 3),
        "cout": cfg.get("input_channels", 3) if qwen else cfg.get("out_channels", 3),
    }
    assert not cfg.get("is_residual", False) and cfg.get("patch_size") in (None, 1)
    return a


# ---- layers -----------------------------------------------------------------------------------

def cconv(w, p, x, stride=1):
    """QwenImageCausalConv3d with an empty cache: pad 2 * p_t zero frames in front."""
    k = w[p + ".weight"]
    kt, kh, kw = k.shape[2:]
    x = F.pad(x, (kw // 2, kw // 2, kh // 2, kh // 2, 2 * (kt // 2), 0))
    return F.conv3d(x, k, w[p + ".bias"], stride=stride)


def rms(w, p, x):
    """QwenImageRMS_norm: F.normalize over channels (in fp32 for half inputs), * sqrt(C) * gamma."""
    g = w[p + ".gamma"]
    half = x.dtype in (torch.float16, torch.bfloat16)
    n = F.normalize(x.float() if half else x, dim=1).to(x.dtype)
    return n * (g.shape[0] ** 0.5) * g


def frames2d(x, fn):
    b, c, t, h, ww = x.shape
    y = fn(x.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, ww))
    return y.view(b, t, y.shape[1], y.shape[2], y.shape[3]).permute(0, 2, 1, 3, 4)


def resblock(w, p, x):
    h = cconv(w, p + ".conv_shortcut", x) if p + ".conv_shortcut.weight" in w else x
    x = cconv(w, p + ".conv1", F.silu(rms(w, p + ".norm1", x)))
    x = cconv(w, p + ".conv2", F.silu(rms(w, p + ".norm2", x)))
    return x + h


def attention(w, p, x):
    def one(f):  # [BT, C, H, W]
        bt, c, h, ww = f.shape
        n = rms(w, p + ".norm", f)
        qkv = F.conv2d(n, w[p + ".to_qkv.weight"], w[p + ".to_qkv.bias"])
        qkv = qkv.reshape(bt, 1, c * 3, -1).permute(0, 1, 3, 2).contiguous()
        q, k, v = qkv.chunk(3, dim=-1)  # [BT, 1, L, C]
        s = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(c), dim=-1)
        o = (s @ v).squeeze(1).permute(0, 2, 1).reshape(bt, c, h, ww)
        return F.conv2d(o, w[p + ".proj.weight"], w[p + ".proj.bias"])
    return frames2d(x, one) + x


def resample(w, p, x, mode):
    """First chunk: upsample3d marks the cache 'Rep', downsample3d stores x; no time_conv."""
    if mode.startswith("up"):
        def up(f):
            f = F.interpolate(f.float(), scale_factor=2.0, mode="nearest").type_as(f)
            return F.conv2d(f, w[p + ".resample.1.weight"], w[p + ".resample.1.bias"], padding=1)
        return frames2d(x, up)

    def down(f):
        f = F.pad(f, (0, 1, 0, 1))
        return F.conv2d(f, w[p + ".resample.1.weight"], w[p + ".resample.1.bias"], stride=2)
    return frames2d(x, down)


def mid(w, p, x):
    x = resblock(w, p + ".resnets.0", x)
    x = attention(w, p + ".attentions.0", x)
    return resblock(w, p + ".resnets.1", x)


# ---- encoder / decoder ------------------------------------------------------------------------

def encoder_layout(a):
    """The flat encoder.down_blocks list: ('res', in, out) | ('attn', c) | ('down', c, mode)."""
    dims = [a["base"] * u for u in [1] + a["mult"]]
    layout, scale = [], 1.0
    for i, (cin, cout) in enumerate(zip(dims[:-1], dims[1:])):
        for _ in range(a["nres"]):
            layout.append(("res", cin, cout))
            if scale in a["attn_scales"]:
                layout.append(("attn", cout))
            cin = cout
        if i != len(a["mult"]) - 1:
            layout.append(("down", cout, "downsample3d" if a["tdown"][i] else "downsample2d"))
            scale /= 2.0
    return dims, layout


def decoder_layout(a):
    """Per up block: (in, out, upsample mode or None)."""
    m = a["mult"]
    dims = [a["dec_base"] * u for u in [m[-1]] + m[::-1]]
    tup = a["tdown"][::-1]
    blocks = []
    for i, (cin, cout) in enumerate(zip(dims[:-1], dims[1:])):
        if i > 0:
            cin //= 2
        mode = None if i == len(m) - 1 else ("upsample3d" if tup[i] else "upsample2d")
        blocks.append((cin, cout, mode))
    return dims, blocks


def encode(w, cfg, x):
    a = arch(cfg)
    _, layout = encoder_layout(a)
    h = cconv(w, "encoder.conv_in", x[:, :, :1])
    for i, item in enumerate(layout):
        p = f"encoder.down_blocks.{i}"
        if item[0] == "res":
            h = resblock(w, p, h)
        elif item[0] == "attn":
            h = attention(w, p, h)
        else:
            h = resample(w, p, h, item[2])
    h = mid(w, "encoder.mid_block", h)
    h = cconv(w, "encoder.conv_out", F.silu(rms(w, "encoder.norm_out", h)))
    h = cconv(w, "quant_conv", h)
    mean, logvar = h.chunk(2, dim=1)
    return mean, torch.clamp(logvar, -30.0, 20.0)


def decode(w, cfg, z):
    a = arch(cfg)
    _, blocks = decoder_layout(a)
    h = cconv(w, "post_quant_conv", z[:, :, :1])
    h = cconv(w, "decoder.conv_in", h)
    h = mid(w, "decoder.mid_block", h)
    for i, (_, _, mode) in enumerate(blocks):
        for j in range(a["nres"] + 1):
            h = resblock(w, f"decoder.up_blocks.{i}.resnets.{j}", h)
        if mode:
            h = resample(w, f"decoder.up_blocks.{i}.upsamplers.0", h, mode)
    h = cconv(w, "decoder.conv_out", F.silu(rms(w, "decoder.norm_out", h)))
    return torch.clamp(h, -1.0, 1.0)


def forward(w, cfg, inp):
    out = {}
    dt = w["decoder.conv_in.weight"].dtype
    if "in.z" in inp:
        out["out.decode.sample"] = decode(w, cfg, inp["in.z"].to(dt))
    if "in.x" in inp:
        m, lv = encode(w, cfg, inp["in.x"].to(dt))
        out["out.encode.mean"], out["out.encode.logvar"] = m, lv
    return out


# ---- random weights in the checkpoint layout --------------------------------------------------

def make_weights(cfg, seed=0):
    torch.manual_seed(seed)
    a = arch(cfg)
    w = RandomWeights()

    def cv(p, i, o, k=(3, 3, 3), scale=1.0):
        w.conv(p, i, o, k, scale)

    def nm(p, c, dims=3):
        w[p + ".gamma"] = (1 + 0.1 * torch.randn(c)).view(c, *([1] * dims))

    def res(p, i, o):
        nm(p + ".norm1", i)
        cv(p + ".conv1", i, o)
        nm(p + ".norm2", o)
        cv(p + ".conv2", o, o, scale=0.5)
        if i != o:
            cv(p + ".conv_shortcut", i, o, k=(1, 1, 1))

    def att(p, c):
        nm(p + ".norm", c, dims=2)
        cv(p + ".to_qkv", c, 3 * c, k=(1, 1))
        cv(p + ".proj", c, c, k=(1, 1))

    def midw(p, c):
        res(p + ".resnets.0", c, c)
        att(p + ".attentions.0", c)
        res(p + ".resnets.1", c, c)

    dims, layout = encoder_layout(a)
    cv("encoder.conv_in", a["cin"], dims[0])
    for i, item in enumerate(layout):
        p = f"encoder.down_blocks.{i}"
        if item[0] == "res":
            res(p, item[1], item[2])
        elif item[0] == "attn":
            att(p, item[1])
        else:
            c = item[1]
            cv(p + ".resample.1", c, c, k=(3, 3))
            if item[2] == "downsample3d":
                cv(p + ".time_conv", c, c, k=(3, 1, 1))
    midw("encoder.mid_block", dims[-1])
    nm("encoder.norm_out", dims[-1])
    cv("encoder.conv_out", dims[-1], 2 * a["z"])
    cv("quant_conv", 2 * a["z"], 2 * a["z"], k=(1, 1, 1))
    cv("post_quant_conv", a["z"], a["z"], k=(1, 1, 1))
    ddims, blocks = decoder_layout(a)
    cv("decoder.conv_in", a["z"], ddims[0])
    midw("decoder.mid_block", ddims[0])
    for i, (cin, cout, mode) in enumerate(blocks):
        for j in range(a["nres"] + 1):
            res(f"decoder.up_blocks.{i}.resnets.{j}", cin if j == 0 else cout, cout)
        if mode:
            p = f"decoder.up_blocks.{i}.upsamplers.0"
            cv(p + ".resample.1", cout, cout // 2, k=(3, 3))
            if mode == "upsample3d":
                cv(p + ".time_conv", cout, cout * 2, k=(3, 1, 1))
    nm("decoder.norm_out", ddims[-1])
    cv("decoder.conv_out", ddims[-1], a["cout"])
    return w


# ---- the original Wan single-file layout (ComfyUI's wan_2.1_vae / qwen_image_vae files) ---------

def _res_original(key):
    for a, b in ((".norm1.gamma", ".residual.0.gamma"), (".conv1.", ".residual.2."),
                 (".norm2.gamma", ".residual.3.gamma"), (".conv2.", ".residual.6."),
                 (".conv_shortcut.", ".shortcut.")):
        key = key.replace(a, b)
    return key


def to_original(w, cfg):
    """diffusers keys -> the Wan repository's vae.py keys (what convert_wan_vae_to_diffusers
    reads): conv1/conv2 for quant convs, middle.0-2, head.0/2, flat downsamples/upsamples."""
    a = arch(cfg)
    _, blocks = decoder_layout(a)
    flat, n = {}, 0
    for i, (_, _, mode) in enumerate(blocks):
        for j in range(a["nres"] + 1):
            flat[f"decoder.up_blocks.{i}.resnets.{j}."] = f"decoder.upsamples.{n}."
            n += 1
        if mode:
            flat[f"decoder.up_blocks.{i}.upsamplers.0."] = f"decoder.upsamples.{n}."
            n += 1
    out = {}
    for k, v in w.items():
        o = _res_original(k)  # inside residual blocks first: conv_in becomes conv1 below
        for side in ("encoder", "decoder"):
            o = o.replace(f"{side}.conv_in.", f"{side}.conv1.")
            o = o.replace(f"{side}.norm_out.", f"{side}.head.0.").replace(f"{side}.conv_out.", f"{side}.head.2.")
            o = o.replace(f"{side}.mid_block.resnets.0.", f"{side}.middle.0.")
            o = o.replace(f"{side}.mid_block.attentions.0.", f"{side}.middle.1.")
            o = o.replace(f"{side}.mid_block.resnets.1.", f"{side}.middle.2.")
        o = o.replace("encoder.down_blocks.", "encoder.downsamples.")
        for a_, b_ in flat.items():
            o = o.replace(a_, b_)
        if o.startswith("quant_conv."):
            o = "conv1." + o[len("quant_conv."):]
        if o.startswith("post_quant_conv."):
            o = "conv2." + o[len("post_quant_conv."):]
        out[o] = v
    return out


# ---- commands ---------------------------------------------------------------------------------

load_folder = port_commands.load_component


def write_folder(d, cfg, seed=0):
    w = make_weights(cfg, seed)
    port_commands.write_component(d, cfg, w)
    return w


def decode_only(w, cfg, inp):
    return forward(w, cfg, {"in.z": inp["in.z"]})["out.decode.sample"]


def make_wan(d):
    # AutoencoderKLWan at other widths than the golden file: 16 latent channels, four levels
    # (f = 8), two resnets per level, a decoder wider than the encoder, encoder attention at
    # scale 1/2, and latents_mean / latents_std of its own.
    cfg = {"_class_name": "AutoencoderKLWan", "base_dim": 8, "decoder_base_dim": 12,
           "z_dim": 16, "dim_mult": [1, 2, 3, 3], "num_res_blocks": 2, "attn_scales": [0.5],
           "temperal_downsample": [False, True, True], "dropout": 0.0, "in_channels": 3,
           "out_channels": 3, "is_residual": False, "patch_size": None,
           "latents_mean": [round(0.05 * i - 0.4, 4) for i in range(16)],
           "latents_std": [round(1.0 + 0.125 * i, 4) for i in range(16)],
           "scale_factor_spatial": 8, "scale_factor_temporal": 4}
    write_folder(d, cfg, seed=5)
    torch.manual_seed(6)
    inp = {"in.z": torch.randn(2, 16, 1, 3, 5), "in.x": torch.rand(2, 3, 1, 24, 40) * 2 - 1}
    cfg, w = load_folder(d)
    out = forward(w, cfg, inp)
    safetensors_io.save(d + "_io.safetensors", {**inp, **out})
    print(f"wrote {d} and {d}_io.safetensors: {sum(t.numel() for t in w.values())} parameters")


def make(d):
    # Qwen-Image's VAE architecture (base_dim 96, dim_mult [1, 2, 4, 4]) with random weights.
    cfg = {"_class_name": "AutoencoderKLQwenImage", "base_dim": 96, "z_dim": 16,
           "dim_mult": [1, 2, 4, 4], "num_res_blocks": 2, "attn_scales": [],
           "temperal_downsample": [False, True, True], "dropout": 0.0, "input_channels": 3,
           "latents_mean": DEFAULT_MEAN, "latents_std": DEFAULT_STD}
    w = write_folder(d, cfg)
    torch.manual_seed(1)
    safetensors_io.save(os.path.join(d, "inputs.safetensors"), {"in.z": torch.randn(1, 16, 1, 32, 32)})
    print(f"wrote {d}: {w.count()} parameters")


def original(folder, out):
    """The folder's weights in the original Wan layout, written to `out` (a single file)."""
    cfg, w = load_folder(folder)
    safetensors_io.save(out, to_original(w, cfg))
    print(f"wrote {out}")


def main():
    keys = ["out.decode.sample", "out.encode.mean", "out.encode.logvar"]
    port_commands.main({
        # time, serve and compare decode
        **port_commands.standard_commands(load_folder, decode_only, keys[:1], "diffusers'",
                                          dtype=torch.float64),
        "check": lambda argv: port_commands.check(argv, load_folder, forward, keys, "diffusers'",
                                                  threshold=1e-5, dtype=torch.float64),
        "original": lambda argv: original(argv[2], argv[3]),
        "make-wan": lambda argv: make_wan(argv[2]), "make": lambda argv: make(argv[2])})


if __name__ == "__main__":
    main()
