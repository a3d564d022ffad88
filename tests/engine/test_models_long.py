"""A sentence of more than 512 tokens through BERT and GPT-2: the attention is then worked out a few rows of one
head at a time, and every product is still the turned-around one of joined weights and bias. Checked against
the plain float64 forward pass (model_reference.py), with a knock-out and a bias edit on the way."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine.models import ModelEdits, load_model

from .model_files import TINY, copy_model, edit_config, tensors, write_tensors
from .model_reference import reference_forward

POSITIONS = 700


def long_model(family: str, folder):
    """The tiny model with a position table of POSITIONS rows (its own first rows, then small random ones)."""
    copy_model(TINY[family], folder)
    t = tensors(folder)
    name = "wpe.weight" if family == "gpt2" else "embeddings.position_embeddings.weight"
    table = t[name]
    more = np.random.default_rng(5).standard_normal((POSITIONS - len(table), table.shape[1])) * float(table.std())
    t[name] = np.concatenate([table, more.astype(table.dtype)])
    write_tensors(folder, t)
    edit_config(folder, **({"n_positions": POSITIONS} if family == "gpt2" else {"max_position_embeddings": POSITIONS}))
    return load_model(folder)


@pytest.mark.parametrize("family", ["bert", "gpt2"])
def test_a_sentence_of_more_than_512_tokens_matches_the_plain_forward_pass(tmp_path, family):
    model = long_model(family, tmp_path / "m")
    text = " ".join(["the cat sat on the mat and the dog ran over the hill ."] * 60)
    plain = model.run(text)
    assert 512 < len(plain.ids) <= POSITIONS
    ref = reference_forward(tmp_path / "m", plain.ids)
    for name in ("hidden", "weights", "q", "k", "v", "context"):
        np.testing.assert_allclose(getattr(plain, name), ref[name], atol=1e-4, rtol=0, err_msg=name)

    bias = float(model.head_weights(1, 0)["b_q"][2]) + 0.8
    edits = ModelEdits().with_knockout(0, 1, True).with_weight(1, 0, "b_q", 0, 2, bias)
    trace = model.run(text, edits, reuse=plain)
    t = tensors(tmp_path / "m")
    q_bias = "h.1.attn.c_attn.bias" if family == "gpt2" else "encoder.layer.1.attention.self.query.bias"
    t[q_bias] = t[q_bias].copy()
    t[q_bias][2] = bias  # query head 0, its column 2
    ref = reference_forward(tmp_path / "m", trace.ids, knocked={(0, 1)}, tensors=t)
    for name in ("hidden", "weights", "q", "context"):
        np.testing.assert_allclose(getattr(trace, name), ref[name], atol=1e-4, rtol=0, err_msg=name)
    assert not trace.context[0, 1].any()
    knocked_only = model.run(text, ModelEdits().with_knockout(0, 1, True))
    np.testing.assert_allclose(trace.q[1, 0, :, 2] - knocked_only.q[1, 0, :, 2], 0.8, atol=1e-5)
