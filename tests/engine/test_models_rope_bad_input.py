"""Llama-family folders this app cannot run are refused in one line that names the problem."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine.models import ModelError, load_model

from .model_files import TINY_LLAMA, TINY_QWEN2, copy_model, edit_config, tensors, write_tensors


def refused(call, *fragments) -> str:
    with pytest.raises(ModelError) as err:
        call()
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


@pytest.mark.parametrize("rope, fragment", [
    ({"rope_parameters": {"rope_type": "yarn", "rope_theta": 1e4, "factor": 4.0}}, "'yarn'"),
    ({"rope_parameters": None, "rope_scaling": {"type": "dynamic", "factor": 2.0}}, "'dynamic'"),
    ({"rope_parameters": {"rope_type": "longrope", "rope_theta": 1e4}}, "'longrope'"),
])
def test_an_unknown_rope_type_is_refused_naming_it(tmp_path, rope, fragment):
    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    edit_config(folder, **rope)
    refused(lambda: load_model(folder), fragment, "RoPE")


def test_the_older_config_layout_gives_the_same_model(tmp_path):
    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    edit_config(folder, rope_parameters=None, rope_theta=10000.0, rope_scaling=None)
    np.testing.assert_array_equal(load_model(folder).run("The cat").logits, load_model(TINY_LLAMA).run("The cat").logits)
    edit_config(folder, rope_theta=500.0)  # and θ is read from it
    assert load_model(folder).info.rope_theta == 500.0


def test_mistral_runs_while_its_sliding_window_does_not_apply(tmp_path):
    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    edit_config(folder, model_type="mistral", sliding_window=6)
    model = load_model(folder)
    assert model.info.model_type == "mistral"
    short = model.run("The cat sat")  # <s> The c at sat: 5 tokens
    np.testing.assert_array_equal(short.logits, load_model(TINY_LLAMA).run("The cat sat").logits)
    refused(lambda: model.run("The cat sat on the mat."), "sliding_window", "6", "9")
    edit_config(folder, sliding_window=None)  # Mistral v0.2 and later: no window
    assert load_model(folder).run("The cat sat on the mat.").n == 9


def test_qwen2_refuses_a_sliding_window_only_when_it_is_switched_on(tmp_path):
    folder = copy_model(TINY_QWEN2, tmp_path / "m")
    edit_config(folder, sliding_window=3, use_sliding_window=False)
    assert load_model(folder).run("The cat sat on the mat.").n == 8
    edit_config(folder, use_sliding_window=True)
    refused(lambda: load_model(folder).run("The cat sat on the mat."), "sliding_window")


@pytest.mark.parametrize("change, fragment", [
    (dict(num_key_value_heads=3), "4 query heads do not split evenly into 3 key/value heads"),
    (dict(num_attention_heads=6, num_key_value_heads=2, head_dim=None), "32 numbers per token do not split evenly into 6"),
    (dict(num_key_value_heads=0), "num_key_value_heads must be a whole number"),
    (dict(hidden_act="gelu"), "the activation 'gelu'"),
    (dict(rms_norm_eps=2), "rms_norm_eps"),
])
def test_sizes_that_do_not_fit_are_refused(tmp_path, change, fragment):
    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    edit_config(folder, **change)
    refused(lambda: load_model(folder), fragment)


def test_a_head_dim_that_does_not_match_the_tensors_is_named(tmp_path):
    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    edit_config(folder, head_dim=16)
    refused(lambda: load_model(folder), "q_proj.weight", "shape")


def test_a_missing_bias_of_qwen2_is_named(tmp_path):
    folder = copy_model(TINY_QWEN2, tmp_path / "m")
    data = tensors(folder)
    del data["model.layers.0.self_attn.v_proj.bias"]
    write_tensors(folder, data)
    refused(lambda: load_model(folder), "model.layers.0.self_attn.v_proj.bias")


@pytest.mark.parametrize("content", ["{not json", '{"model": {"type": "Nonsense"}}', ""])
def test_a_tokenizer_file_that_does_not_parse(tmp_path, content):
    folder = copy_model(TINY_LLAMA, tmp_path / "m")
    (folder / "tokenizer.json").write_text(content, encoding="utf-8")
    refused(lambda: load_model(folder), "tokenizer.json", "cannot be read")


def test_a_llama_folder_without_tokenizer_json(tmp_path):
    folder = copy_model(TINY_LLAMA, tmp_path / "m", skip=("tokenizer.json",))
    refused(lambda: load_model(folder), "No tokenizer", "tokenizer.json")
