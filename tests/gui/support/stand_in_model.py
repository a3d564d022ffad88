"""A trained model's data without a model: ``fake_data(L, H, n)`` is what ``session.model_view_data``
holds in the model mode (random softmax rows, seeded), and ``StandInSession`` a Session whose model view
data a test sets by hand."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from qkv_gui.state.session import Session

WORDS = "the animal did not cross the street because it was too tired and then it slept".split()


@dataclass
class FakeModelView:
    """What ``session.model_view_data`` holds in the model mode."""

    weights: np.ndarray  # L x H x n x n
    allowed: np.ndarray  # n x n
    tokens: tuple
    layer: int = 0
    head: int = 0
    knocked_out: frozenset = frozenset()


def fake_data(L, H, n, causal=False, seed=0, **kw):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(L, H, n, n)) * rng.uniform(0.5, 4.0, size=(L, H, 1, 1))
    allowed = np.tril(np.ones((n, n), dtype=bool)) if causal else np.ones((n, n), dtype=bool)
    e = np.where(allowed, np.exp(z - z.max(axis=-1, keepdims=True)), 0.0)
    return FakeModelView(e / e.sum(axis=-1, keepdims=True), allowed, tuple((WORDS * 4)[:n]), **kw)


class StandInSession(Session):
    """A Session whose model view data a test sets by hand (no model is opened)."""

    model_view_data = None
