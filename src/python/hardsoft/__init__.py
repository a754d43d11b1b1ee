# SPDX-License-Identifier: MIT
"""hardsoft: compile temporal logic into transformers, run them, look at
their attention. A thin ctypes layer over libhardsoft (the C library of
include/hardsoft.h); NumPy arrays in and out; PyTorch and matplotlib only
when asked for (Model.to_torch, plot_attention).

    >>> import hardsoft
    >>> m = hardsoft.compile("a S b", mode="pe", scale=4)
    >>> m.eval("cabba")
    array([0, 0, 1, 1, 1], dtype=uint8)

The library is found at $HARDSOFT_LIB, in the checkout (build/, after
make) or in the prefix of make install (see hardsoft._lib).
"""
from .model import Error, LayerAttention, Model, compile, load, version

__all__ = ["Error", "LayerAttention", "Model", "compile", "load", "version",
           "plot_attention"]


def plot_attention(model, s, path, scales=None, layer=None, head=None,
                   precision="f32"):
    """Draw the attention of `model` over the string s into path (.png or
    .svg): one heatmap per layer and head, the hard target marked; with
    scales (a list of mu), the model's source recompiled at each mu side by
    side. Needs matplotlib. See hardsoft.plot."""
    from .plot import plot_attention as draw
    return draw(model, s, path, scales=scales, layer=layer, head=head,
                precision=precision)
