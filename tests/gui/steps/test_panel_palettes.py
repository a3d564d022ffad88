"""The nine lesson panels in the dark palette (View → Theme): a dark ground, light words and marks that stand
out, the painted pictures (the mixing canvas, the whole picture, the plane's numbers and meter) drawn again in
it; and back in the standard palette, today's picture pixel for pixel.

What a viewer sees is read from the panel: the grabbed image (its most common colour is the ground; light
pixels are words and marks), and the colours of the text items in its pictures.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from PySide6 import QtGui, QtWidgets

from qkv_gui.look import colours, style
from qkv_gui.look.contrast import AA_GRAPHICS, AA_TEXT, contrast_ratio
from qkv_gui.panels.catalog import PANEL_CLASSES
from qkv_gui.drawing.text_label import TextLabel

from tests.gui.conftest import settle

D = style.DARK
PRESETS = ["seed-the-cat-sat", "designed-it"]


@pytest.fixture(autouse=True)
def _standard_after():
    yield
    colours.use("standard")


def _pixels(image: QtGui.QImage) -> np.ndarray:
    image = image.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    ptr = image.constBits()
    return np.frombuffer(ptr, dtype=np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)[
        :, :image.width(), [2, 1, 0]].copy()


def _grab(widget) -> QtGui.QImage:
    settle()
    return widget.grab().toImage()


def _hex(rgb) -> str:
    return "#%02X%02X%02X" % tuple(int(v) for v in rgb)


def _ground(image: QtGui.QImage) -> str:
    """The most common colour of an image."""
    px = _pixels(image).reshape(-1, 3)
    return _hex(Counter(map(tuple, px.tolist())).most_common(1)[0][0])


def _standing_out(image: QtGui.QImage, ground: str, ratio: float) -> int:
    """How many pixels contrast with ``ground`` at least ``ratio`` to 1 (WCAG)."""
    px = _pixels(image).reshape(-1, 3).astype(float) / 255.0
    lin = np.where(px <= 0.03928, px / 12.92, ((px + 0.055) / 1.055) ** 2.4)
    lum = lin @ np.array([0.2126, 0.7152, 0.0722])
    g = QtGui.QColor(ground)
    gl = np.array([g.redF(), g.greenF(), g.blueF()])
    gl = np.where(gl <= 0.03928, gl / 12.92, ((gl + 0.055) / 1.055) ** 2.4) @ np.array([0.2126, 0.7152, 0.0722])
    hi, lo = np.maximum(lum, gl), np.minimum(lum, gl)
    return int((((hi + 0.05) / (lo + 0.05)) >= ratio).sum())


def _pictures(panel) -> list:
    """Each picture of the panel: its graphics views and its painted canvases."""
    views = [v for v in panel.findChildren(QtWidgets.QGraphicsView) if v.isVisibleTo(panel)]
    canvas = getattr(panel, "canvas", None)
    if isinstance(canvas, QtWidgets.QWidget) and not isinstance(canvas, QtWidgets.QGraphicsView):
        views.append(canvas)
    return views


def _scene_words(panel) -> list:
    """(text, colour) of every visible text item in the panel's pictures."""
    words = []
    for view in panel.findChildren(QtWidgets.QGraphicsView):
        if view.scene() is None or not view.isVisibleTo(panel):
            continue
        for item in view.scene().items():
            if not item.isVisible():
                continue
            if isinstance(item, QtWidgets.QGraphicsTextItem) and item.toPlainText().strip():
                words.append((item.toPlainText(), item.defaultTextColor().name()))
            elif isinstance(item, TextLabel) and item.text().strip():
                words.append((item.text(), item.color().name()))
    return words


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("cls", PANEL_CLASSES, ids=lambda c: c.object_name)
def test_a_panel_in_the_dark_palette_is_dark_with_light_words_and_comes_back_exactly(make_panel, cls, preset):
    panel = make_panel(cls, preset=preset, size=(520, 330))
    assert panel.follows_colours
    picture = _grab(panel)
    standard_grounds = [_ground(_grab(v)) for v in _pictures(panel)]
    assert standard_grounds and all(g == style.BACKGROUND for g in standard_grounds)

    colours.use("dark")
    settle()
    assert panel.colours is D
    for view in _pictures(panel):
        image = _grab(view)
        # the picture's ground is the palette's dark background ...
        assert _ground(image) == D.background, view.objectName()
        # ... and words and marks stand out on it (light ones: nothing dark would)
        assert _standing_out(image, D.background, AA_TEXT) > 150, view.objectName()
    # every word written in a picture reads on the dark ground, or on the role's fill it sits on (the matrices'
    # token strips: dark words on a light strip)
    on_fill = {QtGui.QColor(c).name() for c in D.on_fill.values()}
    for text, colour in _scene_words(panel):
        if colour in on_fill:
            continue
        assert contrast_ratio(colour, D.background) >= AA_GRAPHICS, (text, colour)
    # the words around the pictures (captions, notes) are drawn in light colours on the window's dark ground
    for label in panel.findChildren(QtWidgets.QLabel):
        if label.isVisibleTo(panel) and label.text().strip():
            ink = label.palette().color(QtGui.QPalette.ColorRole.WindowText).name()
            assert contrast_ratio(ink, D.chrome["window"]) >= AA_TEXT, label.objectName()

    colours.use("high-contrast")
    settle()
    colours.use("standard")
    settle()
    assert _grab(panel) == picture  # today's picture, pixel for pixel


def test_the_mixing_canvas_paints_in_the_new_palette(make_panel):
    from qkv_gui.panels.steps.grid_mixing import MixingPanel

    panel = make_panel(MixingPanel, preset="seed-the-cat-sat", size=(520, 330))
    before = _grab(panel.canvas)
    colours.use("dark")
    settle()
    assert panel.canvas.colours is D
    dark = _grab(panel.canvas)
    px = _pixels(dark).reshape(-1, 3)
    count = lambda colour: int((px == np.array(QtGui.QColor(colour).getRgb()[:3])).all(axis=1).sum())  # noqa: E731
    assert count(D.background) > 0.5 * len(px)  # painted on the dark ground
    assert count(D.fill["x"]) > 100  # the dials' bars in butter
    assert count(style.INK["x"]) == 0 and count(style.INK["query"]) == 0  # no standard colour left
    # the chosen output cell: its words in the palette's dark ink on the query's fill
    assert count(D.fill["query"]) > 100
    colours.use("standard")
    settle()
    assert _grab(panel.canvas) == before


def test_the_plane_s_painted_numbers_and_meter_follow_the_palette(make_panel):
    from qkv_gui.panels.steps.qk_plane import QKPlanePanel

    panel = make_panel(QKPlanePanel, preset="seed-the-cat-sat", size=(520, 330))
    colours.use("dark")
    settle()
    assert panel.numbers.colours is D and panel.meter.colours is D and panel.terms.colours is D
    for part in (panel.numbers, panel.meter):
        image = _grab(part)
        assert _standing_out(image, D.chrome["window"], AA_TEXT) > 50, part.objectName()
    # |q| in the query's ink and |k| in the key's, as in the standard palette
    image = _pixels(_grab(panel.numbers)).reshape(-1, 3)
    for role in ("query", "key"):
        ink = np.array(QtGui.QColor(D.ink[role]).getRgb()[:3])
        assert (np.abs(image.astype(int) - ink).max(axis=1) <= 24).sum() >= 3, role  # (text is antialiased)


def test_the_whole_picture_is_drawn_again_in_the_new_palette(make_panel):
    from qkv_gui.panels.steps.summary_diagram import SummaryPanel

    panel = make_panel(SummaryPanel, preset="seed-the-cat-sat", size=(520, 330))
    texts = {name: item.toPlainText() for name, item in panel.texts.items()}
    colours.use("dark")
    settle()
    assert {name: item.toPlainText() for name, item in panel.texts.items()} == texts  # the same words ...
    assert panel.texts["out_value"].defaultTextColor().name() == D.ink["output"].lower()  # ... in its inks
    assert panel.texts["q_letter"].defaultTextColor().name() == QtGui.QColor(D.dark_ink).name()  # on the fill
    fills = {item.brush().color().name() for item in panel.scene.items()
             if isinstance(item, QtWidgets.QAbstractGraphicsShapeItem)}
    assert D.pale["output"].lower() in fills and D.fill["query"].lower() in fills
    assert style.PALE["output"].lower() not in fills
