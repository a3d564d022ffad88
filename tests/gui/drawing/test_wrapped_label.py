"""``WrappedLabel``: measured and painted as a QLabel would (sizes and pixels), rich spans in their colours,
text still selectable, and it follows new words, fonts, colours and style sheets."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_gui.labels.rich_spans import LINE_BREAK, parse_rich
from qkv_gui.labels.wrapped_label import WrappedLabel

Qt = QtCore.Qt
SELECTABLE = Qt.TextInteractionFlag.TextSelectableByMouse
QUERY, OUTPUT = "#2F3FA8", "#146B4C"
SUM = "q1 = (-0.55)(-0.25) + (-0.74)(0.76) + 0.3(-0.26) + (-0.1)(0.94) = 0.14 - 0.56 - 0.08 - 0.09 = -0.60"
INFO = "Selected: query 1 'A' → key 1 'A', weight 0.1667\nweight = e^0.09 / (e^0.09 + e^0.27 + e^0.11) = 0.3111"
CAPTION = (f"Query <b style='color:{QUERY}'>cat &amp; dog</b> takes weight × value from every token; the sum is "
           f"its <b style='color:{OUTPUT}'>output</b> [0.17, -0.33, 0.12]")
CROSS = (f"Query <b style='color:{QUERY}'>A</b> (target token 1 of 6): x = [0.1, 0.2]<br>Key "
         f"<b style='color:#B23C12'>cat</b> (source token 2 of 6)<br><i>No key is allowed for this query.</i>")
BUG = (f"<b style='color:#B23C12'>Column-wise softmax (a bug): the weights of query <span style='color:{QUERY}'>"
       f"cat</span> add up to 80%, not 100%.</b> Each slice is its weight's share.")

#: (text format, interaction flags, style sheet, point size, texts): the kinds of label the panels make
KINDS = {
    "plain": (Qt.TextFormat.PlainText, None, "", 10, [SUM, INFO]),
    "plain selectable": (Qt.TextFormat.PlainText, SELECTABLE, "", 10, [SUM, INFO]),
    "info line": (Qt.TextFormat.AutoText, SELECTABLE, "color: #333333; padding: 0 4px;", 8, [SUM, INFO]),
    "rich": (Qt.TextFormat.RichText, None, "", 9, [CAPTION, CROSS, BUG]),
    "rich, large, padded": (Qt.TextFormat.RichText, None, "padding: 0 4px;", 14, [CAPTION, CROSS]),
}
WIDTHS = (70, 181, 302, 455, 1200)


def make(cls, kind: str, text: str):
    fmt, flags, sheet, points, _ = KINDS[kind]
    label = cls()
    label.setWordWrap(True)
    label.setTextFormat(fmt)
    if flags is not None:
        label.setTextInteractionFlags(flags)
    if sheet:
        label.setStyleSheet(sheet)
    font = label.font()
    font.setPointSizeF(points)
    label.setFont(font)
    label.setText(text)
    label.ensurePolished()
    return label


def pixels(widget) -> np.ndarray:
    image = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine() // 4, 4)
    return rows[:, :image.width(), 2::-1].astype(int)  # (h, w, rgb)


def sized(label, width: int):
    label.resize(width, label.heightForWidth(width))
    return label


@pytest.mark.parametrize("kind", list(KINDS))
def test_measured_and_painted_as_a_qlabel_would(qapp, kind):
    for text in KINDS[kind][4]:
        for width in WIDTHS:
            ours, qt = make(WrappedLabel, kind, text), make(QtWidgets.QLabel, kind, text)
            # (plain text that cannot be selected needs no text document: QLabel draws it as cheaply)
            assert ours._ready() == (kind != "plain")
            assert ours.heightForWidth(width) == qt.heightForWidth(width), (kind, width, text)
            assert np.array_equal(pixels(sized(ours, width)), pixels(sized(qt, width))), (kind, width, text)
        assert ours.sizeHint() == qt.sizeHint()
        assert ours.minimumSizeHint() == qt.minimumSizeHint()


def test_height_for_width_holds_what_is_painted(qapp):
    label = make(WrappedLabel, "plain selectable", SUM)
    line = QtGui.QFontMetrics(label.font()).height()
    heights = {width: label.heightForWidth(width) for width in (120, 240, 2000)}
    assert heights[2000] < heights[240] < heights[120]  # narrower: more lines
    for width, height in heights.items():
        ink = np.nonzero((pixels(sized(label, width)).sum(axis=2) < 300).any(axis=1))[0]
        assert ink.size and ink.max() < height  # nothing painted below the height it asked for ...
        assert ink.max() > height - line  # ... and the last line is painted at its bottom


def test_wraps_at_words(qapp):
    label = make(WrappedLabel, "plain selectable", "alpha beta gamma delta")
    width = QtGui.QFontMetrics(label.font()).horizontalAdvance("alpha beta gamma") + 4
    assert label._ready()
    layout, _, _ = label._layout(width)
    lines = [label._plain[layout.lineAt(k).textStart():][:layout.lineAt(k).textLength()].strip()
             for k in range(layout.lineCount())]
    assert lines == ["alpha beta gamma", "delta"]


def colour_near(image: np.ndarray, colour: str, tolerance: int = 40) -> np.ndarray:
    want = np.array(QtGui.QColor(colour).getRgb()[:3])
    return np.abs(image - want).sum(axis=2) < tolerance


def test_rich_spans_in_their_colours(qapp):
    label = sized(make(WrappedLabel, "rich", CAPTION), 900)
    image = pixels(label)
    fm = QtGui.QFontMetrics(label.font())
    start = fm.horizontalAdvance("Query ")
    bold = QtGui.QFont(label.font())
    bold.setBold(True)
    end = start + QtGui.QFontMetrics(bold).horizontalAdvance("cat & dog")
    blue = colour_near(image, QUERY)
    assert blue[:, start:end].sum() > 20  # the query's name in the query's colour
    assert blue[:, :start].sum() == 0 and blue[:, end + 2:].sum() == 0  # and nothing else
    assert colour_near(image, OUTPUT)[:, end:].sum() > 20  # "output" in the output's colour
    black = colour_near(image, label.palette().color(QtGui.QPalette.ColorRole.WindowText).name(), 120)
    assert black[:, :start].sum() > 20  # the rest in the label's own colour


def test_style_sheet_and_palette_colours_followed(qapp):
    label = sized(make(WrappedLabel, "plain selectable", SUM), 400)
    label.setStyleSheet("color: #C00000;")
    assert colour_near(pixels(label), "#C00000").sum() > 50
    label.setStyleSheet("color: #0000C0;")  # a new theme sets the sheet again
    image = pixels(label)
    assert colour_near(image, "#0000C0").sum() > 50 and colour_near(image, "#C00000").sum() == 0
    label.setStyleSheet("")
    palette = label.palette()
    palette.setColor(QtGui.QPalette.ColorRole.WindowText, QtGui.QColor("#00A000"))
    label.setPalette(palette)
    assert colour_near(pixels(label), "#00A000").sum() > 50


def test_dark_palette_of_the_app(qapp):
    from qkv_gui.look import colours, style

    label = sized(make(WrappedLabel, "info line", INFO), 400)
    qt = sized(make(QtWidgets.QLabel, "info line", INFO), 400)
    try:
        for widget in (label, qt):
            colours.sheet(widget, "color: $soft_text; padding: 0 4px;", style.STANDARD)
        colours.use("dark")
        soft = style.current().soft_text
        image = pixels(label)
        assert np.array_equal(image, pixels(qt))
        assert colour_near(image, soft).sum() > 30
    finally:
        colours.use("standard")


def test_new_font_new_size_and_look(qapp):
    label = make(WrappedLabel, "rich", CAPTION)
    qt = make(QtWidgets.QLabel, "rich", CAPTION)
    before = label.heightForWidth(300)
    for widget in (label, qt):  # presenter mode: every font scaled up
        font = widget.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        widget.setFont(font)
    assert label.heightForWidth(300) > before
    assert label.heightForWidth(300) == qt.heightForWidth(300)
    assert np.array_equal(pixels(sized(label, 300)), pixels(sized(qt, 300)))


def test_new_words_painted(qapp):
    label = sized(make(WrappedLabel, "rich", "<b>0.25</b>"), 300)
    first = pixels(label)
    label.setText("<b>0.75</b>")
    assert not np.array_equal(pixels(label), first)
    assert np.array_equal(pixels(label), pixels(sized(make(QtWidgets.QLabel, "rich", "<b>0.75</b>"), 300)))


def test_text_can_still_be_selected(qtbot):
    top = QtWidgets.QWidget()
    qtbot.addWidget(top)
    layout = QtWidgets.QVBoxLayout(top)
    layout.addSpacing(30)  # (not under the offscreen pointer at the window's corner)
    label = make(WrappedLabel, "plain selectable", SUM)
    layout.addWidget(label)
    layout.addStretch(1)
    top.resize(420, 200)
    top.show()
    qtbot.waitExposed(top)
    assert not label._native  # painted by itself
    middle = label.rect().center().y() - label.height() // 4
    qtbot.mouseMove(label, QtCore.QPoint(2, middle))
    QtWidgets.QApplication.sendEvent(label, QtGui.QEnterEvent(QtCore.QPointF(2, middle), QtCore.QPointF(2, middle),
                                                              QtCore.QPointF(2, middle)))
    assert label._native  # the mouse is over it: a plain QLabel, selecting as ever
    qtbot.mousePress(label, Qt.MouseButton.LeftButton, pos=QtCore.QPoint(1, middle))
    qtbot.mouseMove(label, QtCore.QPoint(120, middle))
    qtbot.mouseRelease(label, Qt.MouseButton.LeftButton, pos=QtCore.QPoint(120, middle))
    assert label.hasSelectedText() and SUM.startswith(label.selectedText())
    QtWidgets.QApplication.sendEvent(label, QtCore.QEvent(QtCore.QEvent.Type.Leave))
    assert label._native  # it keeps its selection (and shows it) after the mouse leaves
    highlight = label.palette().color(QtGui.QPalette.ColorRole.Highlight).name()
    assert colour_near(pixels(label), highlight, 60).sum() > 50
    label.setText(SUM.replace("-0.60", "-0.61"))  # new words, no selection: painted by itself again
    image = pixels(label)
    assert not label._native
    assert np.array_equal(image, pixels(sized(make(QtWidgets.QLabel, "plain selectable", label.text()),
                                              label.width()))[:label.height()])


def test_not_selectable_stays_cheap_under_the_mouse(qapp):
    label = sized(make(WrappedLabel, "rich", CAPTION), 300)
    QtWidgets.QApplication.sendEvent(label, QtGui.QEnterEvent(QtCore.QPointF(2, 2), QtCore.QPointF(2, 2),
                                                              QtCore.QPointF(2, 2)))
    assert not label._native


@pytest.mark.parametrize("text", ["Go to <a href='x'>the lesson</a>", "<table><tr><td>1</td></tr></table>",
                                  "<b>open", "a <!-- note --> b", "<p style='margin: 4px'>x</p>"])
def test_other_rich_text_left_to_qlabel(qapp, text):
    label = make(WrappedLabel, "rich", text)
    qt = make(QtWidgets.QLabel, "rich", text)
    assert not label._ready()
    assert label.heightForWidth(200) == qt.heightForWidth(200)
    assert np.array_equal(pixels(sized(label, 200)), pixels(sized(qt, 200)))


def test_tool_tip_and_text_kept(qapp):
    label = make(WrappedLabel, "rich", CAPTION)
    label.setToolTip("Click a slice")
    assert label.toolTip() == "Click a slice" and label.text() == CAPTION and label.wordWrap()


def test_rich_words_and_spans():
    words, ranges = parse_rich("Key <b style='color:#B23C12'>A &amp; &lt;b&gt;</b>  (pulled\n out)<br><i>masked</i>")
    assert words == f"Key A & <b> (pulled out){LINE_BREAK}masked"
    (bold, italic) = ranges
    assert words[bold.start:bold.start + bold.length] == "A & <b>"
    assert bold.format.fontWeight() == QtGui.QFont.Weight.Bold
    assert bold.format.foreground().color().name() == "#b23c12"
    assert words[italic.start:italic.start + italic.length] == "masked" and italic.format.fontItalic()
    nested = parse_rich(BUG)[1]
    assert [r.format.foreground().color().name() for r in nested] == ["#b23c12", QUERY.lower(), "#b23c12"]
    assert all(r.format.fontWeight() == QtGui.QFont.Weight.Bold for r in nested)
    assert parse_rich("1 &lt; 2 &nbsp;x")[0] == "1 < 2 \u00a0x"
    for other in ("<a href='x'>y</a>", "<b>open", "x</b>", "<span class='c'>x</span>", "a > b",
                  "<b style='margin:0'>x</b>"):
        assert parse_rich(other) is None
