"""“What am I looking at?”: a few plain sentences for every panel, and how to read its picture.

    HELP["heatmapPanel"]                 # (what it shows, how to read it), keyed by the panel's object name
    help_html("heatmapPanel")            # both as rich text, under the panel's title
    panel_at(widget)                     # the panel a widget belongs to (its object name), or None
    show_help(name, global_pos, widget)  # the help as Qt's "What's This?" bubble at a point

F1 over a panel, the ? in a panel's title bar and Help → What am I looking at? show it.
The texts live here, not in the panels, so that one place keeps their words plain and alike.
Every symbol is said in words before it is used.
"""
from __future__ import annotations

import html

from PySide6 import QtCore, QtWidgets

#: object name -> (what the picture shows, how to read it)
HELP = {
    "embeddingPanel": (
        "A computer cannot read words, so each token (a word or a piece of one) becomes a row of numbers, "
        "called its embedding x. Each bar is one of those numbers.",
        "One group of yellow bars per token, its name underneath. Bars above the line are positive, bars "
        "below it negative. The outlined group is the token chosen as the query; click a group to choose it.",
    ),
    "mixingPanel": (
        "A weight grid turns a token's numbers into new numbers. Each new number (q1, q2, …) is a sum: every "
        "input number times the grid entry on its line.",
        "Left: the token's numbers as bars; right: the numbers they make. Each line carries one grid entry; "
        "thicker lines are bigger entries, dashed ones are negative. The sum under the picture works one "
        "number out. The tabs switch between the query grid W^Q, the key grid W^K and the value grid W^V.",
    ),
    "qkPlanePanel": (
        "The query q (what a token is looking for) and a key k (what a token offers) drawn as two arrows. "
        "Their dot product q·k, the score, is big when the arrows point the same way.",
        "The grey wedge is the angle θ between the arrows. The meter's needle goes right for a positive "
        "score and left for a negative one. Faint dots are the other keys: click one to compare it. With "
        "more than two numbers per arrow the plane is only a flat view; the printed numbers are exact.",
    ),
    "scalingPanel": (
        "Each score is divided by √d_k, the square root of d_k (how many numbers a query or a key has). "
        "Without that, long queries and keys give huge scores, and softmax then gives one key almost all "
        "the weight.",
        "Left: the scores of the chosen query before dividing; right: after. One bar per key. The curve "
        "behind shows the weight a score would get; on its grey, flat ends a change in the score changes "
        "almost nothing, so learning stalls there.",
    ),
    "softmaxPanel": (
        "Softmax turns the chosen query's scores into weights: every weight is between 0 and 1, and "
        "together they add up to 1 (the whole pie).",
        "One slice per key, with its share in percent. A bigger score gives a bigger slice. The pulled-out "
        "slice is the chosen key; click a slice to choose another.",
    ),
    "valuesPanel": (
        "Each token also has a value v: what it passes on. The chosen query takes from every value in "
        "proportion to that token's weight, and adds the parts up. That sum is the query's output.",
        "Faint bars: each token's whole value. Solid bars: the part the query takes (weight × value); the "
        "percent under each group is the weight. On the right: the output, the sum of the solid bars.",
    ),
    "heatmapPanel": (
        "Every weight at once: how much each token (a row, the query) looks at each token (a column, "
        "the key). Each row adds up to 1.",
        "Brighter cells are bigger weights; the colour bar gives the scale (0 to 1, 0 to the largest weight "
        "shown, or each row on its own). The outlined cell is the chosen pair: click a cell to choose it. "
        "Hatched cells are masked: that key is hidden from that query.",
    ),
    "matricesPanel": (
        "The same sums for all tokens at once, as grids of numbers (matrices). X holds one row per token; "
        "X times the weight grids gives Q, K and V.",
        "Read the grids left to right: Q times K turned on its side (Kᵀ) gives every score; softmax of each "
        "scaled row gives the weights. Each grid shows its size (rows × columns); the inner sizes must match "
        "to multiply. The chosen query's row and key's column are outlined.",
    ),
    "summaryPanel": (
        "The whole of attention in one drawing, with the numbers of the chosen pair of tokens.",
        "Read it left to right: the three grids turn x, the token's numbers, into a query q, a key k and a "
        "value v. q and k meet in a dot product (the score), which is divided by √d_k (the square root of "
        "how many numbers a key has); softmax makes it a weight, and the weights mix the values into the "
        "output.",
    ),
    "scalingLabPanel": (
        "An experiment with random queries and keys: why scores are divided by √d_k, where d_k is how "
        "many numbers a query or a key has.",
        "Move the d_k slider. Top: the raw scores spread wider as d_k grows (hatched grey); divided by √d_k "
        "they stay narrow (solid blue). Middle and bottom: without dividing, softmax gives one key nearly "
        "all the weight and the gradient (how much learning can change it) shrinks.",
    ),
    "headsPanel": (
        "Attention is often done several times side by side, by heads. Each head has its own grids, so it "
        "can look for something else.",
        "One small heatmap per head, on one colour scale: rows are queries, columns are keys. The framed "
        "head is the one the other panels show; click a heatmap to show that head everywhere.",
    ),
    "concatPanel": (
        "The last step with several heads: each head's outputs are put side by side (C), then one more "
        "grid, W^O, mixes them into one output row per token (Y).",
        "Read it as C × W^O = Y. The coloured bands show which columns of C came from which head, and which "
        "rows of W^O they meet. Red cells are negative, blue positive. The sum underneath works one number "
        "of Y out.",
    ),
    "comparePanel": (
        "Compares two versions of the weights: A, pinned earlier, and B, what you see now after a change.",
        "A and B use the colours of the heatmap. In B − A, red means more attention than before, blue less, "
        "white no change. The list underneath names the biggest changes with their signs.",
    ),
    "trainPanel": (
        "Where the weights come from: the app changes W^Q and W^K step by step until each query looks where "
        "you asked. This is gradient descent, the way real models learn.",
        "Click the cells each query should look at (dashed outlines), or choose a query and a key and press "
        "Set. Press Train: the grid of weights and every panel follow each step, and the loss curve below "
        "falls as the target's weight grows. Pause, One step and Reset control the run.",
    ),
    "modelViewPanel": (
        "A trained model has several layers, each with several heads. This shows the weights of every "
        "head of every layer of the sentence at once.",
        "Rows are layers, columns are heads; each small square is one head's heatmap (rows are queries, "
        "columns are keys). Hover a square to see where the chosen query looks most; click it to show "
        "that head in every panel.",
    ),
}

TITLE = "What am I looking at?"


def help_html(object_name: str, title: str | None = None) -> str:
    """The help of panel ``object_name`` as rich text: its title (if given), what it shows, how to read it."""
    what, how = HELP[object_name]
    head = f"<p><b>{html.escape(title)}</b></p>" if title else ""
    return f"{head}<p>{html.escape(what)}</p><p><b>How to read it:</b> {html.escape(how)}</p>"


def panel_at(widget: QtWidgets.QWidget | None) -> QtWidgets.QWidget | None:
    """The panel (a widget whose object name has a help text) that ``widget`` is part of, or None."""
    while widget is not None:
        if widget.objectName() in HELP:
            return widget
        widget = widget.parentWidget()
    return None


def show_help(panel: QtWidgets.QWidget, global_pos: QtCore.QPoint | None = None) -> str:
    """Show the help of ``panel`` in Qt's "What's This?" bubble (at ``global_pos``, else the panel's top
    centre); returns the text shown."""
    text = help_html(panel.objectName(), getattr(panel, "title", None))
    if global_pos is None:
        global_pos = panel.mapToGlobal(QtCore.QPoint(panel.width() // 2, 8))
    QtWidgets.QWhatsThis.showText(global_pos, text, panel)
    return text
