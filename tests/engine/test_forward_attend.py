"""The forward pass's attention step (forward.attend) against a float64 softmax written out here, for scores
small enough to take e^z as it is and for scores that would overflow or underflow without the row's maximum
taken away first."""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from qkv_engine.models import forward
from qkv_engine.models.forward import attend


def reference(q, k, v, scale, hidden):
    """softmax(scale q k^T) with hidden keys left out, and its mix of v, in float64."""
    z = scale * np.einsum("hid,hjd->hij", q.astype(np.float64), k.astype(np.float64))
    if hidden is not None:
        z = np.where(hidden, -np.inf, z)
    z = z - z.max(axis=-1, keepdims=True)
    a = np.exp(z)
    a /= a.sum(axis=-1, keepdims=True)
    return a, a @ v.astype(np.float64)


def run(q, k, v, scale, hidden=None):
    H, n, dh = q.shape
    weights, context = np.empty((H, n, n), np.float32), np.empty((H, n, dh), np.float32)
    with np.errstate(over="ignore", invalid="ignore"):  # as Model.run calls the forward pass
        attend(q, k, v, np.float32(scale), hidden, weights, context)
    return weights, context


@pytest.mark.parametrize("size", [0.1, 30.0, 400.0])  # scores about 0.5, 10^3 and 10^5: the last would overflow e^z
@pytest.mark.parametrize("causal", [False, True])
def test_attention_matches_a_float64_softmax_at_every_size_of_score(size, causal, either_exp):
    rng = np.random.default_rng(7)
    H, n, dh = 3, 9, 4
    q, k, v = (rng.standard_normal((H, n, dh)).astype(np.float32) * s for s in (size, 1.0, 1.0))
    hidden = ~np.tril(np.ones((n, n), bool)) if causal else None
    weights, context = run(q, k, v, 0.5, hidden)
    want_w, want_c = reference(q, k, v, 0.5, hidden)
    assert np.isfinite(weights).all() and np.isfinite(context).all()
    # a float32 score of size s is rounded by about s * 6e-8, and a weight moves by as much
    slack = 6e-8 * float(np.abs(0.5 * np.einsum("hid,hjd->hij", q, k)).max())
    np.testing.assert_allclose(weights, want_w, atol=2e-6 + slack, rtol=0)
    np.testing.assert_allclose(context, want_c, atol=1e-5 * max(1.0, np.abs(v).max()), rtol=0)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-5)
    if causal:
        assert (weights[:, hidden] == 0).all()


def test_a_row_whose_scores_are_all_far_below_zero_is_still_a_softmax(either_exp):
    """Every score of a row near -200: e^z alone would be 0 for all of them (0 / 0); the row's own maximum is
    taken away first, so its weights are those of the scores' differences."""
    q = np.zeros((1, 2, 1), np.float32)
    q[0, 0, 0], q[0, 1, 0] = -1.0, 1.0
    k = np.array([[[200.0], [201.0], [203.0]]], np.float32)[:, :, :]
    q3 = np.concatenate([q, np.ones((1, 1, 1), np.float32) * 0.5], axis=1)  # 3 queries, 3 keys
    v = np.arange(3, dtype=np.float32).reshape(1, 3, 1)
    weights, _ = run(q3, k, v, 1.0)
    d = np.exp(-np.array([0.0, 1.0, 3.0]))  # row 0: scores -200, -201, -203
    np.testing.assert_allclose(weights[0, 0], d / d.sum(), rtol=1e-5)
    assert np.isfinite(weights).all()


def test_a_score_that_is_not_a_number_gives_a_row_that_is_not_a_number_and_leaves_the_others_alone(either_exp):
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, 4, 3)).astype(np.float32) for _ in range(3))
    q[1, 2, 0] = np.nan
    weights, _ = run(q, k, v, 0.5)
    assert np.isnan(weights[1, 2]).all()
    want_w, _ = reference(q[:1], k[:1], v[:1], 0.5, None)
    np.testing.assert_allclose(weights[0], want_w[0], atol=2e-6)




def numpy_saying(monkeypatch, answer):
    """numpy.lib.introspect.opt_func_info as a numpy 2 whose answer is ``answer`` (None: a numpy without it)."""
    module = None if answer is None else types.SimpleNamespace(opt_func_info=lambda func_name, signature: answer)
    monkeypatch.setitem(sys.modules, "numpy.lib.introspect", module)


@pytest.mark.parametrize("current, chosen", [("X86_V4", True), ("AVX512_SKX", True), ("baseline(X86_V2)", False),
                                             ("baseline(NEON NEON_FP16 NEON_VFPV4 ASIMD)", False)])
def test_exp2_is_taken_only_where_numpy_runs_it_as_vector_code(monkeypatch, current, chosen):
    numpy_saying(monkeypatch, {"exp2": {"ff": {"current": current, "available": current}}})
    assert forward._exp2_is_vectorised() is chosen


@pytest.mark.parametrize("answer", [None, {}, {"exp2": {}}])
def test_exp_is_taken_when_numpy_cannot_say_how_it_runs_exp2(monkeypatch, answer):
    numpy_saying(monkeypatch, answer)  # None: numpy 1, which has no introspect module
    assert forward._exp2_is_vectorised() is False
