"""Every panel in the slide theme: text 1.6 times the screen size (scaled once, not twice), and the
texts drawn in its pictures neither overlap each other nor stick out of their plot or view.

The texts are found the way a viewer sees them: each visible text item of the panel's graphics
scenes (plain QGraphicsTextItem / QGraphicsSimpleTextItem, and the ones inside pyqtgraph's TextItem,
LabelItem and axis titles), measured by its laid-out lines and mapped to panel pixels.
"""
import pytest
from PySide6 import QtCore, QtWidgets

import pyqtgraph as pg

from qkv_engine import presets
from qkv_gui.export import figures as export
from qkv_gui.look import style
from qkv_gui.panels.catalog import PANEL_CLASSES
from qkv_gui.state.session import Session

from tests.gui.support.layout import layout_problems, painted_boxes, scene_texts, text_boxes

SIZE = (960, 600)  # the export's layout size
GRID_CELL = (390, 250)  # a panel in the 3 x 3 grid of a 1600 x 1000 window


def _settle(rounds=4):
    app = QtWidgets.QApplication.instance()
    for _ in range(rounds):
        app.processEvents()


# ----- sizes of text ------------------------------------------------------------------------------
def _drawn_point_size(item) -> float:
    """The size a text item is drawn at: its HTML's own size if it has one (titles), else its font's."""
    if isinstance(item, QtWidgets.QGraphicsTextItem):
        block = item.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                if frag.isValid() and frag.text().strip():
                    size = frag.charFormat().fontPointSize()
                    return size if size > 0 else item.font().pointSizeF()
                it += 1
            block = block.next()
    return item.font().pointSizeF()


#: Widgets whose text is a control's (a button, a chooser): in presenter mode they grow less than texts.
CONTROLS = (QtWidgets.QAbstractButton, QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox,
            QtWidgets.QAbstractSlider, QtWidgets.QTabBar, QtWidgets.QLineEdit)


def text_sizes(panel, controls: bool | None = None) -> set:
    """Every distinct point size of visible text: widgets, scene texts and axis tick numbers.
    ``controls``: True for the controls' text only, False for every text but theirs, None for all."""
    sizes = set()
    for w in [panel, *panel.findChildren(QtWidgets.QWidget)]:
        if controls is not None and isinstance(w, CONTROLS) != controls:
            continue
        if w.isVisibleTo(panel) or w is panel:
            sizes.add(round(w.font().pointSizeF(), 1))
    if controls:
        sizes.discard(-1.0)
        return sizes
    for _view, item in scene_texts(panel):
        sizes.add(round(_drawn_point_size(item), 1))
    for view in panel.findChildren(QtWidgets.QGraphicsView):
        if view.scene() is None:
            continue
        for item in view.scene().items():
            if isinstance(item, pg.AxisItem) and item.isVisible() and item.style.get("tickFont") is not None:
                sizes.add(round(item.style["tickFont"].pointSizeF(), 1))
    sizes.discard(-1.0)
    return sizes


@pytest.fixture(scope="module")
def sessions(qapp):
    style.configure_pyqtgraph()
    return {name: Session(presets.load(name)) for name in ("seed-the-cat-sat", "long-sentence", "seed-cat")}


@pytest.mark.parametrize("cls", PANEL_CLASSES, ids=lambda c: c.object_name)
def test_slide_text_is_scaled_once(cls, sessions):
    panel = cls(sessions["seed-the-cat-sat"])
    panel.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    panel.resize(*GRID_CELL)  # on screen, in the 3 x 3 grid
    panel.show()
    _settle()
    screen = text_sizes(panel)
    panel.resize(*SIZE)  # a slide is laid out larger: the text is 1.6 times the screen's, not more
    _settle()
    assert text_sizes(panel) == screen, "text size does not depend on the panel's size"
    panel.set_theme(style.SLIDE)
    _settle()
    slide = text_sizes(panel)
    factor = style.SLIDE.font_scale
    assert factor == pytest.approx(1.6)
    assert slide == {round(s * factor, 1) for s in screen}, (sorted(screen), sorted(slide))
    # presenter mode at 200%, then back to the screen: the sizes follow (the controls' only up to
    # 125%: a row of buttons twice as wide would not fit a projector's screen), and come back exactly
    panel.set_theme(style.SCREEN)
    _settle()
    texts, controls = text_sizes(panel, controls=False), text_sizes(panel, controls=True)
    panel.set_theme(style.presenter(2.0))
    _settle()
    assert style.presenter(2.0).controls == pytest.approx(1.25)
    assert text_sizes(panel, controls=False) == {round(s * 2.0, 1) for s in texts}
    assert text_sizes(panel, controls=True) == {round(s * 1.25, 1) for s in controls}
    panel.set_theme(style.SCREEN)
    _settle()
    assert text_sizes(panel) == screen
    panel.hide()
    panel.deleteLater()


@pytest.mark.parametrize("cls", PANEL_CLASSES, ids=lambda c: c.object_name)
def test_slide_texts_do_not_overlap_or_stick_out(cls, sessions):
    options = export.ExportOptions(theme="slide", size=SIZE)
    bad = []
    for name, session in sessions.items():
        with export.StagedPanel(cls, session, options) as panel:
            assert text_boxes(panel) or painted_boxes(panel), "the panel shows some text"
            bad += [f"{name}: {b}" for b in layout_problems(panel)]
    assert not bad, "\n".join(bad)


def _shown_in(cls, session, theme):
    """A panel of ``cls`` on ``session``, shown offscreen as a cell of the window's grid, in ``theme``."""
    panel = cls(session)
    panel.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    panel.resize(*GRID_CELL)
    panel.show()
    panel.set_theme(theme)
    _settle()
    return panel


@pytest.mark.parametrize("cls", PANEL_CLASSES, ids=lambda c: c.object_name)
def test_in_presenter_mode_edits_keep_the_text_scaled_without_laying_the_axes_out_again(cls, qapp, monkeypatch):
    """After edits, a panel in presenter mode has the text sizes of a panel put in presenter mode afresh;
    the axes, whose font the theme set once, are not given it again at each edit (that laid each out and
    drew it afresh)."""
    style.configure_pyqtgraph()
    theme = style.presenter(1.5)
    session = Session(presets.load("seed-the-cat-sat"))
    panel = _shown_in(cls, session, theme)
    restyled = []
    real = pg.AxisItem.setStyle
    monkeypatch.setattr(pg.AxisItem, "setStyle", lambda self, **kw: restyled.append(kw) or real(self, **kw))
    assert session.set_cell("x", 1, 0, 0.9) and session.set_cell("w_k", 0, 1, -0.7)
    session.select(2, 1)
    _settle()
    assert not [kw for kw in restyled if "tickFont" in kw]
    monkeypatch.undo()
    fresh = _shown_in(cls, session, theme)
    assert text_sizes(panel) == text_sizes(fresh)
    for p in (panel, fresh):
        p.hide()
        p.deleteLater()
