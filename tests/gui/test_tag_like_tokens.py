"""A token that looks like an HTML tag is shown as written. Llama's first token is ``<s>``: a Qt label or tool tip
left to guess takes a text with ``<s>`` near its start for rich text, strikes the rest through and hides the token.
Every panel, and the editors that name tokens, is checked with tiny-llama open, wide and narrow (a narrow panel
moves some words into tool tips)."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtGui, QtWidgets

from qkv_engine import load_model
from qkv_gui.editors.inputs_dock import InputsWidget
from qkv_gui.editors.weight_grids import WeightGridsWidget
from qkv_gui.labels.changed_text import plain_tip
from qkv_gui.panels import catalog

from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[1] / "data"
BOS = "<s>"
TEXT = "the cat sat on the mat"
Qt = QtGui.Qt
WIDGETS = [(entry.short_name, entry.cls) for entry in (*catalog.STEPS, *catalog.EXPERIMENTS, *catalog.MODEL_PANELS)]
WIDGETS += [("weight-grids", WeightGridsWidget), ("inputs", InputsWidget)]


def as_shown(text: str, rich: bool) -> str:
    """The words Qt shows for ``text``, read as rich text or as plain."""
    if not rich:
        return text
    document = QtGui.QTextDocument()
    document.setHtml(text)
    return document.toPlainText().replace("\u2028", "\n")


def is_rich(label: QtWidgets.QLabel) -> bool:
    kind = label.textFormat()
    return kind == Qt.TextFormat.RichText or (kind == Qt.TextFormat.AutoText and Qt.mightBeRichText(label.text()))


def naming_bos(widget: QtWidgets.QWidget) -> tuple[list, list]:
    """(what Qt shows, where BOS was hidden) for each text and tool tip of the widget and its children that names
    BOS (as written or as HTML's &lt;s&gt;)."""
    shown, hidden = [], []
    for w in (widget, *widget.findChildren(QtWidgets.QWidget)):
        texts = [("text", w.text(), is_rich(w))] if isinstance(w, QtWidgets.QLabel) else []
        if w.toolTip():
            texts.append(("tool tip", w.toolTip(), Qt.mightBeRichText(w.toolTip())))
        for what, text, rich in texts:
            if BOS not in text.replace("&lt;", "<").replace("&gt;", ">"):
                continue
            words = as_shown(text, rich)
            shown.append(words)
            if BOS not in words:
                hidden.append(f"{w.objectName() or type(w).__name__}'s {what}: {text[:90]!r}")
    return shown, hidden


@pytest.fixture
def llama_session(make_session):
    session = make_session()
    session.runner.sync = True
    session.open_model(load_model(DATA / "tiny-llama"), text=TEXT)
    session.select(query=0, key=0)
    assert session.model_trace.tokens[0] == BOS
    return session


@pytest.mark.parametrize("name, cls", WIDGETS, ids=[name for name, _ in WIDGETS])
def test_every_text_naming_the_token_shows_it(name, cls, llama_session, make_panel):
    panel = make_panel(cls, session=llama_session, size=(640, 480))
    settle()
    _, hidden = naming_bos(panel)
    panel.resize(360, 300)
    settle()
    hidden += naming_bos(panel)[1]
    assert not hidden


@pytest.mark.parametrize("name, object_name, start", [
    ("prediction", "predictionNote", f"After '{BOS}' (token 1 of 9)"),
    ("heatmap", "heatmapInfo", f"Selected: query 1 '{BOS}' → key 1 '{BOS}'"),
    ("rollout", "rolloutInfo", f"Selected: '{BOS}' ← '{BOS}'"),
    ("values", "valuesWorked", "out1 = "),
])
def test_the_lines_under_the_pictures_name_it(name, object_name, start, llama_session, make_panel):
    cls = dict(WIDGETS)[name]
    panel = make_panel(cls, session=llama_session, size=(640, 480))
    settle()
    label = panel.findChild(QtWidgets.QLabel, object_name)
    words = as_shown(label.text(), is_rich(label))
    assert words.startswith(start)
    assert f"'{BOS}'" in words


def test_the_largest_dials_line_names_it(llama_session, make_panel):
    grids = make_panel(WeightGridsWidget, session=llama_session, size=(420, 700))
    settle()
    label = grids.jumpBar.largestLabel
    assert as_shown(label.text(), is_rich(label)) == f"'{BOS}' is largest at"


def test_a_tool_tip_is_plain_text():
    tip = f"Selected: query 1 '{BOS}' → key 1 '{BOS}'\nweight = 1.0000"
    assert Qt.mightBeRichText(tip)  # what Qt would otherwise do with it
    made = plain_tip(tip)
    assert as_shown(made, Qt.mightBeRichText(made)) == tip
    ordinary = "q and k are turned by their positions.\nPair 4 turns 0.001 rad per position."
    assert plain_tip(ordinary) == ordinary  # a text Qt shows as written anyway is left as it is
    assert plain_tip("") == ""
