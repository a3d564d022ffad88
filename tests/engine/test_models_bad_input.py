"""Every way a model folder can be wrong gives one ModelError line that says what and where."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine import ScenarioError
from qkv_engine.models import ModelError, load_model

from .model_files import TINY_BERT, TINY_GPT2, TINY_LLAMA, copy_model, edit_config, tensors, write_tensors


def refused(path, *fragments) -> str:
    with pytest.raises(ModelError) as err:
        load_model(path)
    message = str(err.value)
    assert "\n" not in message and "Traceback" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_a_model_error_is_a_scenario_error():
    assert issubclass(ModelError, ScenarioError)


def test_a_missing_path(tmp_path):
    refused(tmp_path / "nowhere", str(tmp_path / "nowhere"), "not found")


def test_a_file_that_is_not_a_folder(tmp_path):
    f = tmp_path / "notes.txt"
    f.write_text("hello")
    refused(f, "is not a folder", "config.json and model.safetensors")


def test_picking_a_file_of_the_model_opens_its_folder(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    assert load_model(folder / "config.json").info.path == folder


def test_an_empty_folder(tmp_path):
    refused(tmp_path, str(tmp_path), "holds no model", "config.json and model.safetensors")


@pytest.mark.parametrize("pickle_name", ["pytorch_model.bin", "model.pt", "last.ckpt"])
def test_a_pickle_checkpoint_is_never_opened(tmp_path, monkeypatch, pickle_name):
    import builtins
    import io
    import pickle

    folder = copy_model(TINY_BERT, tmp_path / "m", skip=("model.safetensors",))
    (folder / pickle_name).write_bytes(b"\x80\x04cos\nsystem\n(S'echo unpickled'\ntR.")
    opened = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    def never(*args, **kwargs):
        raise AssertionError("something was unpickled")

    monkeypatch.setattr(builtins, "open", spy)
    monkeypatch.setattr(io, "open", spy)
    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, never)
    message = refused(folder, f"No model.safetensors in {folder}", pickle_name, "never opened", "can run code",
                      "Only model.safetensors is read", "save_pretrained", "safe_serialization=True")
    assert message.count(pickle_name) == 1
    assert not [f for f in opened if f.endswith(pickle_name)]


def test_several_pickles_are_listed(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m", skip=("model.safetensors",))
    for name in ("pytorch_model.bin", "training_args.bin"):
        (folder / name).write_bytes(b"x")
    refused(folder, "pytorch_model.bin, training_args.bin", "which are never opened")


def test_another_weight_format(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m", skip=("model.safetensors",))
    (folder / "tf_model.h5").write_bytes(b"x")
    refused(folder, "tf_model.h5", "does not read", "safe_serialization=True")


def test_a_config_without_weights(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m", skip=("model.safetensors",))
    refused(folder, "No model.safetensors", "weights are missing")


def test_weights_without_a_config(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m", skip=("config.json",))
    refused(folder, "No config.json in", "sizes")


@pytest.mark.parametrize("content, fragment", [
    ('{"model_type": "bert", ', "is not valid JSON"),
    ("[1, 2]", "does not describe a model"),
    ("", "is not valid JSON"),
])
def test_a_corrupt_config(tmp_path, content, fragment):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    (folder / "config.json").write_text(content, encoding="utf-8")
    refused(folder, "config.json in", fragment)


def test_a_config_that_is_not_text(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    (folder / "config.json").write_bytes(b"\xff\xfe\x00{")
    refused(folder, "not a text file")


@pytest.mark.parametrize("model_type", ["phi3", "t5", "roberta", "gemma"])
def test_an_unsupported_model_type_lists_what_is_supported(tmp_path, model_type):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    edit_config(folder, model_type=model_type)
    refused(folder, f"'{model_type}' model", "(bert", "(distilbert)", "(gpt2)", "(llama", "(mistral)", "(qwen2)")


def test_a_config_without_model_type_is_read_from_its_architectures(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    edit_config(folder, model_type=None)
    assert load_model(folder).info.family == "bert"
    edit_config(folder, architectures=["T5ForConditionalGeneration"])
    refused(folder, "has no model_type")


@pytest.mark.parametrize("change, fragment", [
    (dict(hidden_size="16"), "hidden_size must be a whole number"),
    (dict(num_attention_heads=3), "do not split into 3 heads"),
    (dict(num_hidden_layers=None), "has no num_hidden_layers"),
    (dict(hidden_act="mish"), "the activation 'mish' is not supported"),
    (dict(layer_norm_eps=-1), "layer_norm_eps must be a small positive number"),
    (dict(position_embedding_type="relative_key"), "only absolute ones"),
    (dict(is_decoder=True), "BERT decoder"),
])
def test_bad_config_values(tmp_path, change, fragment):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    edit_config(folder, **change)
    refused(folder, fragment)


def test_a_missing_tokenizer(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m", skip=("tokenizer.json", "vocab.txt"))
    refused(folder, "No tokenizer in", "tokenizer.json", "vocab.txt")
    g = copy_model(TINY_GPT2, tmp_path / "g", skip=("tokenizer.json", "merges.txt"))
    refused(g, "No tokenizer in", "vocab.json and merges.txt")


def test_a_corrupt_tokenizer(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    (folder / "tokenizer.json").write_text('{"version": "1.0", "model": 12}', encoding="utf-8")
    refused(folder, "tokenizer.json in", "cannot be read")


def test_a_truncated_safetensors_file(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    data = (folder / "model.safetensors").read_bytes()
    for cut in (4, 60, len(data) // 2, len(data) - 1):
        (folder / "model.safetensors").write_bytes(data[:cut])
        refused(folder, "model.safetensors in", "damaged or incomplete", "download it again")


@pytest.mark.parametrize("damage", ["header syntax", "header key", "header length", "offsets"])
def test_a_corrupt_safetensors_file(tmp_path, damage):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    data = bytearray((folder / "model.safetensors").read_bytes())
    if damage == "header syntax":
        data[8:9] = b"#"  # the JSON header's opening brace
    elif damage == "header key":
        data[10:20] = b"#" * 10
    elif damage == "header length":
        data[0:8] = b"\xff" * 8
    else:
        data[:] = data.replace(b'"data_offsets":[0,', b'"data_offsets":[9,', 1)
    (folder / "model.safetensors").write_bytes(bytes(data))
    refused(folder, "model.safetensors in", "damaged or incomplete")


def test_a_missing_tensor_is_named(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    t = tensors(folder)
    del t["encoder.layer.1.attention.self.key.bias"]
    write_tensors(folder, t)
    refused(folder, "has no tensor 'encoder.layer.1.attention.self.key.bias'", "does not match config.json")


def test_a_tensor_of_the_wrong_shape_is_named(tmp_path):
    folder = copy_model(TINY_GPT2, tmp_path / "m")
    t = tensors(folder)
    t["h.0.attn.c_attn.weight"] = t["h.0.attn.c_attn.weight"][:, :40]
    write_tensors(folder, t)
    refused(folder, "'h.0.attn.c_attn.weight' has shape (16, 40)", "config.json implies (16, 48)")


def test_a_config_that_does_not_match_the_weights(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    edit_config(folder, num_hidden_layers=3)
    refused(folder, "has no tensor 'encoder.layer.2.")


def test_integer_weights_are_refused(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    t = tensors(folder)
    t["embeddings.LayerNorm.bias"] = np.zeros(16, dtype=np.int32)
    write_tensors(folder, t)
    refused(folder, "has no tensor 'embeddings.LayerNorm.bias'")


def test_a_tokenizer_that_does_not_match_the_weights(tmp_path):
    folder = copy_model(TINY_BERT, tmp_path / "m")
    t = tensors(folder)
    t["embeddings.word_embeddings.weight"] = t["embeddings.word_embeddings.weight"][:10]
    write_tensors(folder, t)
    edit_config(folder, vocab_size=10)
    model = load_model(folder)
    with pytest.raises(ModelError, match="tokenizer and weights do not match"):
        model.run("the lazy dog")


@pytest.mark.parametrize("source, name", [
    (TINY_GPT2, "h.1.mlp.c_proj.weight"),  # the last layer
    (TINY_GPT2, "h.0.mlp.c_proj.weight"),  # the first: what overflows there reaches the last hidden state
    (TINY_BERT, "encoder.layer.0.output.dense.weight"),
    (TINY_BERT, "encoder.layer.0.attention.self.query.weight"),  # scores past float32: the softmax's rows
])
def test_weights_that_overflow_say_so(tmp_path, source, name):
    folder = copy_model(source, tmp_path / "m")
    t = tensors(folder)
    t[name] = np.full_like(t[name], 3e38)
    write_tensors(folder, t)
    with pytest.raises(ModelError, match="too large"):
        load_model(folder).run("the cat sat")


@pytest.mark.parametrize("layer, head", [(2, 0), (0, 2), (-1, 0), (True, 0), (0, 1.5)])
def test_a_head_outside_the_model(layer, head):
    model = load_model(TINY_BERT)
    trace = model.run("the cat")
    with pytest.raises(ModelError, match="the model has 2"):
        model.head_scenario(trace, layer, head)


def test_a_trace_of_another_model_is_refused():
    bert, gpt2 = load_model(TINY_BERT), load_model(TINY_GPT2)
    with pytest.raises(ModelError, match="another model"):
        bert.head_scenario(gpt2.run("the cat"), 0, 0)


def test_text_must_be_a_string():
    with pytest.raises(ModelError, match="text: expected a string"):
        load_model(TINY_BERT).run(None)


def test_a_model_too_large_for_the_memory_is_refused_in_one_line_with_its_size(monkeypatch):
    from qkv_engine.models import model as model_module

    def no_room(*args, **kwargs):
        raise MemoryError("Unable to allocate 3.2 GiB for an array")

    monkeypatch.setattr(model_module, "load_weights", no_room)
    with pytest.raises(ModelError) as err:
        load_model(TINY_LLAMA)
    text = str(err.value)
    assert "\n" not in text and "does not fit in this computer's free memory" in text
    assert "tiny-llama" in text and "KB" in text and "smaller model" in text


def test_a_run_the_memory_has_no_room_for_is_refused_in_one_line(monkeypatch):
    from qkv_engine.models import forward

    model = load_model(TINY_BERT)

    def no_room(*args, **kwargs):
        raise MemoryError("Unable to allocate")

    monkeypatch.setattr(forward, "run", no_room)
    with pytest.raises(ModelError) as err:
        model.run("the cat sat on the mat")
    assert "\n" not in str(err.value) and "no free memory for a run of 8 tokens" in str(err.value)
    assert "shorter sentence" in str(err.value)
