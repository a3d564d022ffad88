"""Live numbers for the lesson appendix "Where do the weights come from?" (the training experiment).

    values = placeholder_values(result, target, steps=12, lr=0.5, loss_start=2.61)
    values["train_loss_worked"]     "L = -log(0.08) = 2.51"

``result`` is the head being trained (``Session.result``), ``target`` the n x m target of the
experiment (``training.look_at``, ``training.target_from_cells``) or None when none is set yet.
Every number comes from ``qkv_engine.training``; nothing here redoes the maths.
"""
from __future__ import annotations

import numpy as np

from . import explain, training
from .attention import AttentionResult
from .lesson_numbers import MAX_LISTED

KEYS = ("train_pairs", "train_query", "train_key", "train_weight", "train_target_weight", "train_loss",
        "train_loss_worked", "train_push_row", "train_steps", "train_lr", "train_loss_start")


def _log_term(t: float, a: float) -> str:
    return f"log({explain.fixed(a, 4)})" if t == 1.0 else f"{explain.trimmed(t, 2)}·log({explain.fixed(a, 4)})"


def loss_worked(weights: np.ndarray, target: np.ndarray, value: float) -> str:
    """``L = -log(0.0729) = 2.6190``; with several target cells
    ``L = -(log(0.0687) + 0.5·log(0.0729) + 0.5·log(0.0773)) / 2 = 2.6337`` (divided by the rows)."""
    cells = [(int(i), int(j)) for i, j in np.argwhere(target > 0)]
    rows = len({i for i, _ in cells})
    terms = [_log_term(float(target[i, j]), float(weights[i, j])) for i, j in cells]
    if len(terms) == 1:
        return f"L = -{terms[0]} = {explain.fixed(value, 4)}"
    inner = explain._shorten(terms)
    over = f" / {rows}" if rows > 1 else ""
    return f"L = -({inner}){over} = {explain.fixed(value, 4)}"


def push_row(tokens, push: np.ndarray, allowed: np.ndarray) -> str:
    """``'The' -0.09, 'animal' +0.92, ...``: target minus weight for each key (+ raises its score)."""
    parts = []
    for tok, v, ok in zip(tokens, push, allowed):
        shown = explain.fixed(float(v), 2)
        parts.append(f"'{tok}' " + ("masked" if not ok else shown if shown.startswith("-") or shown == "0.00"
                                    else "+" + shown))
    if len(parts) > MAX_LISTED:
        parts = parts[:4] + [f"... {len(parts) - 6} more ..."] + parts[-2:]
    return ", ".join(parts)


def placeholder_values(result: AttentionResult, target=None, steps: int | None = None, lr: float | None = None,
                       loss_start: float | None = None) -> dict:
    """Every ``{train_...}`` placeholder of the appendix. Without a target each says so in words."""
    if target is None:
        vals = {k: "(no target yet)" for k in KEYS}
        vals.update(train_steps=str(steps or 0), train_lr="-" if lr is None else explain.trimmed(lr, 3))
        return vals
    s = result.scenario
    t = training.check_target(s, target)
    value = training.loss(s, t)
    a = result.weights
    cells = [(int(i), int(j)) for i, j in np.argwhere(t > 0)]
    i, j = cells[0]
    pairs = [f"'{s.tokens[p]}' → '{s.key_tokens[q]}'" for p, q in cells[:8]]
    vals = {
        "train_pairs": ", ".join(pairs) + (f", ... ({len(cells) - 8} more)" if len(cells) > 8 else ""),
        "train_query": s.tokens[i],
        "train_key": s.key_tokens[j],
        "train_weight": explain.fixed(float(a[i, j]), 2),
        "train_target_weight": explain.trimmed(float(t[i, j]), 2),
        "train_loss": explain.fixed(value, 4),
        "train_loss_worked": loss_worked(a, t, value),
        "train_push_row": push_row(s.key_tokens, t[i] - a[i], result.allowed[i]),
        "train_steps": str(steps or 0),
        "train_lr": "-" if lr is None else explain.trimmed(lr, 3),
        "train_loss_start": explain.fixed(value if loss_start is None else loss_start, 4),
    }
    return vals
