"""Exported figures open the same everywhere: every panel and experiment, drawn by other readers.

Qt's own SVG renderer honours ``vector-effect`` and so hides the fault that other readers show
(LibreOffice, librsvg, ImageMagick draw a plot's thin lines as bands hundreds of pixels wide). So:

* everywhere (pure Python, as CI has no renderer): the SVG has no stroke that a reader ignoring
  ``vector-effect`` would widen past ``MAX_STROKE`` page units, no clip region that hides all it holds,
  and its words as text;
* where ``rsvg-convert`` is installed: librsvg's picture of the SVG matches the PNG export;
* where ``pdftoppm`` is installed: poppler's picture of the PDF matches the PNG export.

Pictures are compared at 960 px (one pixel per page unit) by ``figure_checks.differs``, whose
thresholds are explained there. The last tests show the checks fail on the files Qt writes unaided.
"""
import pytest
from PySide6 import QtCore, QtGui, QtSvg

from qkv_engine import presets
from qkv_gui.export import figures as export
from qkv_gui.state.session import Session

from tests.gui.support import figure_checks as fc
from tests.gui.conftest import settle

PANELS = ["embedding", "mixing", "qk-plane", "scaling", "softmax", "values", "heatmap", "matrices", "summary"]
EXPERIMENTS = ["scaling-lab", "heads", "concat", "compare"]
#: (preset, figure): the nine panels with the app's default example and with a 13-token sentence,
#: and the four experiments.
CASES = ([(presets.DEFAULT, n) for n in PANELS] + [("pronoun", n) for n in PANELS]
         + [("two-heads", n) for n in EXPERIMENTS])
OPTIONS = export.ExportOptions(width=960, theme="slide")  # 960 px: one pixel per page unit


def _session(preset: str) -> Session:
    s = Session(presets.load(preset))
    s.preset_name = preset
    if preset == "two-heads":
        s.lab_state["scaling_lab"] = {"d_k": 128, "seed": 2}
        s.pin()  # compare: A is the start, B has one weight changed
        s.set_cell("w_q", 0, 1, float(s.scenario.w_q[0, 1]) + 0.9)
    s.select(1, 2)
    settle()
    return s


@pytest.fixture(scope="module")
def figures(qapp):
    """(preset, name) -> {"png": QImage, "svg": bytes, "pdf": bytes}, made once for the module."""
    from qkv_gui.look import style

    style.configure_pyqtgraph()
    made, sessions = {}, {}

    def get(preset, name):
        if (preset, name) not in made:
            if preset not in sessions:
                sessions[preset] = _session(preset)
            files = export.render_formats(export.all_panel_classes()[name], sessions[preset], FORMATS, OPTIONS)
            made[preset, name] = dict(files, png=QtGui.QImage.fromData(files["png"], "PNG"))
        return made[preset, name]

    yield get
    for s in sessions.values():
        s.deleteLater()


FORMATS = ("png", "svg", "pdf")


@pytest.mark.parametrize("preset,name", CASES)
def test_svg_needs_no_vector_effect_and_clips_nothing_away(figures, preset, name):
    svg = figures(preset, name)["svg"]
    assert b"non-scaling-stroke" not in svg
    widest = fc.widest_stroke(svg)
    assert widest <= fc.MAX_STROKE, f"{name}: a line {widest:.0f} units wide where vector-effect is ignored"
    assert fc.emptied_clips(svg) == []
    assert len(fc.texts(svg)) >= 3  # text stays text


def _reader_matches(figures, preset, name, renderer):
    files = figures(preset, name)
    png = files["png"]
    data = files["svg" if renderer == "rsvg" else "pdf"]
    other = fc.render_with(renderer, data, png.width(), png.height())
    share, mean = fc.differs(png, other)
    assert share < fc.MAX_STRONG_SHARE, (f"{name} ({preset}): {share:.1%} of the {renderer} picture differs "
                                         f"strongly from the PNG (mean {mean:.1f})")


@pytest.mark.skipif(not fc.have("rsvg"), reason="rsvg-convert is not installed (Debian: librsvg2-bin); "
                                                 "the pure-Python check above still runs")
@pytest.mark.parametrize("preset,name", CASES)
def test_librsvg_draws_the_svg_as_the_png(figures, preset, name):
    _reader_matches(figures, preset, name, "rsvg")


@pytest.mark.skipif(not fc.have("pdftoppm"), reason="pdftoppm is not installed (Debian: poppler-utils)")
@pytest.mark.parametrize("preset,name", CASES)
def test_poppler_draws_the_pdf_as_the_png(figures, preset, name):
    _reader_matches(figures, preset, name, "pdftoppm")


# ----- the checks can fail ------------------------------------------------------------------------------
def _svg_as_qt_writes_it(panel_class, session, version, through_picture: bool) -> bytes:
    """What the export wrote before: Qt's generator, painted straight from the widget, not rewritten."""
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    gen = QtSvg.QSvgGenerator(version)
    gen.setOutputDevice(buf)
    gen.setSize(QtCore.QSize(*OPTIONS.size))
    gen.setViewBox(QtCore.QRect(0, 0, *OPTIONS.size))
    gen.setResolution(round(export.screen_dpi()))
    with export.StagedPanel(panel_class, session, OPTIONS) as panel:
        painter = QtGui.QPainter(gen)
        if through_picture:
            picture = QtGui.QPicture()
            recorder = QtGui.QPainter(picture)
            export._paint_panel(panel, recorder, OPTIONS)
            recorder.end()
            picture.play(painter)
        else:
            export._paint_panel(panel, painter, OPTIONS)
        painter.end()
    return bytes(buf.data().data())


def test_the_checks_catch_wide_strokes_and_misplaced_clips(figures, qapp):
    session = _session(presets.DEFAULT)
    cls = export.panel_classes()["values"]
    tiny = _svg_as_qt_writes_it(cls, session, QtSvg.QSvgGenerator.SvgVersion.SvgTiny12, through_picture=False)
    assert fc.widest_stroke(tiny) > 100  # the bands other readers draw
    straight = _svg_as_qt_writes_it(cls, session, QtSvg.QSvgGenerator.SvgVersion.Svg11, through_picture=False)
    assert fc.emptied_clips(straight)  # each plot's clip left where the plot's own widget starts
    if fc.have("rsvg"):
        png = figures(presets.DEFAULT, "values")["png"]
        for bad in (tiny, straight):
            share, _mean = fc.differs(png, fc.render_with("rsvg", bad, png.width(), png.height()))
            assert share > 2 * fc.MAX_STRONG_SHARE
    session.deleteLater()
