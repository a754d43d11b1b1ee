# SPDX-License-Identifier: MIT
"""hardsoft: compile temporal logic (LTL with past, counting), C-RASP /
B-RASP programs and regular expressions into transformers, run them, look at their attention,
train them in PyTorch. A thin ctypes layer over libhardsoft (the C
library of include/hardsoft.h); NumPy arrays in and out; PyTorch and
matplotlib only when asked for (Model.to_torch, plot_attention).

    >>> import hardsoft
    >>> m = hardsoft.compile("a S b", mode="pe", scale=4)
    >>> m.eval("cabba")
    array([0, 0, 1, 1, 1], dtype=uint8)
    >>> p = hardsoft.compile('maj = #"a" > #"b"', lang="crasp", mode="hard")
    >>> p.eval("a b a")
    array([1, 0, 1], dtype=uint8)

Calls: compile, explain, load, version, plot_attention; Model.eval / values /
truth / attention / run_batch (a string, a list of them, or tokens=[...]),
Model.save / save_onnx, Model.to_torch (a trainable torch.nn.Module,
hardsoft.torch_nn), Model.vocab / reads_tokens / encode / ids /
token_batch, Model.describe / info / head_info. Errors: hardsoft.Error
(a ValueError with the library's message, column and line). The full
list is docs/PYTHON.md.

The library is $HARDSOFT_LIB when that is set, else the copy inside the
package (pip install .), the checkout's build/ (after make) or the prefix
of make install (see hardsoft._lib).
"""
from .model import (Batch, Error, InputWarning, LayerAttention, Model, UnprovenWarning, compile,
                    explain, load, version)

__all__ = ["Batch", "Error", "InputWarning", "LayerAttention", "Model", "UnprovenWarning",
           "compile", "explain", "load", "version", "plot_attention"]


def __getattr__(name):
    if name == "__version__":    # the library's version, read when asked for
        return version()
    raise AttributeError("module 'hardsoft' has no attribute %r" % name)


def plot_attention(model: Model, s=None, path=None, scales=None, layer=None, head=None,
                   precision: str = "f32", tokens=None) -> None:
    """Draw the attention of `model` over the input s (or tokens=[...])
    into path (.png or .svg): one heatmap per layer and head, the hard
    target marked, the symbols or tokens as axis labels; with scales (a
    list of mu), the model's source recompiled at each mu side by side.
    Needs matplotlib. See hardsoft.plot."""
    from .plot import plot_attention as draw
    return draw(model, s, path, scales=scales, layer=layer, head=head,
                precision=precision, tokens=tokens)
