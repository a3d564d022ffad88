"""The live softmax-direction demonstration: the weights with row-wise softmax and with the
column-wise bug, side by side, as an HTML block for the lesson text.

Both results come from ``qkv_engine.compute`` on the current scenario with
``softmax_over`` set each way; row sums come from ``qkv_engine.views``.
A table never runs wider than the pane: long names are shortened, then the
table's text gets smaller (down to ``FLOOR_PX``), then it shows fewer tokens.
Colours come from a palette (default: the one in use).
"""
from __future__ import annotations

import html

from PySide6 import QtCore, QtGui

from qkv_engine import compute, fixed, views

from ...look import style
from ...look.colour_tables import ink as table_ink

#: Without a known width, up to this many key columns the two tables stand side by side.
SIDE_BY_SIDE = 4
MAX_SHOWN = 6
#: The table's text is never smaller than this (pixels); a table still too wide shows fewer tokens.
FLOOR_PX = 11


def _cell_colours(w: float, colours: style.Palette) -> tuple[str, str]:
    """(background, ink) of a cell holding weight ``w``: the weights' colour, and the ink that reads on it
    (in the standard palette white below 0.55, as it always was; in the others the ink that contrasts
    more, as in the grids of cells)."""
    import pyqtgraph as pg

    w = max(0.0, min(1.0, float(w)))
    rgba = pg.colormap.get(colours.weights_map).map([w], mode="byte")[0]
    bg = "#%02X%02X%02X" % (int(rgba[0]), int(rgba[1]), int(rgba[2]))
    light = w < 0.55 if colours is style.STANDARD else bool(table_ink("weights", colours)[round(w * 255)])
    return bg, colours.light_ink if light else colours.dark_ink


def _names(result, px: int, room: int | None, shown: int = MAX_SHOWN) -> tuple[list, list, int]:
    """Query and key names for the table (at most ``shown`` of each), whole; shortened with "…" only if a
    table of whole names is wider than ``room`` (pixels). Also the table's width in pixels."""
    n, m = min(result.n, shown), min(result.n_keys, shown)
    font = QtGui.QFont()
    font.setPixelSize(px)
    font.setBold(True)
    metrics = QtGui.QFontMetrics(font)
    pad = 2 * max(2, px // 5) + 2  # cell padding and border
    number = metrics.horizontalAdvance("0.00")
    tail = metrics.horizontalAdvance("1.00 \u2713") + pad  # the row-sum column
    toks, keys = list(result.tokens[:n]), list(result.key_tokens[:m])

    def width(names_rows, names_cols):
        first = max(metrics.horizontalAdvance(t) for t in names_rows) + pad
        return first + sum(max(metrics.horizontalAdvance(k), number) + pad for k in names_cols) + tail

    total = width(toks, keys)
    if room is not None and total > room:  # too wide for the pane even alone: shorten the longest names
        limit = max(number, (room - tail) // (m + 1) - pad)

        def fit(t):
            return metrics.elidedText(t, QtCore.Qt.TextElideMode.ElideRight, limit)

        toks, keys = [fit(t) for t in toks], [fit(k) for k in keys]
        total = width(toks, keys)
    return toks, keys, total


def _table(result, title: str, px: int, good: bool, toks: list, keys: list, colours: style.Palette) -> str:
    n, m = len(toks), len(keys)
    sums = views.row_sums(result)
    pad = max(2, px // 5)
    # nowrap: a name is never broken over two lines ("stude / nts"); one that cannot fit is shortened
    name = 'style="white-space:nowrap;"'
    head = "".join(f'<td align="center" {name}><b>{html.escape(keys[j])}</b></td>' for j in range(m))
    rows = []
    for i in range(n):
        cells = []
        for j in range(m):
            bg, ink = _cell_colours(result.weights[i, j], colours)
            cells.append(f'<td align="center" bgcolor="{bg}" style="color:{ink};">{fixed(result.weights[i, j], 2)}</td>')
        ok = abs(float(sums[i]) - 1.0) < 5e-3
        mark = "\u2713" if ok else "\u2717"
        colour = colours.ink["value"] if ok else colours.error_ink
        rows.append(f'<tr><td {name}><b>{html.escape(toks[i])}</b></td>{"".join(cells)}'
                    f'<td align="center" style="color:{colour}; white-space:nowrap;"><b>{fixed(sums[i], 2)} {mark}</b>'
                    f'</td></tr>')
    tag = "correct" if good else "the bug"
    caption = (f'<p style="margin-bottom:2px;"><b>{title}</b> ({tag})</p>')
    table = (f'<table cellspacing="0" cellpadding="{pad}" border="1" style="border-color:{colours.table_edge}; '
             f'border-style:solid;"><tr><td></td>{head}<td align="center"><i>row sum</i></td></tr>'
             f'{"".join(rows)}</table>')
    return caption + table


def softmax_direction_html(scenario, px: int, room: int | None = None, colours: style.Palette | None = None) -> str:
    """Two small weight tables (rows = queries, columns = keys) with each row's sum, side by side when
    both fit in ``room`` pixels (the lesson pane's width), else one above the other; in ``colours`` (default:
    the palette in use)."""
    colours = colours or style.current()
    if scenario.n == 0:
        return "<p><i>Type a sentence to see the two directions.</i></p>"
    if scenario.n_keys == 0:
        return "<p><i>Type a source sentence to see the two directions.</i></p>"
    rows = compute(scenario.with_options(softmax_over="keys"))
    cols = compute(scenario.with_options(softmax_over="queries"))
    size, shown = max(10, round(px * 0.8)), MAX_SHOWN
    toks, keys, width = _names(rows, size, room, shown)
    # too wide for the pane even with short names: smaller text, down to a floor, then fewer tokens
    while room is not None and width > room and (size > FLOOR_PX or shown > 2):
        if size > FLOOR_PX:
            size -= 1
        else:
            shown -= 1
        toks, keys, width = _names(rows, size, room, shown)
    left = _table(rows, "Softmax along each row", size, True, toks, keys, colours)
    right = _table(cols, "Softmax down each column", size, False, toks, keys, colours)
    note = ""
    if scenario.is_cross and max(scenario.n, scenario.n_keys) > shown:
        note = (f"<p><i>Showing at most {shown} of the {scenario.n} queries and "
                f"{shown} of the {scenario.n_keys} keys.</i></p>")
    elif scenario.n > shown:
        note = f"<p><i>Showing the first {shown} of {scenario.n} tokens.</i></p>"
    if scenario.n == 1 and scenario.n_keys == 1:
        note += ("<p><i>With one token both ways give 1. Open a preset with more tokens "
                 "(e.g. seed-the-cat-sat) to see them differ.</i></p>")
    explain = ("<p>Left: every row adds up to 1, so each query shares out exactly all of its attention. "
               "Right: the columns add up to 1 instead, and the rows do not, so a query may hand out "
               "more or less than all of its attention.</p>")
    # side by side when both fit; else one above the other, so the numbers keep their room
    gap = max(6, px // 2)
    beside = 2 * width + 3 * gap <= room if room is not None else min(scenario.n_keys, shown) <= SIDE_BY_SIDE
    between = "" if beside else "</tr><tr>"
    return (f'<div style="font-size:{size}px;"><table cellspacing="{gap}" cellpadding="0"><tr>'
            f'<td valign="top">{left}</td>{between}<td valign="top">{right}</td></tr></table>{note}</div>'
            f'{explain}')
