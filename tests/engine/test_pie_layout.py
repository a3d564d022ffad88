"""pie_layout against slices measured independently (loops, fractions of a turn)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qkv_engine import pie_layout


def test_three_weights_by_hand():
    pie = pie_layout.layout([0.5, 0.25, 0.25])
    assert pie.total == pytest.approx(1.0)
    np.testing.assert_allclose(pie.start, [90.0, -90.0, -180.0])
    np.testing.assert_allclose(pie.span, [-180.0, -90.0, -90.0])
    np.testing.assert_allclose(pie.mid, [0.0, -135.0, -225.0])


def test_row_that_does_not_add_to_one_is_shown_as_shares_of_its_sum():
    pie = pie_layout.layout([0.9, 0.6, 0.0])
    assert pie.total == pytest.approx(1.5)
    np.testing.assert_allclose(pie.shares, [0.6, 0.4, 0.0])
    np.testing.assert_allclose(pie.span, [-216.0, -144.0, 0.0])


def test_zero_row_and_empty_row():
    pie = pie_layout.layout([0.0, 0.0])
    assert pie.total == 0.0 and not pie.shares.any() and not pie.span.any()
    assert pie_layout.slice_at(pie, 0.1, 0.1) is None
    assert pie_layout.layout([]).n == 0


def test_negative_weight_is_refused():
    with pytest.raises(ValueError):
        pie_layout.layout([0.5, -0.1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.0, 5.0), min_size=1, max_size=40))
def test_slices_tile_the_circle_and_hits_land_in_their_slice(ws):
    pie = pie_layout.layout(ws)
    total = sum(ws)
    if total == 0:
        return
    # independent: each slice is weight/total of a full turn, laid end to end clockwise from 12 o'clock
    turned = 0.0
    for k, w in enumerate(ws):
        frac = w / total
        assert pie.start[k] == pytest.approx(90.0 - 360.0 * turned, abs=1e-9)
        assert pie.span[k] == pytest.approx(-360.0 * frac, abs=1e-9)
        if frac > 1e-6:
            a = math.radians(90.0 - 360.0 * (turned + frac / 2))
            assert pie_layout.slice_at(pie, 0.5 * math.cos(a), 0.5 * math.sin(a)) == k
        turned += frac
    assert -pie.span.sum() == pytest.approx(360.0)
    assert pie_layout.slice_at(pie, 2.0, 0.0) is None  # outside the rim


def test_rest_counts_the_unlabelled_non_zero_slices():
    pie = pie_layout.layout([0.5, 0.3, 0.15, 0.05, 0.0])
    count, share, weight = pie_layout.rest(pie, [True, True, False, False, False])
    assert count == 2
    assert share == pytest.approx(0.2)
    assert weight == pytest.approx(0.2)


# ----- many keys: the small slices as one -------------------------------------------------------------
def test_small_slices_are_grouped_only_with_many_keys_and_never_the_selected_one():
    few = [0.5, 0.01, 0.01, 0.48]
    assert pie_layout.small_slices(few).size == 0  # four keys: every slice stays
    row = np.array([0.40, 0.005, 0.3, 0.01, 0.0, 0.015] + [0.27 / 10] * 10)
    row = row / row.sum()
    grouped = pie_layout.small_slices(row, keep=(3,), more_than=12)
    shares = row / row.sum()
    want = [k for k in range(len(row)) if 0 < shares[k] < 0.02 and k != 3]
    assert grouped.tolist() == want
    assert pie_layout.small_slices(row, more_than=20).size == 0


def test_an_order_puts_the_grouped_slices_side_by_side_at_the_end():
    row = [0.1, 0.3, 0.05, 0.2, 0.35]
    order = pie_layout.others_last(5, [0, 2])
    assert order.tolist() == [1, 3, 4, 0, 2]
    pie = pie_layout.layout(row, order=order)
    # walking clockwise in that order, each slice starts where the one before ended
    turned = 0.0
    for k in order:
        assert pie.start[k] == pytest.approx(90.0 - turned)
        turned += 360.0 * row[k]
    # the grouped ones make one slice from 90 - 360 * 0.85 down to -270
    assert pie.start[0] == pytest.approx(90.0 - 360 * 0.85)
    assert pie.start[2] + pie.span[2] == pytest.approx(-270.0)
    # hit-testing follows the order
    for k in range(5):
        a = math.radians(float(pie.mid[k]))
        assert pie_layout.slice_at(pie, 0.5 * math.cos(a), 0.5 * math.sin(a)) == k
    with pytest.raises(ValueError):
        pie_layout.layout(row, order=[0, 1, 2])
