"""The real all-MiniLM-L6-v2 checkpoint, when it is on this computer (QKV_MINILM names its folder).

Skipped otherwise: the project's tests never depend on a download. tests/data/minilm-bank.npz holds
the transformers library's attention weights and hidden states for one sentence.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from qkv_engine import compute
from qkv_engine.models import load_model

from .model_files import DATA

CANDIDATES = [os.environ.get("QKV_MINILM", ""), "/work/models/all-MiniLM-L6-v2"]
FOLDER = next((Path(p) for p in CANDIDATES if p and (Path(p) / "model.safetensors").is_file()), None)

pytestmark = pytest.mark.skipif(FOLDER is None, reason="the all-MiniLM-L6-v2 checkpoint is not on this computer "
                                                       "(set QKV_MINILM to its folder)")


@pytest.fixture(scope="module")
def minilm():
    return load_model(FOLDER)


def test_minilm_matches_the_library(minilm):
    with np.load(DATA / "minilm-bank.npz", allow_pickle=False) as ref:
        trace = minilm.run(str(ref["text"]))
        assert trace.tokens == tuple(str(t) for t in ref["tokens"])
        np.testing.assert_allclose(trace.weights, ref["attn"], atol=1e-4, rtol=0)
        np.testing.assert_allclose(trace.hidden, ref["hidden"], atol=1e-4, rtol=0)
    info = minilm.info
    assert info.name == FOLDER.name  # not the model it was trained from (its config says MiniLM-L6-H384-uncased)
    assert (info.family, info.n_layers, info.n_heads, info.d_model, info.d_head, info.max_tokens) == \
        ("bert", 6, 12, 384, 32, 512)


def test_minilm_is_not_padded_to_128_tokens(minilm):
    # Its tokenizer.json pads every sentence to 128 tokens; the app switches that off.
    trace = minilm.run("The cat sat.")
    assert trace.tokens == ("[CLS]", "the", "cat", "sat", ".", "[SEP]")


def test_some_minilm_head_links_it_to_the_animal(minilm):
    trace = minilm.run("The animal didn't cross the street because it was too tired")
    it, animal = trace.tokens.index("it"), trace.tokens.index("animal")
    best = trace.weights[:, :, it, animal].max()
    assert best > 0.5  # a trained head looks from 'it' to 'animal'
    layer, head = np.unravel_index(np.argmax(trace.weights[:, :, it, animal]), trace.weights.shape[:2])
    r = compute(minilm.head_scenario(trace, int(layer), int(head)))
    assert r.weights[it, animal] == pytest.approx(float(best), abs=1e-5)
