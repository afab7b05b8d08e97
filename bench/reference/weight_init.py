"""Random weights in a checkpoint's key layout, for the folders the reference ports make. Each
tensor is drawn when it is named, so the order of the calls fixes the values."""
import math

import torch


class RandomWeights(dict):
    """key -> tensor, drawn from `generator` (None: torch's global generator)."""

    def __init__(self, generator=None):
        super().__init__()
        self.generator = generator

    def randn(self, *shape):
        return torch.randn(*shape, generator=self.generator)

    def linear(self, p, i, o, bias=None):
        """An i -> o nn.Linear: weight N(0, 1/i), bias N(0, bias^2) (none when bias is None)."""
        self[p + ".weight"] = self.randn(o, i) / math.sqrt(i)
        if bias is not None:
            self[p + ".bias"] = self.randn(o) * bias

    def conv(self, p, i, o, kernel, scale=1.0):
        """An i -> o convolution with `kernel` (a tuple of sizes): weight N(0, (scale^2 / fan_in)),
        bias N(0, 0.02^2)."""
        self[p + ".weight"] = self.randn(o, i, *kernel) * (scale / math.sqrt(i * math.prod(kernel)))
        self[p + ".bias"] = self.randn(o) * 0.02

    def norm(self, p, dim, bias=None):
        """A norm's weight 1 + N(0, 0.1^2), and its bias N(0, bias^2) unless bias is None."""
        self[p + ".weight"] = 1 + 0.1 * self.randn(dim)
        if bias is not None:
            self[p + ".bias"] = self.randn(dim) * bias

    def count(self):
        return sum(t.numel() for t in self.values())
