"""Bars whose places stay while their lengths change (``panels.decorations.SteadyBars``): after any run of new
lengths, new places and new options they draw what a plain ``Bars`` given the same options draws (rectangles, bounds,
options, pixels), and the same lengths again do no work."""
from __future__ import annotations

import numpy as np
import pytest

import pyqtgraph as pg

from qkv_gui.drawing.plot_marks import Bars, SteadyBars

from tests.gui.conftest import settle
from tests.gui.support.plots import BLUE, RED


@pytest.fixture
def plots(plot):
    """The plot of the plain bars' tests, showing -6..6 both ways."""
    plot.setRange(xRange=(-6, 6), yRange=(-6, 6), padding=0)
    settle()
    return plot


def _places(along: str, count: int, shift: float = 0.0) -> dict:
    at = np.arange(count, dtype=np.float64) - count / 2.0 + shift
    return {"x0": at, "width": 0.7} if along == "y" else {"y": at, "height": np.full(count, 0.6)}


def _plain_options(along: str, values, places: dict) -> dict:
    """The options a panel gives a plain ``Bars`` for the same bars."""
    v = np.asarray(values, dtype=np.float64)
    if along == "y":
        return {**places, "height": v}
    return {**places, "x0": np.minimum(v, 0.0), "width": np.abs(v)}


def _assert_same(steady: SteadyBars, plain: Bars, view) -> None:
    np.testing.assert_array_equal(steady.rects(), plain.rects())
    assert steady.boundingRect() == plain.boundingRect()
    for ax in (0, 1):
        assert steady.dataBounds(ax) == plain.dataBounds(ax)
    for key in ("x0", "width", "height", "y"):
        a, b = steady.opts[key], plain.opts[key]
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), err_msg=key)
        else:
            assert a == b, key
    plain.hide()
    settle()
    mine = view.grab().toImage()
    plain.show()
    steady.hide()
    settle()
    assert view.grab().toImage() == mine
    steady.show()


@pytest.mark.parametrize("along", ["y", "x"])
def test_new_lengths_places_and_pens_draw_what_plain_bars_draw(plots, along):
    rng = np.random.default_rng(7)
    first = rng.uniform(-5, 5, 6)
    steady = SteadyBars(along=along, brush=RED, pen=None, **_plain_options(along, first, _places(along, 6)))
    plain = Bars(brush=RED, pen=None, **_plain_options(along, first, _places(along, 6)))
    plots.addItem(steady)
    plots.addItem(plain)
    _assert_same(steady, plain, plots)
    steps = [
        (rng.uniform(-5, 5, 6), _places(along, 6)),  # new lengths, the same places: the quick way
        (np.array([0.0, -0.0, 5.5, -5.5, 1e-9, -1e-9]), _places(along, 6)),  # zeros and both ends
        (rng.uniform(-5, 5, 6), _places(along, 6, shift=0.5)),  # new places
        (rng.uniform(-5, 5, 4), _places(along, 4)),  # fewer bars
        (rng.uniform(-5, 5, 9), _places(along, 9)),  # more bars than ever
        (rng.uniform(-5, 5, 9), _places(along, 9)),
        (np.zeros(0), _places(along, 0)),  # none
        (rng.uniform(-5, 5, 3), _places(along, 3)),
    ]
    for values, places in steps:
        steady.set_lengths(values, **places)
        plain.setOpts(**_plain_options(along, values, places))
        _assert_same(steady, plain, plots)
    steady.setOpts(pen=pg.mkPen(BLUE, width=2))  # a new pen, then new lengths in it
    plain.setOpts(pen=pg.mkPen(BLUE, width=2))
    values = rng.uniform(-5, 5, 3)
    steady.set_lengths(values, **_places(along, 3))
    plain.setOpts(**_plain_options(along, values, _places(along, 3)))
    _assert_same(steady, plain, plots)


def test_the_same_lengths_again_do_no_work(plots, monkeypatch):
    bars = SteadyBars(x0=np.arange(3.0), width=0.5, height=[1.0, 2.0, 3.0], brush=RED, pen=None)
    plots.addItem(bars)
    settle()
    lefts = np.arange(3.0)
    bars.set_lengths([1.0, 2.0, 3.0], x0=lefts, width=0.5)  # (the places as given: kept for the next time)
    updates = []
    monkeypatch.setattr(bars, "update", lambda *a: updates.append(a))
    bars.set_lengths(np.array([1.0, 2.0, 3.0]), x0=lefts.copy(), width=0.5)
    assert updates == []
    bars.set_lengths([1.0, -2.0, 3.0], x0=lefts, width=0.5)
    assert len(updates) == 1
    np.testing.assert_array_equal(bars.rects()[:, 1], [0.0, -2.0, 0.0])
    np.testing.assert_array_equal(bars.opts["height"], [1.0, -2.0, 3.0])


def test_bars_lie_or_stand_only():
    with pytest.raises(ValueError, match="along"):
        SteadyBars(along="z")
