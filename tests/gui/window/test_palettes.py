"""View → Theme: the standard, high-contrast and dark palettes, switched at run time.

A new palette recolours a panel's pictures (backgrounds, axes, grids of cells, outlines, words), the docks,
the tables and the lesson, without a restart; going back gives exactly today's picture; the choice is
remembered across a real restart; figures are exported in the palette on screen. Panels that do not follow
palettes yet keep the standard colours, whole.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg

from qkv_gui.look import colours, style
from qkv_gui.export import figures as export
from qkv_gui.look.contrast import AA_TEXT, contrast_ratio
from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel
from qkv_gui.panels.labs.compare_heatmaps import CompareHeatmapsPanel
from qkv_gui.drawing.plot_marks import Bars
from qkv_gui.panels.labs.concat_project import ConcatProjectPanel
from qkv_gui.panels.steps.embedding_bars import EmbeddingPanel
from qkv_gui.panels.labs.heads_grid import HeadsGridPanel
from qkv_gui.panels.steps.matrices import MatricesPanel
from qkv_gui.panels.steps.qk_plane import QKPlanePanel
from qkv_gui.panels.steps.scaling_bars import ScalingPanel
from qkv_gui.panels.steps.softmax_pie import SoftmaxPanel
from qkv_gui.panels.steps.value_mixing import ValuesPanel
from qkv_gui.drawing.cell_grid import CellGridItem
from qkv_gui.look.colour_tables import NAMES as TABLES, ink, table
from qkv_gui.panels.labs.model_view import ModelViewPanel
from qkv_gui.panels.labs.scaling_lab import ScalingLabPanel
from qkv_gui.drawing.text_label import TextLabel
from qkv_gui.panels.labs.train_panel import TrainPanel

from tests.gui.conftest import settle
from tests.gui.support.restart import run_twice
from tests.gui.support.stand_in_model import StandInSession, fake_data

ARGB = QtGui.QColor.NameFormat.HexArgb


@pytest.fixture(autouse=True)
def _standard_after():
    """Every test leaves the app in the standard palette, whatever happens in it."""
    yield
    colours.use("standard")


def _name(c) -> str:
    return QtGui.QColor(c).name(ARGB) if c is not None else "-"


def _pen(p) -> str:
    p = pg.mkPen(p)
    return "none" if p.style() == QtCore.Qt.PenStyle.NoPen else _name(p.color())


def _brush(b) -> str:
    b = pg.mkBrush(b)
    return "none" if b.style() == QtCore.Qt.BrushStyle.NoBrush else f"{_name(b.color())}/{int(b.style().value)}"


def describe(item) -> tuple:
    """The colours an item is drawn in, as text."""
    kind = type(item).__name__
    if isinstance(item, CellGridItem):
        outlines = sorted((k, o.color) for k, o in item.outlines.items())
        return kind, item.colours.name, tuple(outlines)
    if isinstance(item, pg.AxisItem):
        return kind, _pen(item.pen()), _pen(item.textPen()), str(item.labelStyle.get("color"))
    if isinstance(item, pg.LabelItem):
        return kind, str(item.opts.get("color")), item.text
    if isinstance(item, TextLabel):
        return kind, _name(item.color()), _brush(item.fill), _pen(item.border), item.text()
    if isinstance(item, Bars):
        return kind, _pen(item.opts.get("pen")), _brush(item.opts.get("brush"))
    if isinstance(item, pg.PlotDataItem):
        return kind, _pen(item.opts.get("pen")), _pen(item.opts.get("symbolPen")), _brush(item.opts.get("symbolBrush"))
    if isinstance(item, pg.ColorBarItem):
        return kind, tuple(_name(c) for c in item.colorMap().getColors(mode="qcolor")[::8])
    if isinstance(item, QtWidgets.QAbstractGraphicsShapeItem):
        return kind, _pen(item.pen()), _brush(item.brush())
    if isinstance(item, QtWidgets.QGraphicsLineItem):
        return kind, _pen(item.pen())
    return (kind,)


def snapshot(widget: QtWidgets.QWidget) -> list:
    """Every colour of a widget's pictures and words: view backgrounds, scene items, style sheets, rich texts."""
    out = []
    for view in widget.findChildren(QtWidgets.QGraphicsView):
        out.append(("view", _brush(view.backgroundBrush())))
        if view.scene() is not None:
            out.extend(describe(item) for item in view.scene().items())
    for w in (widget, *widget.findChildren(QtWidgets.QWidget)):
        out.append(("sheet", w.objectName(), w.styleSheet()))
        if isinstance(w, QtWidgets.QLabel):
            out.append(("label", w.objectName(), w.text()))
    return out


def _image(widget) -> QtGui.QImage:
    settle()
    return widget.grab().toImage()


def _pixels(image: QtGui.QImage) -> np.ndarray:
    image = image.convertToFormat(QtGui.QImage.Format.Format_RGB32)
    ptr = image.constBits()
    return np.frombuffer(ptr, dtype=np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)[
        :, :image.width(), [2, 1, 0]].copy()


def _has_colour(image: QtGui.QImage, colour: str) -> int:
    c = QtGui.QColor(colour)
    return int((_pixels(image) == np.array([c.red(), c.green(), c.blue()])).all(axis=2).sum())


def test_the_windows_are_listed_with_the_garbage_collector_held_back(make_panel, qapp, monkeypatch):
    """A collection while PySide lists the windows could delete one of them under it (a crash)."""
    import gc

    panel = make_panel(HeatmapPanel)
    listed = []
    real = qapp.topLevelWidgets

    def top_level_widgets():
        listed.append(gc.isenabled())
        return real()

    monkeypatch.setattr(qapp, "topLevelWidgets", top_level_widgets, raising=False)
    try:
        colours.use("dark")
        assert listed and not any(listed)
        assert gc.isenabled()  # and it runs again afterwards
        assert panel.colours is style.DARK
    finally:
        colours.use("standard")
        settle()


# ----- one panel ------------------------------------------------------------------------------------------------
def test_a_new_palette_recolours_the_heatmap_at_once(make_panel):
    panel = make_panel(HeatmapPanel, preset="pronoun", size=(520, 330))
    paints = panel.paint_count
    colours.use("dark")
    settle()
    d = style.DARK
    assert panel.colours is d and panel.paint_count > paints
    assert _name(panel.canvas.backgroundBrush().color()) == _name(d.background)
    left, bottom = panel.plot.getAxis("left"), panel.plot.getAxis("bottom")
    assert _name(left.textPen().color()) == _name(d.ink["query"])
    assert _name(bottom.textPen().color()) == _name(d.ink["key"])
    assert bottom.labelStyle["color"].upper() == d.ink["key"].upper()  # "key j (column)"
    assert _name(left.pen().color()) == _name(d.foreground)
    bar_axis = panel.colorbar.getAxis("right")
    assert _name(bar_axis.textPen().color()) == _name(d.foreground)
    assert panel.image.colours is d
    assert panel.image.outlines["cell"].color == d.selected and panel.image.outlines["row"].color == d.ink["query"]
    assert d.soft_text in panel.info.styleSheet()
    # what a viewer sees: the plot's ground is dark, and the info line's words are light
    image = _image(panel)
    corner = panel.canvas.mapTo(panel, QtCore.QPoint(3, 3))
    assert _name(image.pixelColor(corner)) == _name(d.background)
    assert contrast_ratio(d.soft_text, d.chrome["window"]) >= AA_TEXT


def test_a_row_with_no_key_left_is_marked_in_the_palette_s_warning_colours(make_panel):
    panel = make_panel(HeatmapPanel, preset="seed-the-cat-sat", size=(520, 330))
    panel.session.toggle_padding(0)
    panel.session.toggle_padding(1)
    panel.session.toggle_padding(2)
    settle()
    colours.use("high-contrast")
    settle()
    hc = style.HIGH_CONTRAST
    assert _pen(panel.rowWarn.pen()) == _name(hc.no_keys_ink)
    assert _brush(panel.rowWarn.brush()).startswith(_name(hc.no_keys_fill))
    assert hc.no_keys_ink in panel.sumNote.text()
    assert panel.shown_row_notes and all(_name(item.color()) == _name(hc.no_keys_ink)
                                         for item in panel.rowNotes.items[:panel.rowNotes.shown])


def _heads_panel(make_panel):
    session_panel = make_panel(HeadsGridPanel, preset="two-heads", size=(520, 330))
    return session_panel


def _compare_panel(make_panel):
    panel = make_panel(CompareHeatmapsPanel, preset="seed-the-cat-sat", size=(520, 330))
    panel.session.pin()
    panel.session.set_text("the cat sat on a mat")
    settle()
    return panel


def _model_panel(make_panel):
    session = StandInSession()
    data = fake_data(3, 4, 6, causal=True, knocked_out=frozenset({(1, 2)}))
    session.set_text(" ".join(data.tokens))
    session.model_view_data = data
    return make_panel(ModelViewPanel, session=session, size=(520, 330))


def _train_panel(make_panel):
    panel = make_panel(TrainPanel, preset="seed-the-cat-sat", size=(520, 420))
    panel.toggle_cell(0, 1)
    settle()
    return panel


FOLLOWING = {
    "heatmap": lambda make: make(HeatmapPanel, preset="pronoun", size=(520, 330)),
    "heads": _heads_panel,
    "compare": _compare_panel,
    "concat": lambda make: make(ConcatProjectPanel, preset="two-heads", size=(520, 330)),
    "model-view": _model_panel,
    "lab": lambda make: make(ScalingLabPanel, size=(520, 420)),
    "train": _train_panel,
    "embedding": lambda make: make(EmbeddingPanel, preset="seed-the-cat-sat", size=(520, 330)),
    "embedding-cross": lambda make: make(EmbeddingPanel, preset="translation", size=(520, 330)),
    "qk-plane": lambda make: make(QKPlanePanel, preset="seed-the-cat-sat", size=(520, 330)),
    "scaling": lambda make: make(ScalingPanel, preset="padding", size=(520, 330)),
    "softmax": lambda make: make(SoftmaxPanel, preset="long-sentence", size=(520, 330)),
    "values": lambda make: make(ValuesPanel, preset="padding", size=(520, 330)),
    "matrices": lambda make: make(MatricesPanel, preset="seed-the-cat-sat", size=(520, 330)),
}


class StandardEmbeddingPanel(EmbeddingPanel):
    """A panel that keeps the standard colours (as a panel made for it may): the embedding panel, told not to
    follow."""

    follows_colours = False


class StandardMatricesPanel(MatricesPanel):
    follows_colours = False


@pytest.mark.parametrize("name", list(FOLLOWING))
def test_each_panel_follows_a_new_palette_and_comes_back_exactly(make_panel, name):
    panel = FOLLOWING[name](make_panel)
    assert panel.follows_colours
    before, picture = snapshot(panel), _image(panel)
    colours.use("dark")
    settle()
    dark = snapshot(panel)
    assert dark != before
    # nothing in a picture is left in the standard ground or text colours
    views = [v for v in panel.findChildren(pg.GraphicsView)]
    assert views and all(_name(v.backgroundBrush().color()) == _name(style.DARK.background) for v in views)
    left_standard = [d for d in dark if d[0] in ("AxisItem", "LabelItem", "TextLabel")
                     and any(_name(style.FOREGROUND) in str(part).lower() for part in d[1:])]
    assert left_standard == []
    colours.use("high-contrast")
    settle()
    colours.use("standard")
    settle()
    assert snapshot(panel) == before
    assert _image(panel) == picture  # today's picture, pixel for pixel


def test_a_panel_that_does_not_follow_keeps_the_standard_colours_whole(make_panel):
    panel = make_panel(StandardEmbeddingPanel, preset="seed-the-cat-sat", size=(520, 330))
    assert not panel.follows_colours
    before, picture = snapshot(panel), _image(panel)
    colours.use("dark")
    settle()
    assert panel.colours is style.STANDARD and snapshot(panel) == before
    # its words on its own light ground, not on the window's dark one
    assert panel.autoFillBackground()
    window = panel.palette().color(QtGui.QPalette.ColorRole.Window)
    assert contrast_ratio(window.name(), style.DARK.chrome["window"]) > 5
    colours.use("standard")
    settle()
    assert not panel.autoFillBackground() and _image(panel) == picture


def test_a_panel_that_does_not_follow_keeps_its_words_dark_under_a_style_sheet(make_panel):
    # Qt gives a widget with a style sheet (its own, or one above it: the lesson's outline) the application's
    # colours whenever it is polished: the matrices' caption turned light on its light ground
    panel = make_panel(StandardMatricesPanel, preset="seed-the-cat-sat", size=(520, 330))
    standard = panel.chain.palette().color(QtGui.QPalette.ColorRole.WindowText).name()
    colours.use("dark")
    panel.setStyleSheet("QWidget#nothingHere { border: 1px solid red; }")  # polishes every child again
    settle()
    assert panel.chain.styleSheet()  # a style sheet of its own, too
    assert panel.chain.palette().color(QtGui.QPalette.ColorRole.WindowText).name() == standard
    assert contrast_ratio(standard, panel.palette().color(QtGui.QPalette.ColorRole.Window).name()) >= AA_TEXT
    colours.use("standard")
    settle()
    assert panel.chain.palette().color(QtGui.QPalette.ColorRole.WindowText).name() == standard


# ----- the pictures' details ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["high-contrast", "dark"])
def test_numbers_written_on_cells_read_in_the_new_palettes(qapp, name):
    p = style.PALETTES[name]
    for t in TABLES:
        light = ink(t, p)
        for k, rgba in enumerate(table(t, p)):
            cell = "#%02X%02X%02X" % tuple(int(v) for v in rgba[:3])
            chosen = p.light_ink if light[k] else p.dark_ink
            assert contrast_ratio(chosen, cell) >= AA_TEXT, (t, k, cell)


def test_the_standard_numbers_on_cells_stay_as_they_were(qapp):
    # white or #111111, whichever contrasts more: at worst 4.35:1 where both are about equal (mid viridis)
    p = style.STANDARD
    worst = min(max(contrast_ratio(p.light_ink, c), contrast_ratio(p.dark_ink, c))
                for t in TABLES for c in ("#%02X%02X%02X" % tuple(int(v) for v in rgba[:3]) for rgba in table(t, p)))
    assert 4.3 < worst < 4.5


@pytest.mark.parametrize("name", ["standard", "high-contrast", "dark"])
def test_masked_cells_and_the_selected_cell_show_in_every_palette(make_panel, name):
    colours.use(name)
    panel = make_panel(HeatmapPanel, preset="seed-the-cat-sat", size=(520, 330))
    panel.session.set_option(causal=True)
    panel.session.select(query=1, key=0)
    settle()
    p = style.PALETTES[name]
    image = _image(panel)
    assert _has_colour(image, p.mask_fill) > 50  # the cover of the masked cells ...
    assert _has_colour(image, p.mask_hatch) > 20  # ... and its hatch
    assert _has_colour(image, p.selected) > 20  # the selected cell's outline ...
    assert _has_colour(image, p.halo) > 20  # ... on its halo


# ----- the window: docks, tables, menu, settings (the lesson's inks: test_lesson_text.py) ----------------------------
def test_the_theme_menu_switches_the_whole_window(make_window, settings):
    settings.setValue("view/palette", "purple")  # not a palette: the window opens in the standard one
    window = make_window()
    menu = window.themeMenu
    actions = window.paletteActions
    assert [a.text() for a in menu.actions()] == ["Standard", "High contrast", "Dark"]
    assert style.current() is style.STANDARD
    assert actions["standard"].isChecked() and actions["standard"].actionGroup().isExclusive()
    tokens_model = window.tokens.findChild(QtWidgets.QTableView).model()
    standard_header = tokens_model.headerData(1, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.ForegroundRole)
    window_colour = window.palette().color(QtGui.QPalette.ColorRole.Window).name()

    actions["dark"].trigger()
    settle()
    d = style.DARK
    assert style.current() is d and actions["dark"].isChecked() and not actions["standard"].isChecked()
    assert window.settings.value("view/palette") == "dark"
    assert "Dark" in window.statusBar().currentMessage()
    for dock in window.docks.values():
        assert dock.widget().palette().color(QtGui.QPalette.ColorRole.Window).name() == d.chrome["window"].lower()
    table_view = window.tokens.findChild(QtWidgets.QTableView)
    assert table_view.palette().color(QtGui.QPalette.ColorRole.Base).name() == d.chrome["base"].lower()
    header = tokens_model.headerData(1, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.ForegroundRole)
    assert header.color().name() == d.ink["x"].lower()
    token_cell = tokens_model.data(tokens_model.index(0, 0), QtCore.Qt.ItemDataRole.BackgroundRole)
    assert token_cell.color().name() == d.token_bg.lower()
    assert d.ink["query"] in window.grids.titles["w_q"].text()
    assert d.error_ink in window.options.messageLabel.styleSheet()
    # the panels in the grid follow
    assert all(panel.colours is d for panel in window.panels.values())

    actions["standard"].trigger()
    settle()
    assert window.palette().color(QtGui.QPalette.ColorRole.Window).name() == window_colour
    header = tokens_model.headerData(1, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.ForegroundRole)
    assert header.color() == standard_header.color()
    assert window.settings.value("view/palette") == "standard"


#: One run of the app in its own process: the first chooses a palette from the menu and closes, the second
#: prints what it opens in.
RESTART = """
import json, sys
from PySide6 import QtCore, QtGui, QtWidgets
app = QtWidgets.QApplication([])
from qkv_gui.look import style
from qkv_gui.window.main_window import MainWindow
settings = QtCore.QSettings(sys.argv[1], QtCore.QSettings.Format.IniFormat)
w = MainWindow(settings=settings, recovery=sys.argv[2])
w.show()
for _ in range(4):
    app.processEvents()
if sys.argv[3] == "first":
    w.paletteActions["dark"].trigger()
    w.close()
else:
    print(json.dumps({"palette": style.current().name,
                      "checked": [n for n, a in w.paletteActions.items() if a.isChecked()],
                      "window": w.palette().color(QtGui.QPalette.ColorRole.Window).name(),
                      "heatmap": w.panels["heatmapPanel"].canvas.backgroundBrush().color().name()}))
w.deleteLater()
QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
"""


def test_the_palette_is_remembered_across_a_real_restart(tmp_path):
    runs = run_twice(RESTART, tmp_path)
    seen = json.loads(runs[1].strip().splitlines()[-1])
    assert seen == {"palette": "dark", "checked": ["dark"], "window": style.DARK.chrome["window"].lower(),
                    "heatmap": style.DARK.background.lower()}
    assert "palette=dark" in (tmp_path / "settings.ini").read_text(encoding="utf-8")


# ----- exports ---------------------------------------------------------------------------------------------------
def _corner(png: bytes) -> str:
    image = QtGui.QImage.fromData(png, "PNG")
    return _name(image.pixelColor(2, 2))


def test_figures_are_exported_in_the_palette_on_screen(make_session):
    session = make_session("seed-the-cat-sat")
    opts = export.ExportOptions(width=960, theme="screen")
    assert _corner(export.render_panel(HeatmapPanel, session, "png", opts)) == _name(style.BACKGROUND)
    colours.use("dark")
    png = export.render_panel(HeatmapPanel, session, "png", opts)
    assert _corner(png) == _name(style.DARK.background)
    image = QtGui.QImage.fromData(png, "PNG")
    assert _has_colour(image, style.DARK.background) > 0.3 * image.width() * image.height()  # a dark figure
    svg = export.render_panel(HeatmapPanel, session, "svg", opts).decode()
    assert f'fill="{style.DARK.background.lower()}"' in svg
    assert _corner(export.render_panel(EmbeddingPanel, session, "png", opts)) == _name(style.DARK.background)
    # a panel that does not follow palettes is exported as it is shown: in the standard colours
    assert _corner(export.render_panel(StandardEmbeddingPanel, session, "png", opts)) == _name(style.BACKGROUND)
    # transparent stays transparent
    clear = export.render_panel(HeatmapPanel, session, "png", export.ExportOptions(width=480, transparent=True))
    assert QtGui.QImage.fromData(clear, "PNG").pixelColor(2, 2).alpha() == 0


def test_the_deck_is_exported_in_the_palette_on_screen(make_session):
    session = make_session("seed-the-cat-sat")
    colours.use("dark")
    opts = export.ExportOptions(width=960, theme="slide")
    image = QtGui.QImage(960, 600, QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(image)
    export._paint_title_page(painter, session.result, session.selection, opts, ["a page"], "The cat sat")
    painter.end()
    assert _name(image.pixelColor(2, 2)) == _name(style.DARK.background)
    assert _has_colour(image, style.DARK.foreground) > 0  # the title in the palette's ink
    staged = export.StagedPanel(HeatmapPanel, session, opts, title=export.page_title(HeatmapPanel, session))
    with staged:
        page = export.image_of(staged.widget, opts)
        title_ink = staged.title_label.palette().color(QtGui.QPalette.ColorRole.WindowText).name()
    assert _name(page.pixelColor(2, 2)) == _name(style.DARK.background)
    assert title_ink == style.DARK.chrome["window_text"].lower()
    data = export.deck_bytes(session, opts, names=["heatmap"])
    assert data.startswith(b"%PDF")


def test_the_export_options_say_which_colours_the_figures_get(qtbot):
    from qkv_gui.window.export_actions import ExportOptionsDialog

    parent = QtWidgets.QWidget()
    qtbot.addWidget(parent)
    dialog = ExportOptionsDialog(export.ExportOptions(), "png", parent)
    assert "Standard" in dialog.coloursNote.text()
    colours.use("high-contrast")  # View → Theme → High contrast
    dialog = ExportOptionsDialog(export.ExportOptions(), "png", parent)
    assert "High contrast" in dialog.coloursNote.text() and "View" in dialog.coloursNote.text()



# ----- the mechanism the panels use -------------------------------------------------------------------------------
def test_painted_items_of_every_kind_take_a_new_palette_and_give_it_back(qapp):
    s, d = style.STANDARD, style.DARK
    view = pg.PlotWidget()
    plot = view.getPlotItem()
    axis = plot.getAxis("left")
    items = {
        "axis": (axis, {"pen": "muted", "text": "ink_query"}),
        "title": (plot.titleLabel, {"text": "ink_value"}),
        "label": (TextLabel("q"), {"text": "ink_key", "fill": "pale_key", "border": "ink_key"}),
        "rect": (QtWidgets.QGraphicsRectItem(0, 0, 1, 1), {"pen": "selected", "brush": ("fill_x", 120)}),
        "line": (QtWidgets.QGraphicsLineItem(0, 0, 1, 1), {"pen": "foreground"}),
        "bars": (Bars(x=[1], height=[1], width=0.5), {"pen": "edge_x", "brush": "fill_x"}),
        "curve": (pg.PlotDataItem([0, 1], [0, 1], symbol="o"), {"pen": "ink_weight", "symbol_pen": "ink_weight",
                                                                  "symbol_brush": "background"}),
        "bar": (pg.ColorBarItem(values=(0, 1), colorMap=pg.colormap.get("viridis")), {"table": "signed"}),
    }
    for name, (item, roles) in items.items():
        if name not in ("axis", "title", "bar"):
            plot.addItem(item)
        colours.paint(item, s, **roles)
    before = [describe(item) for item, _ in items.values()]
    assert _name(axis.textPen().color()) == _name(s.ink["query"]) and _pen(axis.pen()) == _name(s.muted)
    assert items["rect"][0].brush().color().alpha() == 120

    colours.recolour_scene(view.scene(), d)
    for item, _ in items.values():
        colours.repaint(item, d)  # (the colour bar is not in the plot's scene here)
    assert _name(axis.textPen().color()) == _name(d.ink["query"]) and _pen(axis.pen()) == _name(d.muted)
    assert axis.labelStyle["color"] == d.ink["query"]
    assert QtGui.QColor(plot.titleLabel.opts["color"]) == QtGui.QColor(d.ink["value"])
    label = items["label"][0]
    assert _name(label.color()) == _name(d.ink["key"]) and _name(label.fill.color()) == _name(d.pale["key"])
    rect = items["rect"][0]
    assert _pen(rect.pen()) == _name(d.selected) and rect.brush().color().alpha() == 120
    assert _name(rect.brush().color().rgb()) == _name(QtGui.QColor(d.fill["x"]).rgb())
    assert _brush(items["bars"][0].opts["brush"]).startswith(_name(d.fill["x"]))
    assert _pen(items["bars"][0].opts["pen"]) == _name(d.edge["x"])
    assert _brush(items["curve"][0].opts["symbolBrush"]).startswith(_name(d.background))
    assert [describe(item) for item, _ in items.values()] != before

    colours.recolour_scene(view.scene(), s)
    for item, _ in items.values():
        colours.repaint(item, s)
    assert [describe(item) for item, _ in items.values()] == before
    view.deleteLater()


def test_a_label_made_without_a_colour_takes_its_picture_s_palette(qapp):
    view = pg.PlotWidget()
    colours.recolour_scene(view.scene(), style.DARK)  # what a panel in the dark palette does to its pictures
    from qkv_gui.drawing.text_pool import TextPool

    pool = TextPool(view.getPlotItem())
    first, = pool.take(1)
    assert _name(first.color()) == _name(style.DARK.foreground)
    first.setText("mine", color="#123456")  # a colour set by the panel is its own from then on
    colours.recolour_scene(view.scene(), style.STANDARD)
    assert _name(first.color()) == _name("#123456")
    view.deleteLater()
