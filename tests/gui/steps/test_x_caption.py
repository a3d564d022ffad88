"""With a Llama-family model open, the token table says that x is the RMSNorm output entering the layer shown;
with BERT or the hand-made example it says nothing of the kind."""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore

from qkv_engine.models import load_model
from qkv_gui.editors.inputs_dock import TokenTableWidget
from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"


def _open(session, name):
    session.open_model(load_model(DATA / name), text="the cat sat")
    for _ in range(100):
        session.runner.wait()
        settle()
        if not session.runner.busy:
            break


def test_llama_and_qwen2_tables_say_x_is_after_rmsnorm(make_panel):
    table = make_panel(TokenTableWidget, size=(360, 400))
    s = table.session
    assert table.xCaption.isHidden()
    for name in ("tiny-llama", "tiny-qwen2"):
        _open(s, name)
        s.select_model_head(0, 0)
        settle()
        assert table.xCaption.isVisibleTo(table)
        assert table.xCaption.text() == ("x = the token's numbers after RMSNorm (input_layernorm) entering "
                                         "layer 1")
        s.select_model_head(1, 1)
        settle()
        assert table.xCaption.text().endswith("entering layer 2")
        tip = table.model.headerData(1, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.ToolTipRole)
        assert "after RMSNorm (input_layernorm) entering layer 2" in tip
    _open(s, "tiny-bert")
    settle()
    assert table.xCaption.isHidden()
    s.close_model()
    settle()
    assert table.xCaption.isHidden()
