"""Lengths, angles, and a 2-D view of queries and keys for the arrow picture.

When d_k = 2 the plane is exact. Otherwise queries and keys are projected onto
the two directions that keep most of their squared length (an uncentred PCA,
so the origin stays the origin and arrows still start there), and the view
reports the fraction it keeps.
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
    kept: float  # fraction of the total squared length kept, 0..1


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
