"""The forward pass of a BERT, GPT-2 or Llama-family model in numpy (float32), keeping every head's numbers.

One layer, n tokens, d numbers per token, H query heads and KV key/value heads of d_head each
(KV = H but in grouped-query models, where query head h reads key/value head h // (H / KV)):

    a = attention input        BERT: the hidden state h;  GPT-2: LayerNorm_1(h);  Llama: RMSNorm_in(h)
    Q | K | V = a W_qkv + b    n x (H + 2 KV) d_head, split into heads: H x n x d_head, KV x n x d_head
    Llama: Q, K turned by their positions (rotary.py)
    S = Q K^T                  H x n x n  raw scores
    A = softmax(S / sqrt(d_head), masked keys set to the lowest float first)
    C = A V                    H x n x d_head  (0 for a knocked-out head)
    O = [C_1 ... C_H] W_o + b_o
    BERT:  h = LN(a + O);  h = LN(h + FF(h))        GPT-2, Llama: h = h + O;  h = h + FF(Norm_2(h))
    FF(z) = act(z W_in + b_in) W_out + b_out        Llama: down(silu(gate(z)) * up(z))

Without rotation or grouped heads (BERT, GPT-2), every product is turned around, (W^T x^T)^T, and its
weights and bias are one array [W^T | b] (LayerWeights.joined) multiplied by the input with a 1 after each
token's numbers, so that BLAS adds the bias on the way. Q | K | V is written by its product straight into one
array per layer, as the d_head x n blocks of each head: q, k and v are views of it, and the hidden states and
attention inputs are kept token-minor (d rows of n) too, so each layer reads and writes them where they are
stored; the heads' outputs are kept a token's row at a time, as the output projection reads them. The numbers
are the same; only the layout differs (ModelTrace's arrays are views).

GPT-2 and Llama end with a final norm (ln_f, norm), applied to the last hidden state as in
the transformers library's ``hidden_states``; the output head (architecture.OutputHead) turns
that last state into next-token (or masked-token) logits. Weights kept in the checkpoint's
width are widened one layer at a time (widths.float32).
"""
from __future__ import annotations

import functools
import math
import sys
import threading
from dataclasses import dataclass, field

import numpy as np

from .. import rotary
from ..errors import ModelError
from .architecture import Architecture, LayerWeights, OutputHead, Weights
from .memory import LINE_BYTES, aligned_start, allocation, line_padded, room
from .widths import float32

F32 = np.float32
_SQRT_2_OVER_PI = F32(math.sqrt(2.0 / math.pi))
#: Rows of a stored-width output matrix widened at a time (16 MB of float32 at d = 1024).
_VOCAB_CHUNK = 4096
#: Elementwise work (the feed-forward's activation) is done in blocks of about this many numbers, so that its
#: several passes over the numbers stay in the processor's cache (256 KB of float32 and its temporaries) instead
#: of going out to memory each time.
_BLOCK = 1 << 16
#: The softmax's blocks: it has fewer passes and temporaries than GELU, and larger blocks mean fewer, larger
#: products (at 512 tokens 1 MB, one head, measured best: half that and twice that were slower).
_ATTENTION_BLOCK = 1 << 18
#: Up to this many tokens, ``linear`` turns products around.
_FEW = 256


def _exp2_is_vectorised() -> bool:
    """Whether numpy's float32 exp2 runs as vector code on this processor: numpy 2 builds it from Intel's SVML for
    AVX-512, where it takes about half the time of exp (0.18 against 0.35 ns a number here). Elsewhere (AVX2
    only, ARM, numpy 1) it is a loop over the C library's exp2f, about twice as slow as exp."""
    try:
        from numpy.lib.introspect import opt_func_info
        return not opt_func_info(func_name="^exp2$", signature="float32")["exp2"]["ff"]["current"].startswith("baseline")
    except (ImportError, KeyError, TypeError, AttributeError):  # numpy 1, or another layout of its answer
        return False


#: e^z is taken as 2^(z log2 e) where numpy's exp2 is vector code (_exp2_is_vectorised), the factor log2 e folded
#: into a product the step makes anyway (the scaled queries, GELU's -x^2 / 2, SiLU's -x): the same numbers to
#: float32's rounding, 2 % of a forward at 128 tokens, 4 % at 512. Read at each call, so a test may switch it.
_EXP, _LOG2_E = (np.exp2, F32(math.log2(math.e))) if _exp2_is_vectorised() else (np.exp, F32(1.0))


def linear(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """x @ w (n x d_in times d_in x d_out). For a few tokens BLAS is quicker at the same product turned
    around, (w^T x^T)^T: the same sums, its result a transposed view."""
    return (w.T @ x.T).T if x.shape[0] <= _FEW else x @ w


def _blocks(count: int, per_item: int, block: int = _BLOCK):
    """Slices of range(count) holding about ``block`` numbers each (items of ``per_item`` numbers)."""
    step = max(1, block // max(1, per_item))
    return [slice(i, min(count, i + step)) for i in range(0, count, step)]


def _in_place(act, x: np.ndarray) -> np.ndarray:
    """act(x) written over x (C-contiguous), a block of about _BLOCK numbers at a time in memory order."""
    flat = x.reshape(-1)  # a view
    for part in _blocks(flat.size, 1):
        act(flat[part], out=flat[part])
    return x


def _inverse_rms(x: np.ndarray, eps: float) -> np.ndarray:
    """1 / sqrt(mean(x^2) + eps) over each token's numbers, keeping the last axis (length 1): the squares summed
    by einsum, without an array of them."""
    var = np.einsum("...i,...i->...", x, x)[..., None]
    var *= F32(1.0 / x.shape[-1]) if x.shape[-1] else F32(0.0)
    var += F32(eps)
    np.sqrt(var, out=var)
    return np.reciprocal(var, out=var)


def layer_norm(x: np.ndarray, gain_bias: tuple, eps: float, out: np.ndarray | None = None) -> np.ndarray:
    """(x - mean) / sqrt(variance + eps) * gain + bias, over each token's numbers; into ``out`` when given
    (which may be ``x``)."""
    gain, bias = gain_bias
    if x.ndim == 2 and x.flags.f_contiguous and not x.flags.c_contiguous and (out is None or out.flags.f_contiguous):
        return _layer_norm_columns(x.T, gain, bias, eps, None if out is None else out.T).T
    centred = np.subtract(x, x.mean(axis=-1, keepdims=True), out=out)
    centred *= _inverse_rms(centred, eps)
    centred *= gain
    centred += bias
    return centred


@functools.lru_cache(maxsize=16)
def _constant(shape: tuple, value: float) -> np.ndarray:
    """A read-only float32 array of ``value``s, made once: LayerNorm's 1/d shares (their product with a d x n
    array is each column's mean), the softmax's column of ones (a product with it sums each row)."""
    array = np.full(shape, F32(value), F32)
    array.setflags(write=False)
    return array


def _layer_norm_columns(x: np.ndarray, gain: np.ndarray, bias: np.ndarray, eps: float, out) -> np.ndarray:
    """layer_norm of d x n ``x`` (C-ordered, a token per column: the layout of a turned-around product seen from
    its own side), the sums down each column made by BLAS: numpy would add up the d rows one after another,
    slower and less precisely."""
    share = _constant((x.shape[0],), 1.0 / x.shape[0])
    centred = np.subtract(x, share @ x, out=out)
    var = share @ (centred * centred)
    var += F32(eps)
    np.sqrt(var, out=var)
    centred *= np.reciprocal(var, out=var)
    centred *= gain[:, None]
    centred += bias[:, None]
    return centred


def rms_norm(x: np.ndarray, gain_bias: tuple, eps: float, out: np.ndarray | None = None) -> np.ndarray:
    """x / sqrt(mean(x^2) + eps) * gain, over each token's numbers (no mean taken away, no bias); into ``out``
    when given."""
    out = np.multiply(x, _inverse_rms(x, eps), out=out)
    out *= gain_bias[0]
    return out


def norm(arch: Architecture, x: np.ndarray, gain_bias: tuple, out: np.ndarray | None = None) -> np.ndarray:
    """The model's norm (RMSNorm or LayerNorm) of x, into ``out`` when given."""
    return (rms_norm if arch.norm == "rms" else layer_norm)(x, gain_bias, arch.eps, out=out)


#: Abramowitz and Stegun 7.1.26: erf(y) = 1 - P(t) e^(-y^2) for y >= 0, t = 1 / (1 + p y), error below 1.5e-7
#: (about float32's rounding). P's coefficients, highest power first (P has no constant term).
_ERF_P = 0.3275911
_ERF_COEFFICIENTS = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
#: GELU takes P / 2 of u = t / s, s = (2 / 1.061405429)^(1/5), with P's coefficients of u worked out here:
#: u^5 + d_4 u^4 + ... + d_1 u, its first coefficient 1, so Horner's rule starts with a sum, one pass fewer.
_ERF_S = (2.0 / _ERF_COEFFICIENTS[0]) ** 0.2
_ERF_U = tuple(F32(0.5 * c * _ERF_S ** (5 - i)) for i, c in enumerate(_ERF_COEFFICIENTS))[1:]  # d_4 ... d_1
_ERF_K = F32(math.sqrt(2.0) / _ERF_P)
_ERF_K_OVER_S = F32(math.sqrt(2.0) / _ERF_P / _ERF_S)


def gelu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The exact GELU, x Phi(x) = x (1 + erf(x / sqrt 2)) / 2, in float32. With erf(y) = 1 - P(t) e^(-y^2)
    (y >= 0; odd) this is  max(x, 0) - |x| P(t) e^(-x^2 / 2) / 2,  t = 1 / (1 + p |x| / sqrt 2):
    one form for both signs, so fewer passes over the numbers. ``out`` may be ``x`` itself."""
    a = np.abs(x)
    u = a + _ERF_K
    np.divide(_ERF_K_OVER_S, u, out=u)  # t / s, t = 1 / (1 + p |x| / sqrt 2) = k / (k + |x|), k = sqrt 2 / p
    poly = u + _ERF_U[0]
    poly *= u
    for c in _ERF_U[1:]:
        poly += c
        poly *= u  # P(t) / 2
    e = np.square(x, out=u)  # u is done with (np.square: half the time of multiply(x, x))
    e *= F32(-0.5) * _LOG2_E
    _EXP(e, out=e)
    poly *= e
    poly *= a
    out = np.maximum(x, F32(0.0), out=out)
    out -= poly
    return out


def gelu_tanh(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """GPT-2's GELU: x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2."""
    inner = x * x
    inner *= F32(0.044715)
    inner += F32(1.0)
    inner *= x
    inner *= _SQRT_2_OVER_PI
    np.tanh(inner, out=inner)
    inner += F32(1.0)
    inner *= F32(0.5)
    return np.multiply(inner, x, out=out)


def silu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """x sigmoid(x) = x / (1 + e^-x)."""
    e = np.multiply(x, -_LOG2_E)
    _EXP(e, out=e)
    e += F32(1.0)
    return np.divide(x, e, out=e if out is None else out)


def relu(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    return np.maximum(x, F32(0.0), out=out)


ACTIVATION = {
    "gelu": gelu,
    "gelu_new": gelu_tanh,
    "gelu_pytorch_tanh": gelu_tanh,
    "gelu_fast": gelu_tanh,
    "relu": relu,
    "silu": silu,
    "swish": silu,
}


@dataclass
class LayerEdits:
    """What-if changes to one layer, in the layout of LayerWeights."""

    qkv: list  # (row, column of w_qkv, value); row -1: the bias b_qkv
    inputs: list  # (token, dim, value) of the attention input
    knocked: list  # heads whose output is set to zero
    fixed: list = field(default_factory=list)  # (head, d_head numbers): heads whose output is set to those


@dataclass
class Forward:
    """Every intermediate of one run, float32, layers first. Key and value heads are repeated for each query
    head that reads them, so every array has H heads."""

    attn_input: np.ndarray  # L x n x d
    q: np.ndarray  # L x H x n x d_head: what enters the dot product (turned by its position in a RoPE model)
    k: np.ndarray
    v: np.ndarray
    context: np.ndarray
    weights: np.ndarray  # L x H x n x n (the raw scores Q K^T are not kept: ModelTrace works them out on request)
    hidden: np.ndarray  # (L + 1) x n x d
    allowed: np.ndarray  # n x n bool
    q_unrotated: np.ndarray  # L x H x n x d_head: a W^Q + b^Q before the turn (q itself without rotary positions)
    k_unrotated: np.ndarray


def _fresh(a: np.ndarray | None, role: str) -> np.ndarray | None:
    """float32(a), in new memory: how weights are widened outside a run (a run's are widened by a Widened)."""
    return float32(a)


def edited_qkv(layer: LayerWeights, edits: LayerEdits | None, wide=_fresh) -> tuple[np.ndarray, np.ndarray | None]:
    """W_qkv and b_qkv as float32 with the layer's edits in (copies only when something is edited; a model
    without biases gets zero biases when one is edited). Of a layer with joined weights, views of
    ``edited_joined``'s array. ``wide(array, role)`` widens weights kept narrow (a run's Widened, or _fresh)."""
    if "qkv" in layer.joined:
        both = edited_joined(layer, edits, wide)
        biased = layer.b_qkv is not None or (edits is not None and any(row < 0 for row, _, _ in edits.qkv))
        return both[:, :-1].T, both[:, -1] if biased else None
    w, b = wide(layer.w_qkv, "qkv"), float32(layer.b_qkv)
    if edits is None or not edits.qkv:
        return w, b
    if any(row >= 0 for row, _, _ in edits.qkv):
        w = w.copy(order="K")  # in its own layout, so that it is multiplied as the unedited one is
    if any(row < 0 for row, _, _ in edits.qkv):
        b = np.zeros(w.shape[1], F32) if b is None else b.copy()
    for row, col, value in edits.qkv:
        if row < 0:
            b[col] = value
        else:
            w[row, col] = value
    return w, b


def edited_joined(layer: LayerWeights, edits: LayerEdits | None, wide=_fresh) -> np.ndarray:
    """The layer's joined [W_qkv^T | b_qkv] (LayerWeights.joined) as float32 with its edits in (a copy only when
    something is edited): w[row, col] is its [col, row], b[col] its [col, d]. ``wide`` as in edited_qkv."""
    both = wide(layer.joined["qkv"], "qkv")
    if edits is None or not edits.qkv:
        return both
    if both is layer.joined["qkv"]:
        both = both.copy()
    for row, col, value in edits.qkv:
        both[col, row if row >= 0 else -1] = value
    return both


def _stored_shapes(shapes: dict, token_minor: frozenset, ones: frozenset) -> dict:
    """The shapes _empty_arrays stores (see there): token-minor arrays with their last two axes swapped, and a
    1 after each token's numbers in those in ``ones`` (a row of ones under a token-minor array, else a column)."""
    return {name: shape[:-2] + (shape[-1] + (name in ones), shape[-2]) if name in token_minor
            else shape[:-1] + (shape[-1] + (name in ones),) for name, shape in shapes.items()}


class RunBlocks:
    """The blocks of memory a model's runs keep their arrays in (_empty_arrays), kept for later runs: a run takes
    the block of an earlier one whose arrays are all gone (its trace dropped), when it is large enough and not
    too large, rather than fresh memory from the system, which costs a page fault each time a page of it is
    first written. The window keeps its trace while the next run is made, so the system's allocator hands out
    fresh memory to most runs there: SmolLM2-135M's shape at 512 tokens took 0.64 s of the system's time beside
    1.13 s of computing (128 tokens: 42 ms beside 268), and a MiniLM at 128 tokens 3 ms beside 24. With the
    blocks kept, none of that once two are held (A/B: -6 % at 128 tokens with the last trace kept, -7 % at 512).
    A large block is mapped in huge pages (memory.allocation).

    The blocks of the last ``HELD`` runs are kept, in use or not: the one being shown and one to run into. One
    is in use while any array made from it is alive (each holds a reference to it: numpy's views keep their
    base); that is counted by sys.getrefcount, against a block that nothing else refers to, asked the same way.
    A run takes a block at most a quarter larger than it needs (a what-if edit, or a sentence a little shorter,
    fits the last run's), so that a short trace does not keep a long one's memory."""

    HELD = 2

    def __init__(self):
        self._lock = threading.Lock()  # the window runs a model on a worker thread too
        self._held = [np.empty(0, F32)]  # the first: the unused block the others are compared with

    def take(self, size: int) -> np.ndarray:
        """``size`` float32 numbers from an aligned start (memory.aligned_start), on a block no array refers to any
        more when one fits, else new."""
        with self._lock:
            held = self._held
            unused = [i for i in range(1, len(held)) if sys.getrefcount(held[i]) <= sys.getrefcount(held[0])]
            fits = [i for i in unused if size <= room(held[i]) <= size + size // 4]
            if fits:
                block = held.pop(fits[0])
            else:  # the unused blocks that do not fit go first, so that their memory can be used
                for i in reversed(unused):
                    del held[i]
                block = allocation(size, F32)
            held.append(block)
            del held[1:-self.HELD]
            return aligned_start(block, size)


class Widened:
    """Where weights kept in the checkpoint's width (widths.float32) are widened, a layer at a time: each thread
    widens a matrix of a layer into an array of its own for that matrix's role ("qkv", "o", "in", "out"), kept
    from layer to layer and run to run (a large one mapped in huge pages, memory.allocation), rather than into
    fresh memory each time, which the system clears page by page: 13 % of a Qwen2.5-0.5B-shaped model's forward at
    16 tokens, 8 % at 128 (A/B, the same numbers). One for each model; what it gives is used by one product and
    then written over by the next layer's, never kept. Float32 weights are used as they are."""

    def __init__(self):
        self._local = threading.local()  # the window runs a model on a worker thread too

    def __call__(self, a: np.ndarray | None, role: str) -> np.ndarray | None:
        if a is None or a.dtype == F32 or not (a.flags.c_contiguous or a.flags.f_contiguous):
            return float32(a)
        turned = not a.flags.c_contiguous  # stored transposed: widened in its own memory order
        kept = vars(self._local)
        into = kept.get(role)
        if into is None or into.shape != a.shape or into.flags.c_contiguous == turned:
            flat = aligned_start(allocation(a.size, F32), a.size)
            into = kept[role] = flat.reshape(a.shape[::-1]).T if turned else flat.reshape(a.shape)
        return float32(a, out=into)


def _empty_arrays(shapes: dict, token_minor: frozenset = frozenset(), ones: frozenset = frozenset(),
                  blocks: RunBlocks | None = None) -> tuple:
    """Empty float32 arrays of these shapes (name -> shape), carved out of one block of memory: ``blocks``'s
    (RunBlocks) when given, else a new one. Separate arrays of a megabyte or so would each be mapped afresh
    from the system, a page fault every 4 KB when they are first written.

    ``token_minor``: the names of arrays stored with their last two axes swapped (a head's n x d_head numbers as
    d_head rows of n, a layer's n x d as d rows of n), given as views in the shapes asked for. That is the layout
    of linear's turned-around products, which are then written straight into place. ``ones``: arrays stored
    with a 1 after each token's numbers (a joined product's input, LayerWeights.joined): a row of ones under a
    token-minor array, a column of ones beside another.

    Returns the arrays, and the stored ones of the names in ``ones`` (with their ones)."""
    stored_shape = _stored_shapes(shapes, token_minor, ones)
    sizes = {name: math.prod(shape) for name, shape in stored_shape.items()}
    starts, at = {}, 0
    for name, size in sizes.items():
        starts[name] = at
        at += line_padded(size, 4)  # each array starts on a line of the block
    block = aligned_start(allocation(at, F32), at) if blocks is None else blocks.take(at)
    arrays, with_ones = {}, {}
    for name, shape in shapes.items():
        kept = block[starts[name]:starts[name] + sizes[name]].reshape(stored_shape[name])
        if name in ones:
            with_ones[name] = kept
            if name in token_minor:
                kept[..., -1, :] = 1.0
                kept = kept[..., :-1, :]
            else:
                kept[..., -1] = 1.0
                kept = kept[..., :-1]
        arrays[name] = kept.swapaxes(-1, -2) if name in token_minor else kept
    return arrays, with_ones


def resume_from(arch: Architecture, old: dict, new: dict) -> int:
    """The layer a run with layer edits ``new`` may start from, given an earlier run on the same tokens with
    layer edits ``old`` (``run``'s ``start``; 0: from the beginning). It is the first layer whose edits
    differ, at most the last layer (the last hidden state of GPT-2 is stored after its final LayerNorm).
    In BERT an edit of a layer's input is written into that layer's stored hidden state: a run may start
    there only if the new edits overwrite every number the old ones did."""
    start = next((li for li in range(arch.n_layers) if old.get(li) != new.get(li)), arch.n_layers - 1)
    if not arch.pre_norm and start > 0:
        before = {(t, dim) for t, dim, _ in (old[start].inputs if start in old else ())}
        after = {(t, dim) for t, dim, _ in (new[start].inputs if start in new else ())}
        if not before <= after:
            return 0
    return start


def divisor(arch: Architecture, layer: int) -> float:
    """What layer ``layer``'s raw scores are divided by: sqrt(d_head), and (layer + 1) in GPT-2's
    scale_attn_by_inverse_layer_idx."""
    div = math.sqrt(arch.d_head) if arch.scale else 1.0
    return div * (layer + 1) if arch.layer_scaled else div


def _embed(arch: Architecture, w: Weights, ids: np.ndarray, out: np.ndarray) -> np.ndarray:
    """n x d into ``out``: each token's word embedding (+ its position's, + token type 0's), then BERT's
    LayerNorm. The sums are made a token's row at a time and copied into ``out`` (token-minor in BERT's and
    GPT-2's runs: summing into its columns took twice as long), the LayerNorm where ``out`` is stored."""
    x = float32(w.word[ids])  # a new array: indexing by a list of ids copies
    if w.position is not None:
        x += float32(w.position[:len(ids)])
    if w.token_type is not None:
        x += float32(w.token_type)
    np.copyto(out, x)
    if w.ln_embed is not None:
        layer_norm(out, w.ln_embed, arch.eps, out=out)
    return out


def _gated_feed_forward(layer: LayerWeights, z: np.ndarray, wide: Widened) -> np.ndarray:
    """Llama's FF(z): down(silu(gate(z)) * up(z)), biases added where the model has them (BERT's and GPT-2's
    feed-forward is in _joined_rest)."""
    inner = linear(z, wide(layer.w_in, "in"))
    if layer.b_in is not None:
        inner += float32(layer.b_in)
    f = inner.shape[1] // 2
    inner = silu(inner[:, :f]) * inner[:, f:]
    out = linear(inner, wide(layer.w_out, "out"))
    if layer.b_out is not None:
        out += float32(layer.b_out)
    return out


def logits(arch: Architecture, head: OutputHead, h: np.ndarray, wide=_fresh) -> np.ndarray:
    """n x vocab: the output head on the last hidden state ``h`` (architecture.OutputHead). A decoder kept narrow is
    widened a slice at a time, whole slices by ``wide`` (the model's Widened: into an array kept for them)."""
    if head.transform is not None:
        w_t, b_t = head.transform
        h = layer_norm(ACTIVATION[arch.activation](h @ float32(w_t) + float32(b_t)), head.ln, arch.eps)
    decoder = head.decoder  # vocab x d
    if decoder.dtype == F32:
        out = linear(h, decoder.T)
    else:  # widened a slice at a time: a float32 copy of a large vocabulary would not fit beside the model
        out = np.empty((h.shape[0], decoder.shape[0]), F32)
        for s in range(0, decoder.shape[0], _VOCAB_CHUNK):
            part = decoder[s:s + _VOCAB_CHUNK]
            wider = wide(part, "decoder") if len(part) == _VOCAB_CHUNK else float32(part)
            np.matmul(h, wider.T, out=out[:, s:s + _VOCAB_CHUNK])
    if head.bias is not None:
        out += float32(head.bias)
    return out


def _check_window(arch: Architecture, n: int) -> None:
    if arch.sliding_window is not None and n > arch.sliding_window:
        raise ModelError(f"this {arch.model_type} model lets a token see only the {arch.sliding_window} tokens before "
                         f"it (sliding_window), which this app does not show: use at most {arch.sliding_window} "
                         f"tokens, not {n}")


#: A row of e^z (its scaled scores z taken as they are, without their maximum taken away first) is used when its
#: sum is finite (no e^z overflowed) and at least this (so its largest e^z is at least 1e-20 / n, a full-precision
#: float32 however long the sentence, and what underflows is too small beside it to count): the usual case, which
#: saves two passes over the scores. Otherwise the block is worked out again as e^(z - row max).
_SMALLEST_SUM = 1e-20
#: From this many tokens on, a head's V (n x d_head) is copied into rows before A V when it is stored otherwise (the
#: d_head x n blocks that BERT's and GPT-2's Q | K | V product writes): BLAS multiplies by it quicker so, 1 % of a
#: forward at 64 to 512 tokens (A/B), more than the copy costs; below, the copy costs more than it saves.
_V_IN_ROWS = 64
_LOWEST, _LARGEST = np.finfo(F32).min, np.finfo(F32).max


def _attention_blocks(heads: int, n: int):
    """(heads, rows) slices of the H x n x n weights of about _ATTENTION_BLOCK numbers each: several whole heads
    when they are small, else a few rows of one head."""
    if n * n <= _ATTENTION_BLOCK:
        return [(h, slice(None)) for h in _blocks(heads, n * n, _ATTENTION_BLOCK)]
    return [(slice(h, h + 1), rows) for h in range(heads) for rows in _blocks(n, n, _ATTENTION_BLOCK)]


def _exp_scores(q: np.ndarray, k: np.ndarray, hidden: np.ndarray | None, z: np.ndarray, shift: bool) -> np.ndarray:
    """_EXP(q k^T) into ``z`` (hidden keys at 0), each row's maximum taken away first if ``shift``; returns the rows'
    sums (heads x rows x 1), added up by BLAS. (q comes scaled by log2 e when _EXP is exp2: the same e^z.)"""
    np.matmul(q, k.transpose(0, 2, 1), out=z)
    if hidden is not None:
        np.copyto(z, _LOWEST, where=hidden)
    if shift:
        z -= z.max(axis=-1, keepdims=True)
    _EXP(z, out=z)
    return np.matmul(z, _constant((z.shape[-1], 1), 1.0))


def attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: F32, hidden_keys: np.ndarray | None,
           weights: np.ndarray, context: np.ndarray) -> None:
    """A = softmax(scale Q K^T, hidden keys at the lowest float) into ``weights`` (H x n x n) and C = A V into
    ``context`` (H x n x d_head), for H heads of q, k, v (H x n x d_head), a block at a time so that its
    numbers stay in cache through the softmax's passes. Called under np.errstate(over="ignore"), as ``run`` is:
    e^z may overflow on the way to the rows worked out again."""
    H, n = q.shape[:2]
    if not n:
        return
    q = q * F32(scale * _LOG2_E)  # scaled before the product: n x d_head numbers per head rather than n x n
    if n >= _V_IN_ROWS and not v.flags.c_contiguous:
        v = np.ascontiguousarray(v)
    for heads, rows in _attention_blocks(H, n):
        z = weights[heads, rows]
        hidden = None if hidden_keys is None else hidden_keys[rows]
        sums = _exp_scores(q[heads, rows], k[heads], hidden, z, shift=False)
        if not (sums.min() >= _SMALLEST_SUM and sums.max() <= _LARGEST):  # (also when a sum is not a number)
            sums = _exp_scores(q[heads, rows], k[heads], hidden, z, shift=True)
        z *= np.reciprocal(sums, out=sums)  # one division per row, then products
        np.matmul(z, v[heads], out=context[heads, rows])  # C = A V


def _joined_rest(arch: Architecture, layer: LayerWeights, a: np.ndarray, h: np.ndarray, heads_in: np.ndarray,
                 mid: np.ndarray, inner: np.ndarray, h_out: np.ndarray, wide: Widened) -> np.ndarray:
    """BERT's or GPT-2's layer after its attention, of joined products (LayerWeights.joined): the output
    projection O, then  BERT: h = LN(a + O); h = LN(h + FF(h))   GPT-2: h = h + O; h = h + FF(LN_2(h)).
    ``heads_in`` (n x (H d_head + 1)) is the layer's stored context, each token's heads' outputs side by side and
    a 1 after them; ``mid`` ((d + 1) x n) and ``inner`` ((d_ff + 1) x n) are scratch with their last rows ones.
    The new hidden state is written into ``h_out`` (n x d, token-minor) and returned."""
    o = np.matmul(wide(layer.joined["o"], "o"), heads_in.T, out=mid[:-1]).T  # n x d: O, its bias in
    if arch.pre_norm:
        h = np.add(h, o, out=h_out)
        norm(arch, h, layer.ln_ffn, out=mid[:-1].T)  # O is done with: the feed-forward's input goes there
    else:
        o += a
        h = layer_norm(o, layer.ln_attn, arch.eps, out=o)  # the feed-forward's input, written over O
    np.matmul(wide(layer.joined["in"], "in"), mid, out=inner[:-1])
    _in_place(ACTIVATION[arch.activation], inner[:-1])
    if arch.pre_norm:
        h += (wide(layer.joined["out"], "out") @ inner).T  # n x d: FF(h), its biases in
        return h
    f = np.matmul(wide(layer.joined["out"], "out"), inner, out=h_out.T).T  # FF(h), where the layer's output goes
    f += h
    return layer_norm(f, layer.ln_ffn, arch.eps, out=f)


#: The arrays a run of BERT or GPT-2 keeps token-minor (see _empty_arrays), as its turned-around products' results
#: are: each layer's input and output are then read and written where they are stored, with no copy. "mid" and
#: "inner" are a layer's scratch (_joined_rest).
_TOKEN_MINOR = frozenset({"hidden", "attn_input", "mid", "inner"})


def _layout(arch: Architecture, n: int) -> tuple[dict, bool, frozenset]:
    """The arrays a run on ``n`` tokens keeps (name -> shape, for _empty_arrays), whether its products write
    Q | K | V into place, and the names of the arrays stored with a 1 after each token's numbers (_empty_arrays)."""
    d, H, dh, L = arch.d_model, arch.n_heads, arch.d_head, arch.n_layers
    per_head = (L, H, n, dh)
    shapes = dict(q=per_head, k=per_head, v=per_head, context=per_head, weights=(L, H, n, n), hidden=(L + 1, n, d))
    if arch.pre_norm:
        shapes.update(attn_input=(L, n, d))
    if arch.rope is not None:
        shapes.update(q_unrotated=per_head, k_unrotated=per_head)
    # No rotation, a key/value head per query head (BERT, GPT-2): every product is turned around (token-minor),
    # at any length, and Q | K | V is written by its product straight into place, as the d_head x n blocks of
    # Q's heads, K's and V's, of which q, k and v are views (4 % quicker at 512 tokens than x @ w and copies).
    # Each product is of its joined weights and bias (LayerWeights.joined) and its input with a 1 after each
    # token's numbers: the hidden states (BERT) or attention inputs (GPT-2); the heads' outputs, kept a token's
    # row at a time (each token's heads side by side), as attend writes them; the attention block's output and
    # the feed-forward's inner layer, the last two a layer's scratch.
    into_place = arch.rope is None and arch.kv_heads == H
    ones = frozenset()
    if into_place:
        shapes = dict(qkv=(L, 3 * H * dh, n), **{name: s for name, s in shapes.items() if name not in ("q", "k", "v")})
        shapes.update(context=(L, n, H * dh), mid=(1, n, d), inner=(1, n, arch.d_ff))
        ones = frozenset({"attn_input" if arch.pre_norm else "hidden", "context", "mid", "inner"})
    return shapes, into_place, ones


def run_bytes(arch: Architecture, n: int) -> int:
    """The memory, in bytes, of the arrays a run on ``n`` tokens keeps (the block _empty_arrays allocates, with its
    extra line): every layer's intermediates and every head's n x n weights (what grows with the square of the
    sentence). A run that reuses an earlier run's block (RunBlocks) keeps up to a quarter more; a block mapped in
    huge pages (memory.allocation, from 4 MB on) is mapped 2 MB larger, so that its arrays start on a 2 MB boundary."""
    shapes, into_place, ones = _layout(arch, n)
    stored = _stored_shapes(shapes, _TOKEN_MINOR if into_place else frozenset(), ones)
    return 4 * sum(line_padded(math.prod(shape), 4) for shape in stored.values()) + LINE_BYTES


def run(arch: Architecture, w: Weights, ids: np.ndarray, edits: dict, start: int = 0, before=None,
        blocks: RunBlocks | None = None, wide: Widened | None = None) -> Forward:
    """The whole model on token ids ``ids``; ``edits`` maps a layer to its LayerEdits. Its arrays are made in a
    block from ``blocks`` when given (RunBlocks: the model's), else in new memory; weights kept narrow are widened
    by ``wide`` (the model's Widened), else by one made for this run.

    With ``start`` > 0, the layers below ``start`` are taken from ``before`` (an earlier run on the same ids
    whose edits below ``start`` were the same, a Forward or a ModelTrace) and the run goes on from layer
    ``start``'s hidden state there: the same numbers as a whole run (``resume_from`` says when it may)."""
    n, H, KV, dh, L = len(ids), arch.n_heads, arch.kv_heads, arch.d_head, arch.n_layers
    G = H // KV  # query heads per key/value head
    wide = Widened() if wide is None else wide
    parts = (slice(0, H * dh), slice(H * dh, (H + KV) * dh), slice((H + KV) * dh, None))  # W_qkv's Q | K | V
    _check_window(arch, n)
    allowed = np.tril(np.ones((n, n), dtype=bool)) if arch.causal else np.ones((n, n), dtype=bool)
    hidden_keys = ~allowed if arch.causal else None
    turn = rotary.angles(np.arange(n), arch.rope.frequencies) if arch.rope is not None else None  # n x dh/2
    shapes, into_place, ones = _layout(arch, n)
    arrays, with_ones = _empty_arrays(shapes, _TOKEN_MINOR if into_place else frozenset(), ones, blocks)
    if into_place:
        qkv_blocks = arrays.pop("qkv")
        arrays.update(zip("qkv", qkv_blocks.reshape(L, 3, H, dh, n).swapaxes(-1, -2).transpose(1, 0, 2, 3, 4)))
        heads_in, mid, inner = with_ones["context"], with_ones["mid"][0], with_ones["inner"][0]
        for scratch in ("mid", "inner"):
            del arrays[scratch]
        arrays["context"] = arrays["context"].reshape(L, n, H, dh).transpose(0, 2, 1, 3)  # a view: L x H x n x dh
    if not arch.pre_norm:  # BERT's attention input is the hidden state itself: the same numbers, not a copy
        arrays.update(attn_input=arrays["hidden"][:L])
    out = Forward(**arrays, allowed=allowed, **({} if turn is not None else dict(q_unrotated=None, k_unrotated=None)))
    names = ("attn_input", "q", "k", "v", "context", "weights") + (
        ("q_unrotated", "k_unrotated") if turn is not None else ())
    if start > 0:
        for name in names:
            getattr(out, name)[:start] = getattr(before, name)[:start]
        out.hidden[:start + 1] = before.hidden[:start + 1]
    else:
        _embed(arch, w, ids, out.hidden[0])
    h = out.hidden[start]  # each layer reads its input where it is stored, in a whole run as in one that resumes
    for li in range(start, L):
        layer = w.layers[li]
        ed = edits.get(li)
        # the attention input: BERT's is the hidden state itself, so an edit of it is an edit of the hidden state
        a = norm(arch, h, layer.ln_attn, out=out.attn_input[li]) if arch.pre_norm else h
        if ed is not None:
            for token, dim, value in ed.inputs:
                if token < n:  # an edit of a token the sentence no longer has waits for it
                    a[token, dim] = value
        if into_place:  # the product written as its heads' d_head x n blocks, the bias added on the way
            np.matmul(edited_joined(layer, ed, wide), with_ones["attn_input" if arch.pre_norm else "hidden"][li],
                      out=qkv_blocks[li])
        else:  # Llama: the heads turned by their positions, key/value heads repeated for their query heads
            w_qkv, b_qkv = edited_qkv(layer, ed, wide)
            qkv = linear(a, w_qkv)  # n x (H + 2 KV) dh
            if b_qkv is not None:
                qkv += b_qkv
            q = qkv[:, parts[0]].reshape(n, H, dh).transpose(1, 0, 2)  # H x n x dh
            k = qkv[:, parts[1]].reshape(n, KV, dh).transpose(1, 0, 2)  # KV x n x dh
            v = qkv[:, parts[2]].reshape(n, KV, dh).transpose(1, 0, 2)
            if turn is not None:
                out.q_unrotated[li] = q
                out.k_unrotated[li] = np.repeat(k, G, axis=0) if G > 1 else k
                q, k = rotary.rotate(q, turn), rotary.rotate(k, turn)
            out.q[li] = q
            out.k[li] = np.repeat(k, G, axis=0) if G > 1 else k  # H x n x dh: each query head's key head
            out.v[li] = np.repeat(v, G, axis=0) if G > 1 else v
        context = out.context[li]
        attend(out.q[li], out.k[li], out.v[li], F32(1.0 / divisor(arch, li)), hidden_keys, out.weights[li], context)
        if ed is not None:
            for head in ed.knocked:
                context[head] = 0.0
            for head, vector in ed.fixed:
                context[head] = vector
        if into_place:
            h = _joined_rest(arch, layer, a, h, heads_in[li], mid, inner, out.hidden[li + 1], wide)
            continue
        o = linear(context.transpose(1, 0, 2).reshape(n, H * dh), wide(layer.w_o, "o"))  # n x d
        if layer.b_o is not None:
            o += float32(layer.b_o)
        h = np.add(h, o, out=out.hidden[li + 1])
        h += _gated_feed_forward(layer, norm(arch, h, layer.ln_ffn), wide)
    if w.ln_final is not None:
        out.hidden[L] = norm(arch, h, w.ln_final)
    return out  # the output head's logits are worked out when asked for (ModelTrace.logits, logits_at)
