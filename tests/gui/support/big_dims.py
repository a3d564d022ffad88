"""A trained model's sizes without a model: d_model 384, d_k = d_v = 32, 30 tokens, biases (random numbers,
seeded), and the check that a panel drawing them stays readable: how many texts it shows, and no two of
them on each other or sticking out of their picture (``test_panel_themes.layout_problems``)."""
from __future__ import annotations

import numpy as np

from qkv_engine.scenario import Scenario

from tests.gui.support.layout import layout_problems, painted_boxes, text_boxes

BIG = {"n": 30, "d_model": 384, "d_k": 32}


def big_scenario(n: int = 30, d_model: int = 384, d_k: int = 32, seed: int = 3, **options) -> Scenario:
    """Tokens "w1".."wn" (a few longer), embeddings and grids of a real model's spread, and biases."""
    rng = np.random.default_rng(seed)
    tokens = tuple(f"w{m + 1}" if m % 7 else f"word{m + 1}" for m in range(n))
    scale = 1.0 / np.sqrt(d_model)
    return Scenario(tokens=tokens, x=rng.normal(size=(n, d_model)),
                    w_q=rng.normal(size=(d_model, d_k)) * 3 * scale, w_k=rng.normal(size=(d_model, d_k)) * 3 * scale,
                    w_v=rng.normal(size=(d_model, d_k)) * scale, b_q=rng.normal(size=d_k) * 0.5,
                    b_k=rng.normal(size=d_k) * 0.5, b_v=rng.normal(size=d_k) * 0.1, **options)


def texts_shown(panel) -> int:
    """How many separate texts the panel's pictures show (scene texts and painted words)."""
    return len(text_boxes(panel)) + len(painted_boxes(panel))


def problems(panel) -> list:
    """Texts that overlap or stick out, and cut labels (empty when all is well)."""
    return layout_problems(panel)


def reference(s: Scenario) -> dict:
    """q, k, v (biases added), the weights (row-wise softmax of the scaled scores, no masks) and the outputs,
    written out here with numpy, independently of the engine."""
    q, k, v = s.x @ s.w_q + s.b_q, s.x @ s.w_k + s.b_k, s.x @ s.w_v + s.b_v
    z = q @ k.T / np.sqrt(s.d_k)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    return {"q": q, "k": k, "v": v, "scores": q @ k.T, "weights": a, "output": a @ v}


def big_panel(make_panel, make_session, cls, query: int | None = None, key: int | None = None,
              size=(520, 330), **sizes):
    """``cls`` built on a Session holding ``big_scenario(**sizes)`` at a 1600 x 1000 window's share, the query
    and key selected: (panel, scenario)."""
    from tests.gui.conftest import settle

    s = big_scenario(**sizes)
    session = make_session()
    session.set_scenario(s)
    panel = make_panel(cls, session=session, size=size)
    session.select(query=query, key=key)
    settle()
    return panel, s
