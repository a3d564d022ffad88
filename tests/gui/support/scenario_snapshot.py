"""What a session holds, to check that a refused or undone action left the user's work as it was."""
from __future__ import annotations

import numpy as np


def snapshot(owner):
    """The scenario's inputs of a window's, a document's or an editor's session."""
    s = owner.session.scenario
    return (s.tokens, s.x.copy(), s.w_q.copy(), s.w_k.copy(), s.w_v.copy(), s.scale, s.causal, s.temperature,
            s.softmax_over, s.seed)


def same(a, b) -> bool:
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(a, b))
