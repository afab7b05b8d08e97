#!/usr/bin/env python3
"""Plain-Python port of transformers' Qwen2Tokenizer (slow) for reference ids.

Needs only the `regex` module (the pre-tokenizer regex uses \\p{L} / \\p{N}); no transformers.
    python3 bench/reference/qwen_tokenizer_reference.py check   # vs llama.cpp's HF ids
    python3 bench/reference/qwen_tokenizer_reference.py write   # tests/data/qwen_tokenizer/cases.json
    python3 bench/reference/qwen_tokenizer_reference.py time    # encode speed of a 77-word prompt

`check` first compares the port with tests/data/qwen_tokenizer/llama_cpp_qwen2.{inp,out}, ids that
llama.cpp's convert_hf_to_gguf_update.py took from the real Hugging Face tokenizer
(AutoTokenizer of Qwen/Qwen1.5-7B, the same vocabulary as Qwen2). `write` stores the
pre-token splits that the regex module makes and the ids of the port for texts the llama.cpp
file does not cover (random mixes of letters, digits, spaces, line breaks, marks, apostrophes).
"""
import json
import os
import random
import sys
import time
import unicodedata

import regex

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "tests", "data", "qwen_tokenizer")
PAT = regex.compile(
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(
        range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class Qwen2Port:
    def __init__(self, folder):
        with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
            self.encoder = json.load(f)
        merges = []
        with open(os.path.join(folder, "merges.txt"), encoding="utf-8") as f:
            for i, line in enumerate(f):
                line = line.strip()
                if (i == 0 and line.startswith("#version:")) or not line:
                    continue
                merges.append(tuple(line.split()))
        self.ranks = dict(zip(merges, range(len(merges))))
        with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        self.added = {v["content"]: int(k) for k, v in cfg["added_tokens_decoder"].items()}
        self.byte_encoder = bytes_to_unicode()
        self.cache = {}

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        word = tuple(token)
        while len(word) > 1:
            pairs = set(zip(word, word[1:]))
            best = min(pairs, key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            first, second = best
            new, i = [], 0
            while i < len(word):
                if i < len(word) - 1 and word[i] == first and word[i + 1] == second:
                    new.append(first + second)
                    i += 2
                else:
                    new.append(word[i])
                    i += 1
            word = tuple(new)
        self.cache[token] = word
        return word

    def split_added(self, text):
        """Leftmost, then longest, added token: the segments between them and the tokens."""
        out, start, i = [], 0, 0
        toks = sorted(self.added, key=len, reverse=True)
        while i < len(text):
            hit = next((t for t in toks if text.startswith(t, i)), None)
            if hit is None:
                i += 1
                continue
            if i > start:
                out.append((False, text[start:i]))
            out.append((True, hit))
            i += len(hit)
            start = i
        if start < len(text):
            out.append((False, text[start:]))
        return out

    def encode(self, text):
        ids = []
        for is_added, seg in self.split_added(text):
            if is_added:
                ids.append(self.added[seg])
                continue
            seg = unicodedata.normalize("NFC", seg)
            for piece in PAT.findall(seg):
                sym = "".join(self.byte_encoder[b] for b in piece.encode("utf-8"))
                ids.extend(self.encoder[s] for s in self.bpe(sym))
        return ids


def llama_cases():
    with open(os.path.join(DATA, "llama_cpp_qwen2.inp"), encoding="utf-8") as f:
        texts = f.read().split("\n__ggml_vocab_test__\n")[:-1]
    with open(os.path.join(DATA, "llama_cpp_qwen2.out"), encoding="utf-8") as f:
        ids = [[int(x) for x in line.split()] for line in f.read().split("\n")[: len(texts)]]
    return list(zip(texts, ids))


def random_texts(n, seed=1234):
    pool = (list("abcXYZ'sStTrReEvVmMlLdD") + list("0123456789") + [" "] * 6 + ["\n", "\r", "\t"] +
            list("!?.,;:-_()[]{}<>\"#") + ["\u00e9", "e\u0301", "\u00df", "\u017f", "\u0345",
                                           "\u001c", "\u00a0", "\u3000", "\u2028", "\u0661",
                                           "\u2167", "\u4e2d", "\u6587", "\U0001F600", "\u200d",
                                           "\ufe0f", "\u0416", "\u03a3", "\u0301", "\u00bd"] +
            ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_", "'re", "'LL"])
    rng = random.Random(seed)
    return ["".join(rng.choice(pool) for _ in range(rng.randint(1, 40))) for _ in range(n)]


def main():
    port = Qwen2Port(DATA)
    cmd = sys.argv[1] if len(sys.argv) > 1 else "check"
    if cmd == "check":
        bad = 0
        for text, ids in llama_cases():
            got = port.encode(text)
            if got != ids:
                bad += 1
                print("MISMATCH", repr(text), got, ids)
        print("llama.cpp cases:", len(llama_cases()), "mismatches:", bad)
    elif cmd == "write":
        texts = random_texts(300) + [
            "a  \n\n b ", "x \n", "  \n  ", "\r\n\r\n  x", "don't 'S 'Re 'll", "2024-01-02 3.14",
            "<|im_start|>user\nA cat<|im_end|>\n<|im_start|>assistant\n", "<|im_start", "\u017fx'\u017f",
        ]
        cases = []
        for t in texts:
            pieces = []
            for is_added, seg in port.split_added(t):
                if not is_added:
                    pieces.extend(PAT.findall(unicodedata.normalize("NFC", seg)))
            cases.append({"text": t, "pieces": pieces, "ids": port.encode(t)})
        with open(os.path.join(DATA, "cases.json"), "w", encoding="utf-8") as f:
            json.dump({"generator": "bench/reference/qwen_tokenizer_reference.py write",
                       "regex": regex.__version__, "unicodedata": unicodedata.unidata_version,
                       "cases": cases}, f, ensure_ascii=True, indent=0)
        print("wrote", len(cases), "cases")
    elif cmd == "time":
        words = ("a highly detailed oil painting of a red fox sitting in a snowy forest at dawn, "
                 "soft golden light, mist between the pine trees, 8k, intricate fur texture").split()
        prompt = " ".join((words * 4)[:77])
        port.cache.clear()
        t0 = time.perf_counter()
        for _ in range(100):
            port.cache.clear()
            port.encode(prompt)
        print("77-word prompt, %d ids: %.3f ms per encode (uncached BPE)" %
              (len(port.encode(prompt)), (time.perf_counter() - t0) * 10))


if __name__ == "__main__":
    main()
