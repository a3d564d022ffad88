"""Lengths, angles, and a 2-D view of queries and keys for the arrow picture.

When d_k = 2 the plane is exact. Otherwise there are two flat views:

``plane_view``: the two directions that keep most of the squared length of all
queries and keys (an uncentred PCA, so the origin stays the origin and arrows
still start there), reporting the fraction it keeps.

``pair_plane``: the plane through one query q and one key k. Its first direction
is q's own, its second the part of k at right angles to q, so q and k keep their
lengths and the angle between them, and every key's first coordinate is its
score with q divided by |q|: the further right a key's dot, the higher its score.
The other keys are projected onto it; the view reports how much of the keys'
squared length it keeps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def norm(v) -> float:
    """|v| = sqrt(v1^2 + ... + vd^2)."""
    return float(math.sqrt(float(np.dot(v, v))))


def cosine(a, b) -> float:
    """cos(theta) = a.b / (|a| |b|); 0.0 when either vector has length 0 (no direction)."""
    na, nb = norm(a), norm(b)
    if na == 0.0 or nb == 0.0:
        return 0.0
    return float(max(-1.0, min(1.0, float(np.dot(a, b)) / (na * nb))))


def angle_degrees(a, b) -> float | None:
    """The angle between a and b in degrees, or None when either has length 0."""
    if norm(a) == 0.0 or norm(b) == 0.0:
        return None
    return math.degrees(math.acos(cosine(a, b)))


@dataclass(frozen=True, eq=False)
class PlaneView:
    queries: np.ndarray  # n x 2, each query as a point on the plane
    keys: np.ndarray  # n x 2
    basis: np.ndarray  # d_k x 2, the two directions used (orthonormal columns)
    exact: bool  # True when nothing is lost (d_k <= 2)
    kept: float  # fraction of the total squared length kept, 0..1 (pair_plane: of the keys)


def plane_view(q, k) -> PlaneView:
    """Place every query and key on one plane (see module docstring)."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    n, d_k = q.shape
    if d_k <= 2:
        basis = np.eye(d_k, 2)
        out = PlaneView(q @ basis, k @ basis, basis, True, 1.0)
    else:
        stacked = np.vstack([q, k])
        total = float(np.sum(stacked**2))
        if total == 0.0:
            basis = np.eye(d_k, 2)
            kept = 1.0
        else:
            _, s, vt = np.linalg.svd(stacked, full_matrices=False)
            basis = vt[:2].T.copy()
            for c in range(2):  # a fixed sign, so the picture does not flip between updates
                if basis[np.argmax(np.abs(basis[:, c])), c] < 0:
                    basis[:, c] *= -1
            kept = float(np.sum(s[:2] ** 2) / np.sum(s**2))
        out = PlaneView(q @ basis, k @ basis, basis, False, min(1.0, kept))
    for a in (out.queries, out.keys, out.basis):
        a.setflags(write=False)
    return out


def _unit(v: np.ndarray, of: float = 0.0) -> np.ndarray | None:
    """``v`` made of length 1, or None when it is 0 (or, what rounding leaves of a vector of size ``of``)."""
    size = float(np.linalg.norm(v))
    return v / size if size > 1e-9 * of and size > 0.0 else None


def _at_right_angles(vectors: np.ndarray, e1: np.ndarray) -> np.ndarray:
    """A unit direction at right angles to ``e1``: the one along which ``vectors`` (rows) reach furthest once
    their part along ``e1`` is taken away, else the coordinate axis least like ``e1``."""
    rest = vectors - np.outer(vectors @ e1, e1)
    if np.any(rest):
        _, _, vt = np.linalg.svd(rest, full_matrices=False)
        e2 = _unit(vt[0] - (vt[0] @ e1) * e1, of=1.0)
        if e2 is not None:
            return e2
    axis = np.zeros_like(e1)
    axis[int(np.argmin(np.abs(e1)))] = 1.0
    return _unit(axis - (axis @ e1) * e1)


def pair_plane(q, k, i: int, j: int) -> PlaneView:
    """Every query and key on the plane of query ``i`` and key ``j`` (see module docstring); exact for
    d_k <= 2 (the coordinates themselves). ``kept``: the fraction of the keys' total squared length that the
    plane keeps (query i and key j keep all of theirs)."""
    q = np.asarray(q, dtype=np.float64)
    k = np.asarray(k, dtype=np.float64)
    d_k = q.shape[1]
    if d_k <= 2:
        return plane_view(q, k)
    e1 = _unit(q[i])
    if e1 is None:  # a query of length 0: the key gives the first direction
        e1 = _unit(k[j])
    if e1 is None:  # both of length 0: the first coordinate axis
        e1 = np.eye(d_k)[0]
    e2 = _unit(k[j] - (k[j] @ e1) * e1, of=float(np.linalg.norm(k[j])))
    if e2 is None:  # k along q (or 0): the direction the other vectors spread most at right angles
        e2 = _at_right_angles(np.vstack([q, k]), e1)
    basis = np.column_stack([e1, e2])
    keys = k @ basis
    total = float(np.sum(k * k))
    kept = float(np.sum(keys * keys)) / total if total > 0.0 else 1.0
    out = PlaneView(q @ basis, keys, basis, False, min(1.0, kept))
    for a in (out.queries, out.keys, out.basis):
        a.setflags(write=False)
    return out
