"""The Trained model box names a model's kind as people write it (Qwen2, not the engine's family "llama") and,
in its name's tool tip, how a grouped-query model's heads share key/value heads."""
from __future__ import annotations

from pathlib import Path

import pytest

from qkv_engine.models import load_model
from qkv_gui.editors.model_box import ModelBox

from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.mark.parametrize("name, kind, sizes, shared", [
    ("tiny-bert", "BERT", "2 layers × 2 heads, d_model 16", None),
    ("tiny-gpt2", "GPT-2", "2 layers × 2 heads, d_model 16", None),
    ("tiny-llama", "Llama", "2 layers × 4 heads, d_model 32", "4 query heads, 2 key/value heads: each key/value head serves 2 query heads"),
    ("tiny-qwen2", "Qwen2", "2 layers × 4 heads, d_model 32", "4 query heads, 1 key/value head: it serves all 4 query heads"),
])
def test_the_box_names_the_kind_and_the_shared_heads(name, kind, sizes, shared, make_panel, make_session):
    session = make_session()
    session.open_model(load_model(DATA / name), text="the cat sat")
    box = make_panel(ModelBox, session=session, size=(360, 420))
    settle()
    assert box.sizesLabel.text() == f"{kind}, {sizes}, d_k 8"
    tip = box.nameLabel.toolTip()
    assert tip.startswith(f"{name} ({kind}, {sizes}, d_k 8")
    if shared is None:
        assert "key/value" not in tip
    else:
        assert f"; {shared})" in tip
