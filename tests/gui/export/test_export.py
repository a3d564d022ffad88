"""Figures and numbers for slides: every panel as PNG, SVG and PDF, the deck, CSV and JSON (the window's
menu actions: ``window/test_export_actions.py``).

The SVG check renders the SVG back with QSvgRenderer at the PNG's size and compares grey levels.
Threshold: the mean absolute difference must stay under 4 grey levels (of 255) AND under a quarter
of the PNG's own mean distance from a blank page. Measured for the default preset the difference
is 0.04 to 2.3 (anti-aliasing of text edges), while the PNG is 12 to 80 levels away from blank and
a figure of another panel is > 15 away; so the check passes only for the same picture.
"""
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import presets
from qkv_gui.export import figures as export
from qkv_gui.state.session import Session

from tests.gui.conftest import settle
from tests.gui.support.figure_checks import EXPERIMENTS, MODEL_EXPERIMENTS, NAMES, pdf_pages, svg_to_image

SVG_NS = "{http://www.w3.org/2000/svg}"


def grey(image: QtGui.QImage) -> np.ndarray:
    img = image.convertToFormat(QtGui.QImage.Format.Format_Grayscale8)
    a = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())
    return a[:, : img.width()].astype(float)


@pytest.fixture(scope="module")
def session(qapp):
    from qkv_gui.look import style

    style.configure_pyqtgraph()
    s = Session(presets.load("seed-the-cat-sat"))
    s.select(1, 2)
    yield s
    s.deleteLater()


def test_short_names_follow_the_panel_object_names():
    assert list(export.panel_classes()) == NAMES
    assert export.short_name("qkPlanePanel") == "qk-plane"


@pytest.mark.parametrize("name", NAMES)
def test_every_panel_exports_png_svg_pdf_that_match(session, name):
    cls = export.panel_classes()[name]
    opts = export.ExportOptions(width=1200, theme="slide")
    png = export.render_panel(cls, session, "png", opts)
    svg = export.render_panel(cls, session, "svg", opts)
    pdf = export.render_panel(cls, session, "pdf", opts)

    image = QtGui.QImage.fromData(png, "PNG")
    assert image.width() == 1200 and image.height() == 750
    a = grey(image)
    assert a.std() > 10  # a real picture, not a blank page

    root = ET.fromstring(svg)  # parses as XML
    texts = [t for t in root.iter(f"{SVG_NS}text") if "".join(t.itertext()).strip()]
    shapes = [e for e in root.iter() if e.tag in (f"{SVG_NS}path", f"{SVG_NS}polyline", f"{SVG_NS}polygon",
                                                  f"{SVG_NS}rect", f"{SVG_NS}circle", f"{SVG_NS}ellipse")]
    assert len(texts) >= 3 and len(shapes) >= 3
    # Vector, not one bitmap of the panel: no embedded image larger than a heatmap's cell grid / colour bar.
    for im in root.iter(f"{SVG_NS}image"):
        w, h = float(im.get("width", 0)), float(im.get("height", 0))
        assert w * h <= 300 * 300, f"{name}: an embedded {w} x {h} bitmap"
    back = grey(svg_to_image(svg, image.size()))
    mad = np.abs(a - back).mean()
    blank = np.abs(a - 255).mean()
    assert mad < 4.0 and mad < 0.25 * blank, f"{name}: SVG differs from the PNG by {mad:.2f} (blank {blank:.2f})"

    assert pdf.startswith(b"%PDF") and len(pdf) > 2000
    assert pdf_pages(pdf) == 1
    assert b"/Font" in pdf  # text is text


def test_svg_of_another_panel_does_not_match(session):
    """The similarity check can fail: a different panel's SVG is far from this PNG."""
    classes = export.panel_classes()
    opts = export.ExportOptions(width=960, theme="slide")
    image = QtGui.QImage.fromData(export.render_panel(classes["embedding"], session, "png", opts), "PNG")
    other = grey(svg_to_image(export.render_panel(classes["softmax"], session, "svg", opts), image.size()))
    assert np.abs(grey(image) - other).mean() > 8.0


def test_width_scale_transparent_and_screen_theme(session):
    cls = export.panel_classes()["softmax"]
    scaled = QtGui.QImage.fromData(export.render_panel(cls, session, "png", export.ExportOptions(scale=1.5)), "PNG")
    assert scaled.width() == 1440
    clear = QtGui.QImage.fromData(
        export.render_panel(cls, session, "png", export.ExportOptions(width=640, transparent=True, theme="screen")),
        "PNG")
    assert clear.width() == 640 and clear.hasAlphaChannel()
    alpha = np.array([[clear.pixelColor(x, y).alpha() for x in range(0, 640, 16)] for y in range(0, 400, 16)])
    assert (alpha == 0).mean() > 0.5  # most of the figure lets the slide show through
    assert (alpha == 255).any()  # but the pie is drawn
    solid = QtGui.QImage.fromData(export.render_panel(cls, session, "png", export.ExportOptions(width=640)), "PNG")
    assert solid.pixelColor(2, 2).alpha() == 255


def test_deck_has_a_title_page_and_one_page_per_panel(session, tmp_path):
    path = export.export_deck(session, tmp_path / "deck.pdf", export.ExportOptions())
    data = path.read_bytes()
    assert pdf_pages(data) == 1 + len(NAMES)
    assert not list(tmp_path.glob(".qkv-export-*"))  # no temporary file left
    part = export.deck_bytes(session, export.ExportOptions(), names=["heatmap", "softmax"])
    assert pdf_pages(part) == 3


def test_experiments_are_exportable_and_listed_after_the_lesson_panels():
    assert list(export.experiment_classes()) == EXPERIMENTS + MODEL_EXPERIMENTS
    assert list(export.all_panel_classes()) == NAMES + EXPERIMENTS + MODEL_EXPERIMENTS


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_figures_export_png_svg_pdf_that_match(qapp, name):
    from qkv_gui.look import style

    style.configure_pyqtgraph()
    s = Session(presets.load("seed-the-cat-sat"))
    s.lab_state["scaling_lab"] = {"d_k": 256, "seed": 3}
    s.lab_state["train"] = {"losses": [2.0, 1.2, 0.7], "steps": 3, "lr": 0.05, "loss_start": 2.0}
    s.lab_state["rope_lab"] = {"source": "chosen", "theta": 500.0, "m": 9, "n": 4}
    if name in ("heads", "concat"):
        s.set_heads(3)
        settle()
    s.pin()
    s.set_cell("w_q", 0, 1, float(s.scenario.w_q[0, 1]) + 0.9)
    settle()
    cls = export.all_panel_classes()[name]
    opts = export.ExportOptions(width=960, theme="slide")
    image = QtGui.QImage.fromData(export.render_panel(cls, s, "png", opts), "PNG")
    svg = export.render_panel(cls, s, "svg", opts)
    assert image.width() == 960 and grey(image).std() > 10
    a = grey(image)
    back = grey(svg_to_image(svg, image.size()))
    mad = np.abs(a - back).mean()
    assert mad < 4.0 and mad < 0.25 * np.abs(a - 255).mean()
    text = "".join(ET.fromstring(svg).itertext())
    if name == "scaling-lab":
        assert "256" in text and "variance" in text  # the d_k of the lab on screen, not the default 64
    elif name == "heads":
        assert all(f"head {h}" in text for h in (1, 2, 3))
    elif name == "concat":
        assert "W^O" in text or "Wᴼ" in text or "W" in text
        assert "3 × 4" in text  # Y: 3 tokens x d_out 4
    elif name == "train":
        words = " ".join(text.split())
        assert "Loss before each step" in words and "3.0 step" in words  # the 3 steps of the run on screen
    elif name == "rope-lab":
        words = " ".join(text.split())
        assert "θ = 500" in words and "m = 9" in words and "n = 4" in words  # the lab on screen, not the default
    else:
        assert "B − A" in text and "Largest changes" in text
    assert pdf_pages(export.render_panel(cls, s, "pdf", opts)) == 1
    s.deleteLater()


def test_lab_slide_figure_keeps_every_axis_inside(qapp):
    """At 960 x 600 in the slide theme, every chart's axes (ticks and titles) end inside the figure."""
    from qkv_gui.look import style

    style.configure_pyqtgraph()
    s = Session(presets.load("seed-the-cat-sat"))
    options = export.ExportOptions(theme="slide")
    with export.StagedPanel(export.all_panel_classes()["scaling-lab"], s, options) as panel:
        assert (panel.width(), panel.height()) == options.size
        for plot in panel._plots():
            for side in ("left", "bottom"):
                axis = plot.getAxis(side)
                rect = axis.mapRectToScene(axis.boundingRect())
                view = panel.view
                bottom_left = view.mapTo(panel, view.mapFromScene(rect.bottomLeft()))
                assert 0 <= bottom_left.y() <= options.size[1] - 1, (side, bottom_left)
                assert 0 <= bottom_left.x() <= options.size[0]
        words = panel.findChild(QtWidgets.QLabel, "labTable")
        right = words.mapTo(panel, QtCore.QPoint(words.width(), words.height()))
        assert right.x() <= options.size[0] and right.y() <= options.size[1]
    s.deleteLater()


@pytest.mark.parametrize("name", ["heads", "concat", "compare", "heatmap"])
def test_a_staged_copy_is_deaf_once_its_export_is_done(qapp, name):
    """The copy made for an export stops following the session (heads and concat also follow the
    shown head, compare the pinned result): it must not repaint, or raise, after the export."""
    from qkv_gui.look import style

    style.configure_pyqtgraph()
    s = Session(presets.load("seed-the-cat-sat"))
    s.set_heads(3)
    s.pin()
    settle()
    with export.StagedPanel(export.all_panel_classes()[name], s, export.ExportOptions(width=480)) as panel:
        panel.deleteLater = lambda: None  # keep the copy alive, to listen to it afterwards
    heard = []
    panel.refresh = lambda: heard.append("refresh")
    panel._show_chosen = lambda: heard.append("head")
    panel.show()
    settle()
    s.set_head(2)
    settle()
    s.set_cell("x", 0, 0, "0.5")
    s.select(2, 1)
    s.unpin()
    settle()
    assert heard == []
    panel.close()
    QtCore.QObject.deleteLater(panel)
    s.deleteLater()


def test_the_mixing_figure_has_no_tab_bar(session):
    # The switch between the three grids is for the screen; the figure says which grid in its heading.
    opts = export.ExportOptions(width=960)
    with export.StagedPanel(export.panel_classes()["mixing"], session, opts) as panel:
        tabs = panel.findChild(QtWidgets.QTabBar)
        assert tabs is not None and not tabs.isVisible()
        heading = panel.canvas  # the picture starts at the top of the figure, where the tabs were
        assert heading.mapTo(panel, QtCore.QPoint(0, 0)).y() <= 4


def test_the_lab_figure_shows_its_numbers_not_its_controls(session):
    # The √d_k lab's slider is for dragging on the screen; on a slide its d_k and seed read as plain numbers.
    opts = export.ExportOptions(width=960)
    with export.StagedPanel(export.experiment_classes()["scaling-lab"], session, opts) as panel:
        assert not [s for s in panel.findChildren(QtWidgets.QSlider) if s.isVisible()]
        spins = [s for s in panel.findChildren(QtWidgets.QAbstractSpinBox) if s.isVisible()]
        assert spins, "the lab's d_k and seed still show"
        for spin in spins:
            assert spin.buttonSymbols() == QtWidgets.QAbstractSpinBox.ButtonSymbols.NoButtons
            assert not spin.hasFrame()
        assert panel.dk_spin.text() == str(panel.dk_spin.value())


def test_every_deck_page_is_titled_with_its_panel(session, monkeypatch):
    titles = []

    class Recording(export.StagedPanel):
        def __enter__(self):
            panel = super().__enter__()
            label = self.title_label
            titles.append(label.text())
            assert label.isVisible() and label.y() <= 2  # at the top of the page ...
            assert panel.mapTo(self.widget, QtCore.QPoint(0, 0)).y() >= label.height()  # ... above the panel
            page = grey(export.image_of(self.widget, self.options))
            band = page[: label.height() * page.shape[0] // self.options.size[1]]
            assert (band < 128).mean() > 0.01  # the title is drawn: dark ink in the band
            return panel

    monkeypatch.setattr(export, "StagedPanel", Recording)
    data = export.deck_bytes(session, export.ExportOptions(), names=["embedding", "heatmap", "scaling-lab"])
    assert pdf_pages(data) == 4
    classes = export.all_panel_classes()
    assert titles == [classes[n].title for n in ("embedding", "heatmap", "scaling-lab")]
    heads = Session(presets.load("seed-the-cat-sat"))
    heads.set_heads(2)
    heads.set_head(1)
    settle()
    titles.clear()
    export.deck_bytes(heads, export.ExportOptions(), names=["softmax", "heads"])
    assert titles == [f"{classes['softmax'].title} \u00b7 head 2 of 2", classes["heads"].title]
    heads.deleteLater()
