"""A panel drawn afresh, to compare with one that has followed many changes: a panel that sets only what
changed at each edit must end up showing what a new panel shows for the same state."""
import numpy as np

from tests.gui.conftest import settle


def drawn_afresh(panel, qtbot, handed=()):
    """A new panel of ``panel``'s class on its session, in its palette, theme and size, shown and settled.
    ``handed``: attributes the panel keeps from its past on purpose (a value range kept while the numbers
    fit), given to the new panel before it draws once more."""
    settle(qtbot)
    fresh = type(panel)(panel.session)
    qtbot.addWidget(fresh)
    fresh.set_colours(panel.colours)
    fresh.set_theme(panel.theme)
    fresh.resize(panel.size())
    fresh.show()
    qtbot.waitExposed(fresh)
    settle(qtbot)
    if handed:
        for name in handed:
            setattr(fresh, name, getattr(panel, name))
        fresh.refresh()
        settle(qtbot)
    return fresh


def assert_same_drawn(mine: dict, new: dict, skip=()) -> None:
    """Two panels' ``drawn()`` are the same (arrays compared exactly), but for the keys in ``skip``."""
    assert mine.keys() == new.keys()
    for key, value in mine.items():
        if key in skip:
            continue
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(value, new[key], err_msg=key)
        else:
            assert value == new[key], key


def same_bars(a, b, name: str) -> None:
    """Two bar charts (``decorations.Bars``) draw the same rectangles in the same pen and brush."""
    np.testing.assert_array_equal(a.rects(), b.rects(), err_msg=name)
    assert a._pen == b._pen and a._brush == b._brush, name


def through_looks(panel, check) -> None:
    """``check()`` after the panel is put in the dark palette, then in presenter mode, then back in the
    standard palette on the screen (each asks it to draw every item in another look)."""
    from qkv_gui.look import style

    panel.set_colours(style.DARK)
    check()
    panel.set_theme(style.presenter(1.5))
    check()
    panel.set_theme(style.SCREEN)
    panel.set_colours(style.STANDARD)
    check()
