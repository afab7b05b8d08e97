"""A plain-PyTorch port of transformers' CLIPTextModel forward, for timing Halfscope's C++
module against the same computation in Python on the same weights, dtype and thread count.

transformers itself cannot be installed on this machine (no PyPI); this port follows
CLIPTextTransformer.forward (token + position embeddings, pre-LN causal encoder layers,
final_layer_norm, pooling at the end-of-text token) op by op and is checked against the golden
outputs that transformers produced (tests/data/golden), so it computes what the reference class
computes.

  /usr/bin/python3 bench/reference/clip_reference.py check tests/data/golden/clip tests/data/golden/clip_io.safetensors
  /usr/bin/python3 bench/reference/clip_reference.py make DIR          # CLIP-L-size folder + inputs
  /usr/bin/python3 bench/reference/clip_reference.py time DIR INPUTS [fp32|bf16] [repeat]
  /usr/bin/python3 bench/reference/clip_reference.py compare DIR INPUTS CPP_OUTPUT.safetensors

`check`, `compare`, `time` and `serve` are port_commands.py's.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import port_commands  # noqa: E402
import safetensors_io  # noqa: E402
from common_ops import affine_layer_norm, linear  # noqa: E402
from weight_init import RandomWeights  # noqa: E402

P = "text_model."


def act(name, x):
    if name == "quick_gelu":
        return x * torch.sigmoid(1.702 * x)
    if name == "gelu":
        return F.gelu(x)
    raise ValueError(f"hidden_act {name!r} not supported")


def self_attention(w, p, x, heads, mask):
    b, l, d = x.shape
    hd = d // heads
    q, k, v = (linear(w, p + n, x).view(b, l, heads, hd).transpose(1, 2)
               for n in (".q_proj", ".k_proj", ".v_proj"))
    s = (q @ k.transpose(-2, -1)) * (hd ** -0.5) + mask
    o = torch.softmax(s.float(), -1).to(v.dtype) @ v
    return linear(w, p + ".out_proj", o.transpose(1, 2).reshape(b, l, d))


def forward(w, cfg, inp):
    ids = inp["in.input_ids"].long()
    b, l = ids.shape
    eps = cfg.get("layer_norm_eps", 1e-5)
    x = w[P + "embeddings.token_embedding.weight"][ids] + w[P + "embeddings.position_embedding.weight"][:l][None]
    mask = torch.full((l, l), torch.finfo(x.dtype).min, dtype=x.dtype).triu(1)  # causal, additive
    for i in range(cfg["num_hidden_layers"]):
        p = f"{P}encoder.layers.{i}"
        x = x + self_attention(w, p + ".self_attn", affine_layer_norm(w, p + ".layer_norm1", x, eps),
                               cfg["num_attention_heads"], mask)
        h = act(cfg.get("hidden_act", "quick_gelu"), linear(w, p + ".mlp.fc1", affine_layer_norm(w, p + ".layer_norm2", x, eps)))
        x = x + linear(w, p + ".mlp.fc2", h)
    last = affine_layer_norm(w, P + "final_layer_norm", x, eps)
    eos = cfg.get("eos_token_id", 2)
    # legacy configs (eos_token_id 2): the end-of-text token has the largest id; else its first position
    pos = ids.argmax(-1) if eos == 2 else (ids == eos).int().argmax(-1)
    return last, last[torch.arange(b), pos]


def load_folder(d, dtype=torch.float32):
    return port_commands.load_component(d, dtype, "model.safetensors", floating_only=True)


def make(d):
    # the CLIP-L text encoder (openai/clip-vit-large-patch14) with its legacy eos_token_id 2
    # (pooling at argmax(input_ids)); the prompts end in 49407 and pad with it, as CLIP-L's do
    cfg = {"architectures": ["CLIPTextModel"], "attention_dropout": 0.0, "bos_token_id": 0,
           "eos_token_id": 2, "hidden_act": "quick_gelu", "hidden_size": 768, "initializer_factor": 1.0,
           "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05,
           "max_position_embeddings": 77, "model_type": "clip_text_model", "num_attention_heads": 12,
           "num_hidden_layers": 12, "pad_token_id": 1, "projection_dim": 768, "torch_dtype": "float32",
           "vocab_size": 49408}
    torch.manual_seed(0)
    dim, inter = 768, 3072
    w = RandomWeights()
    w[P + "embeddings.token_embedding.weight"] = torch.randn(49408, dim) * 0.02
    w[P + "embeddings.position_embedding.weight"] = torch.randn(77, dim) * 0.01
    for i in range(12):
        p = f"{P}encoder.layers.{i}"
        w.norm(p + ".layer_norm1", dim, bias=0.05)
        for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
            w.linear(f"{p}.self_attn.{n}", dim, dim, bias=0.02)
        w.norm(p + ".layer_norm2", dim, bias=0.05)
        w.linear(p + ".mlp.fc1", dim, inter, bias=0.02)
        w.linear(p + ".mlp.fc2", inter, dim, bias=0.02)
    w.norm(P + "final_layer_norm", dim, bias=0.05)
    port_commands.write_component(d, cfg, w, "model.safetensors")
    ids = torch.full((2, 77), 49407, dtype=torch.int64)  # pad = end-of-text, as CLIP-L pads
    for r, n in enumerate((20, 50)):
        ids[r, 0] = 49406  # start-of-text
        ids[r, 1:n + 1] = torch.randint(256, 49406, (n,))
    safetensors_io.save(os.path.join(d, "inputs.safetensors"), {"in.input_ids": ids})
    print(f"wrote {d}: {w.count()} parameters")


def main():
    port_commands.main({
        **port_commands.standard_commands(load_folder, forward,
                                          ["out.last_hidden_state", "out.pooler_output"],
                                          "transformers'"),
        "make": lambda argv: make(argv[2])})


if __name__ == "__main__":
    main()
