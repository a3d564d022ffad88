"""One check for every family: each head of a trace, stepped into as a Scenario, computes the trace's numbers."""
from __future__ import annotations

import numpy as np

from qkv_engine import compute

NAMES = ("q", "k", "v", "q_unrotated", "k_unrotated", "scores", "weights")


def assert_head_scenarios_match(model, trace, tol: float = 1e-5) -> None:
    """Every layer and head: compute(head_scenario) gives the trace's q, k, v (before and after any rotary turn),
    scores, weights, output (the trace's context) and mask, within ``tol``."""
    for layer in range(model.info.n_layers):
        for head in range(model.info.n_heads):
            sc = model.head_scenario(trace, layer, head)
            assert sc.n_heads == 1 and sc.d_k == sc.d_v == model.info.d_head
            assert sc.causal == model.info.causal and sc.rotary == model.info.rotary
            r = compute(sc)
            for name in NAMES + ("context",):
                ours = r.output if name == "context" else getattr(r, name)
                np.testing.assert_allclose(ours, getattr(trace, name)[layer, head], atol=tol, rtol=tol,
                                           err_msg=f"layer {layer} head {head} {name}")
            np.testing.assert_array_equal(r.allowed, trace.allowed)
