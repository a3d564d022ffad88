"""Figures of a trained model's head say which model, layer and head they show: in the files' own
metadata (SVG title, PNG text, PDF title) and on the deck's title page and page titles."""
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6 import QtGui

from qkv_engine import presets
from qkv_engine.models import load_model
from qkv_gui.export import figures as export
from qkv_gui.panels import catalog
from qkv_gui.state.session import Session

from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"
SVG_NS = "{http://www.w3.org/2000/svg}"


def pdf_title(data: bytes) -> str:
    """The /Title of a PDF's information dictionary: a literal string (escapes undone), UTF-16 after a
    byte-order mark, as Qt writes it."""
    start = data.index(b"/Title (") + len(b"/Title (")
    out, depth, i = bytearray(), 0, start
    escapes = {ord("n"): 10, ord("r"): 13, ord("t"): 9, ord("b"): 8, ord("f"): 12}
    while True:
        c = data[i]
        if c == ord("\\"):
            nxt = data[i + 1]
            out.append(escapes.get(nxt, nxt))
            i += 2
            continue
        if c == ord("("):
            depth += 1
        elif c == ord(")"):
            if depth == 0:
                break
            depth -= 1
        out.append(c)
        i += 1
    raw = bytes(out)
    return raw[2:].decode("utf-16-be") if raw.startswith(b"\xfe\xff") else raw.decode("latin-1")


@pytest.fixture
def model_session(qapp):
    from qkv_gui.look import style

    style.configure_pyqtgraph()
    s = Session(presets.load(presets.DEFAULT))
    model = load_model(DATA / "tiny-bert")
    s.open_model(model, text="the cat sat")
    s.select_model_head(1, 0)  # layer 2, head 1
    settle()
    yield s, model.info.name
    s.runner.shutdown()
    s.deleteLater()


def test_figure_files_name_the_model_layer_and_head(model_session):
    session, name = model_session
    assert name
    files = export.render_formats(export.panel_classes()["heatmap"], session, ["png", "svg", "pdf"],
                                  export.ExportOptions(width=480))
    root = ET.fromstring(files["svg"])
    title = root.find(f"{SVG_NS}title").text
    desc = root.find(f"{SVG_NS}desc").text
    assert name in title and "layer 2, head 1" in title
    assert name in desc and "the cat sat" in desc
    png = QtGui.QImage.fromData(files["png"], "PNG")
    assert name in png.text("Title") and "layer 2, head 1" in png.text("Title")
    assert name in pdf_title(files["pdf"]) and "layer 2, head 1" in pdf_title(files["pdf"])


def test_a_token_that_is_a_control_character_exports_as_svg(qapp):
    """tiny-llama's guesses include byte 0x01: its picture (U+2401) is written, and the file is XML every reader
    takes (Qt's SVG writer copies a control character as it is, which XML does not allow)."""
    from qkv_gui.look import style

    style.configure_pyqtgraph()
    s = Session(presets.load(presets.DEFAULT))
    s.open_model(load_model(DATA / "tiny-llama"), text="the cat sat on the mat")
    s.select(query=0)  # the guesses after '<s>'
    settle()
    try:
        data = export.render_panel(catalog.PREDICTION.cls, s, "svg", export.ExportOptions(width=480))
        words = "".join(ET.fromstring(data).itertext())
        assert "\u2401" in words and "<s>" in words
    finally:
        s.runner.shutdown()
        s.deleteLater()


def test_a_hand_made_figure_names_no_model(qapp):
    s = Session(presets.load("seed-the-cat-sat"))
    files = export.render_formats(export.panel_classes()["softmax"], s, ["svg"], export.ExportOptions(width=480))
    title = ET.fromstring(files["svg"]).find(f"{SVG_NS}title").text
    assert title == f"{export.panel_classes()['softmax'].title} \u2014 QKV Visualizer"
    assert export.model_line(s) is None
    s.deleteLater()


def test_the_deck_names_the_model_on_its_title_page_and_pages(model_session, monkeypatch):
    session, name = model_session
    seen = {}
    real = export._paint_title_page

    def recording(painter, result, selection, options, titles, preset_title, model=None, source=None):
        seen.update(titles=titles, model=model, source=source)
        return real(painter, result, selection, options, titles, preset_title, model, source)

    monkeypatch.setattr(export, "_paint_title_page", recording)
    data = export.deck_bytes(session, export.ExportOptions(width=480), names=["softmax", "heatmap"],
                             preset_title="not shown with a model")
    assert seen["model"] == f"{name} \u00b7 layer 2, head 1"
    assert (seen["source"].layer, seen["source"].head) == (1, 0)  # the settings name the model, no seed
    classes = export.panel_classes()
    assert seen["titles"] == [f"{classes[n].title} \u00b7 layer 2, head 1" for n in ("softmax", "heatmap")]
    assert name in pdf_title(data)
