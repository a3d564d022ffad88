"""A panel taken through a long history of edits, and a panel built where that history ends: a panel that
keeps what it drew and sets again only what an edit changed must look the same as the fresh one.

The history: new numbers of W^V, W^Q and X, new words, more tokens, new selections, the causal mask, no
√d_k scaling, the dark palette, slide-sized words, and sizes from a small corner (drawn smaller to fit) to
the panel alone on the screen."""
from __future__ import annotations

from tests.gui.conftest import ALONE, IN_GRID, settle


def followed_and_fresh(make_panel, cls):
    """(the panel that followed the history, a panel built at its end), both settled, same size and look."""
    from qkv_gui.look import style

    first = make_panel(cls, size=IN_GRID)
    s = first.session
    words = list(s.scenario.tokens)
    steps = [lambda: s.set_cell("w_v", 0, 0, "0.7"), lambda: s.set_cell("w_q", 1, 0, "-0.3"),
             lambda: s.select(query=1, key=2), lambda: s.set_text(" ".join(["zebra", *words[1:]])),
             lambda: s.set_text(" ".join(["zebra", *words[1:], "again"])), lambda: s.set_option(causal=True),
             lambda: s.select(query=3, key=0), lambda: s.set_option(scale=False),
             lambda: first.set_colours(style.DARK), lambda: first.set_theme(style.SLIDE),
             lambda: first.resize(*ALONE), lambda: s.set_cell("x", 2, 1, "1.5"),
             lambda: first.resize(300, 200), lambda: s.set_cell("x", 1, 1, "-0.5"),
             lambda: s.set_text(" ".join(f"w{k}" for k in range(40))), lambda: first.resize(*ALONE),
             lambda: s.select(query=30, key=12), lambda: s.set_cell("w_k", 0, 0, "1.1")]
    for step in steps:
        step()
        settle()
    fresh = make_panel(cls, size=ALONE, session=s)
    fresh.set_colours(style.DARK)
    fresh.set_theme(style.SLIDE)
    settle()
    return first, fresh
