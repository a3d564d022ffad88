"""Learning the weights: a loss, its gradients in closed form, and gradient-descent steps.

The teacher sets a target T (n x m): row i says where query i should look
(a distribution over the keys; a row of zeros means "no target"). The loss is
the cross-entropy between T and the attention weights A, over the R rows
that have a target:

    L_att = -(1/R) Σ_i Σ_j T_ij log A_ij

Optionally the output O = A V is pulled towards a target output Y (n x d_v;
rows of NaN have no target) with weight λ, over its R_o rows:

    L_out = λ (1/R_o) Σ_i Σ_c (O_ic - Y_ic)²        L = L_att + L_out

Gradients, with Z the scaled scores (S / divisor, -inf where masked) and
A = softmax of each row of Z over the keys:

    dL/dZ   = (A - T) / R  on target rows            (cross-entropy through softmax)
            + A ∘ (dA - rowsum(A ∘ dA))               where dA = dO V^T, dO = 2λ/R_o (O - Y)
    dL/dS   = dL/dZ / divisor                         (divisor = √d_k if scaling, × temperature)
    dL/dQ   = dL/dS K          dL/dK = dL/dS^T Q      dL/dV = A^T dO
    dL/dW^Q = X^T dL/dQ        dL/dW^K = X_s^T dL/dK  dL/dW^V = X_s^T dL/dV
    dL/dX   = dL/dQ W^Q^T  (+ dL/dK W^K^T + dL/dV W^V^T in self-attention; else they go to X_s)

Masked entries have A = 0 and T = 0, so they get no gradient. With several
heads, the head being trained is ``head``: its blocks of W^Q, W^K, W^V change.
The column-wise softmax (the teaching bug) is refused: its rows do not sum to 1.

    target = look_at(scenario, "it", "animal")
    scenario, loss = train_step(scenario, target, lr=0.5)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .attention import MASK_OPEN, compute, mask_reasons
from .errors import ScenarioError
from .numbers import MAX_ABS
from .scenario import Scenario

#: What a step may change.
TRAINABLE = ("w_q", "w_k", "w_v", "x")
#: The largest change one step makes to all trained numbers together (Euclidean length):
#: a huge learning rate gives a long but finite step, never NaN.
MAX_STEP = 1.0
MAX_LR = 100.0


@dataclass(frozen=True, eq=False)
class Gradients:
    """The loss at one point and its gradient with respect to everything that can be trained."""

    loss: float  # L = attention + output
    attention_loss: float  # the cross-entropy part
    output_loss: float  # the squared-error part (0 without a target output)
    weights: np.ndarray  # n x m: the attention weights A at this point
    w_q: np.ndarray  # d_model x d_k: the trained head's block of W^Q
    w_k: np.ndarray  # d_model x d_k
    w_v: np.ndarray  # d_model x d_v
    x: np.ndarray  # n x d_model: row by row (tokens with the same text are not tied here)
    source_x: np.ndarray | None  # n_s x d_model in cross-attention, else None


# ----- targets ------------------------------------------------------------------------------------
def _check_trainable(scenario: Scenario, head: int) -> None:
    if scenario.softmax_over != "keys":
        raise ScenarioError("training needs the softmax over keys (each row sums to 1): "
                            "switch the column-wise mode off first")
    if not isinstance(head, (int, np.integer)) or not 0 <= head < scenario.n_heads:
        raise ScenarioError(f"head: expected 1 to {scenario.n_heads}, got {head!r}")
    if scenario.n == 0 or scenario.n_keys == 0:
        raise ScenarioError("there are no tokens to train on: type a sentence first")


def check_target(scenario: Scenario, target) -> np.ndarray:
    """``target`` as a read-only n x m array whose rows sum to 1 (or are all 0: no target).

    Each non-zero row is scaled to sum to 1. Refused, with a reason: a wrong shape, negative or
    non-finite numbers, no target at all, or a target on a key that a mask hides from that query.
    """
    n, m = scenario.n, scenario.n_keys
    try:
        t = np.array(target, dtype=np.float64)
    except (TypeError, ValueError):
        raise ScenarioError("target: expected a grid of numbers") from None
    if t.shape != (n, m):
        raise ScenarioError(f"target: expected {n} x {m} (queries x keys), got {' x '.join(map(str, t.shape))}")
    if not np.isfinite(t).all() or (t < 0).any():
        raise ScenarioError("target: every entry must be a number, 0 or more")
    sums = t.sum(axis=1)
    if not (sums > 0).any():
        raise ScenarioError("target: choose at least one cell (where a query should look)")
    hidden = (t > 0) & (mask_reasons(scenario) != MASK_OPEN)
    if hidden.any():
        i, j = (int(v) for v in np.argwhere(hidden)[0])
        raise ScenarioError(f"target: '{scenario.tokens[i]}' cannot look at '{scenario.key_tokens[j]}' "
                            f"(a mask hides it); choose another cell or remove the mask")
    t = np.where(sums[:, None] > 0, t / np.where(sums > 0, sums, 1.0)[:, None], 0.0)
    t.setflags(write=False)
    return t


def target_from_cells(scenario: Scenario, cells) -> np.ndarray:
    """A target from clicked (query i, key j) cells: the keys chosen in a row share it equally."""
    t = np.zeros((scenario.n, scenario.n_keys))
    for cell in cells:
        try:
            i, j = (int(v) for v in cell)
        except (TypeError, ValueError):
            raise ScenarioError("target: expected (query, key) pairs of token numbers") from None
        if not (0 <= i < scenario.n and 0 <= j < scenario.n_keys):
            raise ScenarioError(f"target: cell ({i + 1}, {j + 1}) is outside the {scenario.n} x {scenario.n_keys} weights")
        t[i, j] = 1.0
    return check_target(scenario, t)


def _index(tokens: tuple, token, what: str) -> int:
    if isinstance(token, (int, np.integer)) and not isinstance(token, bool):
        if 0 <= token < len(tokens):
            return int(token)
        raise ScenarioError(f"{what}: token number {token + 1} is outside the sentence ({len(tokens)} tokens)")
    if token in tokens:
        return tokens.index(token)
    raise ScenarioError(f"{what}: there is no token '{token}' in the sentence")


def look_at(scenario: Scenario, query, key) -> np.ndarray:
    """The target "query looks only at key", e.g. ``look_at(s, "it", "animal")``.

    Tokens are given by text (the first one with that text) or by number (0-based).
    """
    i = _index(scenario.tokens, query, "query")
    j = _index(scenario.key_tokens, key, "key")
    return target_from_cells(scenario, [(i, j)])


def _check_output_target(scenario: Scenario, output_target, weight: float):
    if output_target is None:
        return None
    y = np.array(output_target, dtype=np.float64)
    if y.shape != (scenario.n, scenario.d_v):
        raise ScenarioError(f"target output: expected {scenario.n} x {scenario.d_v}, got {' x '.join(map(str, y.shape))}")
    empty = np.isnan(y).all(axis=1)
    if not np.isfinite(y[~empty]).all():
        raise ScenarioError("target output: a row is either all numbers or left empty")
    if not (isinstance(weight, (int, float)) and math.isfinite(weight) and weight >= 0):
        raise ScenarioError(f"output weight: expected a number, 0 or more, got {weight!r}")
    return y


# ----- loss and gradients ------------------------------------------------------------------------
def _log_weights(scaled: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """log A, stable for any finite scores (-inf where masked)."""
    top = np.max(np.where(allowed, scaled, -np.inf), axis=1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    shifted = np.where(allowed, scaled - top, -np.inf)
    total = np.sum(np.exp(shifted), axis=1, keepdims=True)
    return shifted - np.log(np.where(total > 0, total, 1.0))


def _forward(scenario: Scenario, target, head: int, output_target, output_weight: float) -> tuple:
    """(result of the head, T, rows with a target, L_att, (O - Y) / R_o on the output rows or None, L_out)."""
    _check_trainable(scenario, head)
    t = check_target(scenario, target)
    y = _check_output_target(scenario, output_target, output_weight)
    r = compute(scenario, head)
    rows = t.sum(axis=1) > 0
    log_a = _log_weights(r.scaled, r.allowed)
    attention_loss = float(-np.sum(t * np.where(t > 0, log_a, 0.0)) / rows.sum())
    diff, output_loss = None, 0.0
    if y is not None and output_weight > 0:
        y_rows = ~np.isnan(y).all(axis=1)
        if y_rows.any():
            diff = np.where(y_rows[:, None], r.output - np.nan_to_num(y), 0.0)
            output_loss = float(output_weight * np.sum(diff ** 2) / y_rows.sum())
            diff = diff / y_rows.sum()
    return r, t, rows, attention_loss, diff, output_loss


def gradients(scenario: Scenario, target, head: int = 0, output_target=None, output_weight: float = 0.0) -> Gradients:
    """The loss of head ``head`` at ``scenario`` and its gradients (see the module's equations)."""
    r, t, rows, attention_loss, diff, output_loss = _forward(scenario, target, head, output_target, output_weight)
    s = r.scenario  # the head alone
    a = r.weights
    dz = np.where(rows[:, None], a - t, 0.0) / rows.sum()  # n x m
    d_out = np.zeros_like(r.output)  # n x d_v
    if diff is not None:  # diff = (O - Y) / R_o on the output rows
        d_out = 2.0 * output_weight * diff
        d_a = d_out @ r.v.T  # n x m
        dz = dz + a * (d_a - np.sum(a * d_a, axis=1, keepdims=True))
    ds = dz / r.divisor
    dq = ds @ r.k  # n x d_k
    dk = ds.T @ r.q  # m x d_k
    dv = a.T @ d_out  # m x d_v
    dx = dq @ s.w_q.T
    dkv_x = dk @ s.w_k.T + dv @ s.w_v.T
    if s.is_cross:
        source = dkv_x
    else:
        dx, source = dx + dkv_x, None
    return Gradients(
        loss=attention_loss + output_loss, attention_loss=attention_loss, output_loss=output_loss,
        weights=a, w_q=s.x.T @ dq, w_k=s.key_x.T @ dk, w_v=s.key_x.T @ dv, x=dx, source_x=source,
    )


def loss(scenario: Scenario, target, head: int = 0, output_target=None, output_weight: float = 0.0) -> float:
    """L at ``scenario`` (the forward pass alone, without gradients)."""
    _, _, _, attention_loss, _, output_loss = _forward(scenario, target, head, output_target, output_weight)
    return attention_loss + output_loss


# ----- steps ---------------------------------------------------------------------------------------
def _check_step(scenario: Scenario, lr, what, output_target, output_weight) -> tuple:
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or not 0 < lr <= MAX_LR:
        raise ScenarioError(f"learning rate: expected a number above 0 and at most {MAX_LR:g}, got {lr!r}")
    what = tuple(what)
    unknown = [w for w in what if w not in TRAINABLE]
    if not what or unknown:
        raise ScenarioError(f"what to train: expected some of {', '.join(TRAINABLE)}, got {list(what)!r}")
    if "w_v" in what and (output_target is None or not output_weight > 0):
        raise ScenarioError("W^V learns only towards a target output: set one (and its weight) or leave W^V out")
    return what


def _tied(scenario: Scenario, g: Gradients) -> tuple:
    """Gradients of x and source_x with tokens of the same text tied: each row gets the sum over
    every row with its text (the app keeps one embedding per token text)."""
    texts = list(scenario.tokens) + (list(scenario.source_tokens) if scenario.is_cross else [])
    rows = np.vstack([g.x] + ([g.source_x] if scenario.is_cross else []))
    total: dict = {}
    for text, row in zip(texts, rows):
        total[text] = total.get(text, 0.0) + row
    tied = np.array([total[t] for t in texts]).reshape(rows.shape)
    return tied[:scenario.n], (tied[scenario.n:] if scenario.is_cross else None)


def _steps(scenario: Scenario, g: Gradients, lr: float, what: tuple) -> dict:
    """name -> the change -lr * gradient, for the trained names (x tied by token text)."""
    out = {name: -lr * getattr(g, name) for name in what if name != "x"}
    if "x" in what:
        dx, dsx = _tied(scenario, g)
        out["x"] = -lr * dx
        if dsx is not None:
            out["source_x"] = -lr * dsx
    return out


def _clipped(steps: dict) -> dict:
    length = math.sqrt(sum(float(np.sum(v ** 2)) for v in steps.values()))
    if not math.isfinite(length):
        raise ScenarioError("training stopped: the numbers grew too large (try a smaller learning rate)")
    if length > MAX_STEP:
        steps = {k: v * (MAX_STEP / length) for k, v in steps.items()}
    return steps


def _applied(scenario: Scenario, steps: dict, head: int) -> Scenario:
    """The scenario with every step added (grid steps into head ``head``'s columns), kept within ±MAX_ABS."""
    changes = {}
    for name, step in steps.items():
        a = np.array(getattr(scenario, name))
        if name in ("w_q", "w_k", "w_v"):
            d = step.shape[1]
            a[:, head * d:(head + 1) * d] += step
        else:
            a += step
        changes[name] = np.clip(a, -MAX_ABS, MAX_ABS)
    return replace(scenario, **changes)


def train_step(scenario: Scenario, target, lr: float = 0.5, what=("w_q", "w_k"), head: int = 0,
               output_target=None, output_weight: float = 0.0) -> tuple:
    """One step of plain gradient descent: ``(new scenario, loss before the step)``.

    A step longer than MAX_STEP is shortened to MAX_STEP (so a large learning rate cannot
    make the numbers explode); NaN or infinity never reach a Scenario.
    """
    what = _check_step(scenario, lr, what, output_target, output_weight)
    g = gradients(scenario, target, head, output_target, output_weight)
    return _applied(scenario, _clipped(_steps(scenario, g, lr, what)), head), g.loss


class Trainer:
    """Gradient descent with momentum, one step at a time (the velocity is kept between steps).

        trainer = Trainer(look_at(s, "it", "animal"), lr=0.5, momentum=0.8)
        s, loss = trainer.step(s)
    """

    def __init__(self, target, lr: float = 0.5, what=("w_q", "w_k"), head: int = 0, momentum: float = 0.0,
                 output_target=None, output_weight: float = 0.0):
        if not (isinstance(momentum, (int, float)) and 0 <= momentum < 1):
            raise ScenarioError(f"momentum: expected a number from 0 up to (not including) 1, got {momentum!r}")
        self.target, self.lr, self.what, self.head = target, lr, tuple(what), head
        self.momentum = float(momentum)
        self.output_target, self.output_weight = output_target, output_weight
        self.velocity: dict = {}
        self.losses: list = []  # the loss before each step taken

    def step(self, scenario: Scenario) -> tuple:
        """``(new scenario, loss before the step)``."""
        what = _check_step(scenario, self.lr, self.what, self.output_target, self.output_weight)
        g = gradients(scenario, self.target, self.head, self.output_target, self.output_weight)
        steps = _steps(scenario, g, self.lr, what)
        if self.velocity and any(self.velocity[k].shape != v.shape for k, v in steps.items() if k in self.velocity):
            self.velocity = {}  # the sizes changed (an edit): start again from rest
        steps = _clipped({k: self.momentum * self.velocity.get(k, 0.0) + v for k, v in steps.items()})
        self.velocity = steps
        self.losses.append(g.loss)
        return _applied(scenario, steps, self.head), g.loss


def rounded(scenario: Scenario, what=("w_q", "w_k"), decimals: int = 2) -> Scenario:
    """The trained numbers rounded to ``decimals`` (as the tables show them), so the worked
    arithmetic starts from exactly the numbers on screen."""
    names = [n for n in what if n in TRAINABLE] + (["source_x"] if "x" in what and scenario.is_cross else [])
    return replace(scenario, **{n: np.round(getattr(scenario, n), decimals) for n in names})
