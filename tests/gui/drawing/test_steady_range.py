"""Axis ranges that stay put while numbers move inside them (panels/lazy_axes.steady_range)."""
import math
import random

from qkv_gui.drawing.lazy_axes import steady_range, tidy_step


def test_tidy_steps_are_one_two_two_and_a_half_or_five_times_a_power_of_ten():
    rng = random.Random(7)
    for _ in range(500):
        span = 10.0 ** rng.uniform(-6, 6)
        step = tidy_step(span)
        assert step >= span * (1 - 1e-12)
        mantissa = step / 10.0 ** math.floor(math.log10(step) + 1e-12)
        assert any(math.isclose(mantissa, m, rel_tol=1e-9) for m in (1.0, 2.0, 2.5, 5.0, 10.0))
        assert step <= 2.0 * span * (1 + 1e-12)  # never more than twice what was asked


def test_a_new_range_holds_the_numbers_with_tidy_ends():
    lo, hi = steady_range(None, -0.73, 1.18)
    assert lo <= -0.73 and hi >= 1.18
    step = tidy_step((1.18 + 0.73) / 10)
    assert math.isclose(lo / step, round(lo / step), abs_tol=1e-9)
    assert math.isclose(hi / step, round(hi / step), abs_tol=1e-9)
    assert (hi - lo) <= 1.25 * (1.18 + 0.73)


def test_the_range_stays_while_the_numbers_move_inside_and_fill_half_of_it():
    shown = steady_range(None, -1.0, 2.0)
    assert steady_range(shown, -0.9, 1.7) == shown          # a nudge: nothing moves
    assert steady_range(shown, -0.2, 1.4) == shown          # still more than half of it
    grown = steady_range(shown, -1.0, 2.6)                  # out of the range: a new one holds it
    assert grown != shown and grown[0] <= -1.0 and grown[1] >= 2.6
    shrunk = steady_range(shown, 0.0, 0.3)                  # far less than half: zoom in again
    assert shrunk[0] <= 0.0 and shrunk[1] >= 0.3 and shrunk[1] - shrunk[0] < 0.5


def test_random_walks_always_hold_the_numbers():
    rng = random.Random(11)
    shown = None
    for _ in range(2000):
        a, b = sorted(rng.uniform(-10 ** rng.randint(-3, 6), 10 ** rng.randint(-3, 6)) for _ in range(2))
        shown = steady_range(shown, a, b)
        assert shown[0] <= a and b <= shown[1]
        if b > a:
            assert (b - a) >= 0.5 * (shown[1] - shown[0]) * (1 - 1e-9)  # the numbers fill at least half


def test_an_empty_span_is_given_back_as_it_is():
    assert steady_range(None, 0.5, 0.5) == (0.5, 0.5)
    assert steady_range((0.0, 1.0), 2.0, 2.0) == (2.0, 2.0)
