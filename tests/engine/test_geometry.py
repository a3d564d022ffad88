"""Lengths, angles and the 2-D plane of queries and keys."""
from __future__ import annotations

import math

import numpy as np
import pytest

from qkv_engine import geometry


def test_norm_by_hand():
    assert geometry.norm([3.0, 4.0]) == 5.0
    assert geometry.norm([0.0, 0.0, 0.0]) == 0.0
    assert geometry.norm([-2.0]) == 2.0
    assert math.isclose(geometry.norm([1.0, 2.0, 2.0, 4.0]), 5.0, rel_tol=1e-15)


@pytest.mark.parametrize(
    "a,b,cos,angle",
    [
        ([1.0, 0.0], [0.0, 1.0], 0.0, 90.0),
        ([1.0, 0.0], [2.0, 0.0], 1.0, 0.0),
        ([1.0, 0.0], [-3.0, 0.0], -1.0, 180.0),
        ([1.0, 1.0], [1.0, 0.0], 1.0 / math.sqrt(2.0), 45.0),
        ([1.0, 0.0], [-1.0, math.sqrt(3.0)], -0.5, 120.0),
        ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], 1.0, 0.0),
    ],
)
def test_cosine_and_angle_by_hand(a, b, cos, angle):
    assert math.isclose(geometry.cosine(a, b), cos, rel_tol=1e-12, abs_tol=1e-15)
    assert math.isclose(geometry.angle_degrees(a, b), angle, rel_tol=1e-9, abs_tol=1e-6)
    assert -1.0 <= geometry.cosine(a, b) <= 1.0


def test_cosine_by_hand_for_the_walkthrough_arrows():
    q, k = [-0.13, 0.67], [0.05, 0.08]
    cos = (q[0] * k[0] + q[1] * k[1]) / (math.hypot(*q) * math.hypot(*k))
    assert math.isclose(geometry.cosine(q, k), cos, rel_tol=1e-14)
    assert math.isclose(geometry.angle_degrees(q, k), math.degrees(math.acos(cos)), rel_tol=1e-12)


def test_parallel_vectors_never_leave_the_range_of_acos():
    a = np.array([0.1, 0.7, 0.3])
    for factor in (3.0, 1e-3, 7.77):
        assert geometry.cosine(a, factor * a) <= 1.0
        assert geometry.angle_degrees(a, factor * a) == pytest.approx(0.0, abs=1e-5)


@pytest.mark.parametrize("a,b", [([0.0, 0.0], [1.0, 2.0]), ([1.0, 2.0], [0.0, 0.0]), ([0.0], [0.0])])
def test_zero_vectors_have_no_direction(a, b):
    assert geometry.cosine(a, b) == 0.0
    assert geometry.angle_degrees(a, b) is None


# ----- plane view ------------------------------------------------------------------------
@pytest.mark.parametrize("d_k", [1, 2])
def test_plane_view_is_exact_for_two_or_fewer_coordinates(d_k):
    rng = np.random.default_rng(d_k)
    q, k = rng.normal(size=(4, d_k)), rng.normal(size=(4, d_k))
    view = geometry.plane_view(q, k)
    assert view.exact and view.kept == 1.0
    pad = np.zeros((4, 2 - d_k))
    assert np.array_equal(view.queries, np.hstack([q, pad]))
    assert np.array_equal(view.keys, np.hstack([k, pad]))
    assert view.queries.shape == view.keys.shape == (4, 2)


def _check_orthonormal(basis, d_k):
    assert basis.shape == (d_k, 2)
    np.testing.assert_allclose(basis.T @ basis, np.eye(2), atol=1e-12)


@pytest.mark.parametrize("d_k", [3, 4, 8])
def test_plane_view_for_more_coordinates(d_k):
    rng = np.random.default_rng(10 + d_k)
    q, k = rng.normal(size=(5, d_k)), rng.normal(size=(5, d_k))
    view = geometry.plane_view(q, k)
    assert not view.exact
    assert 0.0 < view.kept <= 1.0
    _check_orthonormal(view.basis, d_k)
    np.testing.assert_allclose(view.queries, q @ view.basis, atol=1e-12)
    np.testing.assert_allclose(view.keys, k @ view.basis, atol=1e-12)
    # kept is the share of squared length the plane keeps.
    kept = (np.sum(view.queries**2) + np.sum(view.keys**2)) / (np.sum(q**2) + np.sum(k**2))
    assert view.kept == pytest.approx(kept, rel=1e-9)
    # No other plane keeps more: the plane of the two largest directions is best.
    for _ in range(20):
        other, _ = np.linalg.qr(rng.normal(size=(d_k, 2)))
        other_kept = (np.sum((q @ other) ** 2) + np.sum((k @ other) ** 2)) / (np.sum(q**2) + np.sum(k**2))
        assert other_kept <= view.kept + 1e-12
    for a in (view.queries, view.keys, view.basis):
        assert not a.flags.writeable


def test_plane_view_keeps_everything_when_vectors_lie_in_a_plane():
    rng = np.random.default_rng(3)
    plane, _ = np.linalg.qr(rng.normal(size=(5, 2)))  # a random plane inside 5-D space
    q = rng.normal(size=(4, 2)) @ plane.T
    k = rng.normal(size=(4, 2)) @ plane.T
    view = geometry.plane_view(q, k)
    assert view.kept == pytest.approx(1.0, abs=1e-12)
    _check_orthonormal(view.basis, 5)
    # Lengths and dot products survive the projection exactly (up to rounding).
    np.testing.assert_allclose(view.queries @ view.keys.T, q @ k.T, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(view.queries, axis=1), np.linalg.norm(q, axis=1), atol=1e-12)


def test_plane_view_of_all_zero_vectors():
    view = geometry.plane_view(np.zeros((2, 4)), np.zeros((2, 4)))
    assert view.kept == 1.0
    _check_orthonormal(view.basis, 4)
    assert np.array_equal(view.queries, np.zeros((2, 2)))


def test_plane_view_sign_is_stable():
    rng = np.random.default_rng(8)
    q, k = rng.normal(size=(6, 4)), rng.normal(size=(6, 4))
    view = geometry.plane_view(q, k)
    # The largest component of each direction is positive.
    for c in range(2):
        column = view.basis[:, c]
        assert column[np.argmax(np.abs(column))] > 0
    # Scaling the vectors or nudging one number does not flip the picture.
    for q2, k2 in ((3.0 * q, 3.0 * k), (-q, -k)):
        other = geometry.plane_view(q2, k2)
        np.testing.assert_allclose(other.basis, view.basis, atol=1e-9)
    nudged_q = q.copy()
    nudged_q[2, 1] += 1e-6
    nudged = geometry.plane_view(nudged_q, k)
    np.testing.assert_allclose(nudged.basis, view.basis, atol=1e-4)
    np.testing.assert_allclose(nudged.queries, view.queries, atol=1e-4)


def test_plane_view_for_one_token():
    q, k = np.array([[1.0, 2.0, 3.0]]), np.array([[0.0, 1.0, 0.0]])
    view = geometry.plane_view(q, k)
    assert view.kept == pytest.approx(1.0, abs=1e-12)  # two vectors always lie in a plane
    assert view.queries @ view.keys.T == pytest.approx(2.0, abs=1e-12)


# ----- the plane of one query and one key ---------------------------------------------------------------
@pytest.mark.parametrize("d_k", [3, 8, 32])
def test_pair_plane_keeps_the_pair_and_puts_scores_on_the_first_axis(d_k):
    rng = np.random.default_rng(d_k)
    q, k = rng.normal(size=(6, d_k)), rng.normal(size=(9, d_k))
    i, j = 2, 5
    view = geometry.pair_plane(q, k, i, j)
    _check_orthonormal(view.basis, d_k)
    assert not view.exact
    # q and k keep their lengths and the angle between them
    qi, kj = view.queries[i], view.keys[j]
    assert math.hypot(*qi) == pytest.approx(np.linalg.norm(q[i]), rel=1e-12)
    assert math.hypot(*kj) == pytest.approx(np.linalg.norm(k[j]), rel=1e-12)
    assert geometry.angle_degrees(qi, kj) == pytest.approx(geometry.angle_degrees(q[i], k[j]), abs=1e-9)
    # q points along the first axis; the key is above it
    assert qi[1] == pytest.approx(0.0, abs=1e-12) and qi[0] > 0 and kj[1] > 0
    # every key's first coordinate is its score with q over |q|
    scores = [sum(q[i][c] * k[m][c] for c in range(d_k)) for m in range(9)]
    np.testing.assert_allclose(view.keys[:, 0], np.array(scores) / np.linalg.norm(q[i]), atol=1e-12)
    # the fraction kept, from the keys' lengths measured here
    kept = sum(float(view.keys[m] @ view.keys[m]) for m in range(9)) / sum(float(k[m] @ k[m]) for m in range(9))
    assert view.kept == pytest.approx(kept, rel=1e-12) and 0.0 < view.kept < 1.0


def test_pair_plane_with_a_key_along_the_query_or_a_query_of_length_0():
    rng = np.random.default_rng(1)
    q, k = rng.normal(size=(3, 5)), rng.normal(size=(4, 5))
    k[1] = -2.5 * q[0]  # exactly opposite
    view = geometry.pair_plane(q, k, 0, 1)
    _check_orthonormal(view.basis, 5)
    assert view.keys[1][0] == pytest.approx(-2.5 * np.linalg.norm(q[0]))
    assert view.keys[1][1] == pytest.approx(0.0, abs=1e-12)
    q[2] = 0.0
    view = geometry.pair_plane(q, k, 2, 3)
    _check_orthonormal(view.basis, 5)
    assert math.hypot(*view.keys[3]) == pytest.approx(np.linalg.norm(k[3]))
    assert np.all(view.queries[2] == 0.0)
    zero = geometry.pair_plane(np.zeros((2, 4)), np.zeros((2, 4)), 0, 0)
    _check_orthonormal(zero.basis, 4)
    assert zero.kept == 1.0


@pytest.mark.parametrize("d_k", [1, 2])
def test_pair_plane_is_exact_for_two_or_fewer_coordinates(d_k):
    rng = np.random.default_rng(d_k)
    q, k = rng.normal(size=(4, d_k)), rng.normal(size=(4, d_k))
    view = geometry.pair_plane(q, k, 1, 2)
    assert view.exact and view.kept == 1.0
    np.testing.assert_allclose(view.keys[:, :d_k], k)
