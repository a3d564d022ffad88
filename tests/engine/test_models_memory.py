"""A run's memory: what forward.run_bytes says a run keeps is what it allocates, a model whose heads'
weights for a long sentence would pass RUN_MEMORY keeps the first tokens that fit and says why, and a run
takes the memory of a trace that is gone (forward.RunBlocks), never of one still kept, whether its block is an
ordinary array or mapped in huge pages (memory.allocation; the tiny models' blocks are mapped when
memory.HUGE_BLOCK is lowered)."""
from __future__ import annotations

import gc
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

from qkv_engine.models import ModelEdits, load_model, memory
from qkv_engine.models import model as model_module
from qkv_engine.models.forward import run_bytes

from .model_files import TINY_BERT, TINY_GPT2, TINY_LLAMA, TINY_QWEN2, on_two_threads, runs_kept_to

LONG = " ".join(["the cat sat on the mat and looked at the dog"] * 30)
#: Whether this system maps large blocks in huge pages (Linux); elsewhere every block is an ordinary array.
MAPS = sys.platform.startswith("linux")


def _block(trace) -> np.ndarray:
    """The block of memory a trace's arrays are made in (memory.allocation)."""
    block = trace.weights.base
    while isinstance(block.base, np.ndarray):
        block = block.base
    return block


def _kept_bytes(block: np.ndarray) -> int:
    """The bytes a block has room for from its aligned start, and a line: what run_bytes counts."""
    return memory.room(block) * block.itemsize + memory.LINE_BYTES


@pytest.fixture(params=["ordinary", "mapped"])
def blocks(request, monkeypatch):
    """Runs' blocks as ordinary arrays (the tiny models' are small), or mapped in huge pages as large ones are."""
    if request.param == "mapped":
        monkeypatch.setattr(memory, "HUGE_BLOCK", 0)
    return request.param


def _address(trace) -> int:
    return _block(trace).__array_interface__["data"][0]


def _arrays(trace) -> dict:
    return {name: np.array(getattr(trace, name)) for name in ("attn_input", "q", "k", "v", "context", "weights",
                                                                "hidden")}


@pytest.mark.parametrize("source", [TINY_BERT, TINY_GPT2, TINY_LLAMA, TINY_QWEN2],
                         ids=["bert", "gpt2", "llama", "qwen2"])
@pytest.mark.parametrize("words", [3, 20])
def test_run_bytes_is_the_memory_a_run_keeps(source, words, blocks):
    model = load_model(source)
    trace = model.run(" ".join(["the cat sat on the mat"] * words)[: 4 * model.info.max_tokens])
    assert _kept_bytes(_block(trace)) == run_bytes(model.arch, trace.n)
    assert memory.is_mapped(_block(trace)) == (blocks == "mapped" and MAPS)
    assert trace.weights.ctypes.data % 64 == 0  # on a line of the processor's cache
    assert run_bytes(model.arch, trace.n + 1) > run_bytes(model.arch, trace.n)


def test_a_model_keeps_the_tokens_that_fit_in_run_memory_and_says_why(monkeypatch):
    runs_kept_to(TINY_LLAMA, 40, monkeypatch)
    model = load_model(TINY_LLAMA)
    assert (model.info.token_limit, model.info.max_tokens) == (40, 128)
    assert "memory" in model.info.limit_reason and "128" in model.info.limit_reason
    trace = model.run(LONG)
    assert trace.n == 40 and trace.dropped > 0
    whole = load_model(TINY_LLAMA).run(LONG)  # the same first 40 tokens as a run without the limit
    np.testing.assert_array_equal(trace.weights, whole.weights[:, :, :40, :40])


def test_the_token_limit_is_the_most_tokens_whose_run_fits():
    arch = load_model(TINY_QWEN2).arch
    for n in (1, 17, 90):
        assert model_module.token_limit(arch, run_bytes(arch, n)) == n
        assert model_module.token_limit(arch, run_bytes(arch, n) - 1) == max(1, n - 1)
    assert model_module.token_limit(arch, 1 << 40) == arch.max_tokens


def test_models_of_the_usual_sizes_keep_their_own_limit_or_a_few_hundred_tokens():
    """The real shapes: BERT-base and GPT-2 keep their max_tokens; SmolLM2-135M (30 x 9 heads, 8192 tokens)
    keeps 772 (every head's weights for 8192 would be 72 GB)."""
    from dataclasses import replace
    base = load_model(TINY_BERT).arch
    bert = replace(base, n_layers=12, n_heads=12, d_model=768, d_ff=3072, max_tokens=512)
    gpt2 = replace(load_model(TINY_GPT2).arch, n_layers=12, n_heads=12, d_model=768, d_ff=3072, max_tokens=1024)
    smol = replace(load_model(TINY_LLAMA).arch, n_layers=30, n_heads=9, n_kv_heads=3, head_dim=64, d_model=576,
                   d_ff=1536, max_tokens=8192)
    assert model_module.token_limit(bert) == 512 and model_module.token_limit(gpt2) == 1024
    assert model_module.token_limit(smol) == 772
    assert run_bytes(smol, 8192) > 70e9


@pytest.mark.parametrize("source", [TINY_BERT, TINY_GPT2, TINY_LLAMA, TINY_QWEN2],
                         ids=["bert", "gpt2", "llama", "qwen2"])
def test_later_runs_never_write_into_a_trace_that_is_kept_or_an_array_taken_from_one(source, blocks):
    model = load_model(source)
    kept = model.run("the cat sat on the mat")
    before = _arrays(kept)
    knock = ModelEdits(knocked_out={(0, 0)})
    model.run("the cat sat on the mat", knock, reuse=kept)  # as many tokens: memory of the same size
    taken = model.run("the dog ran").weights[0]  # its trace is gone, this one array of it is not
    taken_before = taken.copy()
    for text, edits in [("the dog ran", knock), ("the cat sat on the mat", ModelEdits()), ("the dog ran", ModelEdits()),
                        ("a bird sang", knock), ("the cat sat on a mat", knock)]:
        model.run(text, edits, reuse=kept)
    for name, numbers in _arrays(kept).items():
        np.testing.assert_array_equal(numbers, before[name], err_msg=name)
    np.testing.assert_array_equal(taken, taken_before)
    # and the reused memory gives the same numbers as new memory
    again = model.run("the cat sat on the mat", knock)
    fresh = load_model(source).run("the cat sat on the mat", knock)
    for name, numbers in _arrays(again).items():
        np.testing.assert_array_equal(numbers, _arrays(fresh)[name], err_msg=name)


def test_a_run_takes_the_memory_of_a_trace_that_is_gone_and_not_of_one_that_is_kept(blocks):
    model = load_model(TINY_BERT)
    first = model.run("the cat sat on the mat")
    second = model.run("the cat sat on the mat")  # the first is kept: new memory
    assert _address(second) != _address(first)
    gone = _address(first)
    del first
    gc.collect()
    third = model.run("the cat sat on the mat", ModelEdits(knocked_out={(1, 0)}), reuse=second)  # a what-if edit
    assert _address(third) == gone
    del third
    shorter = model.run("the cat sat on the")  # a little shorter: the same memory again
    assert _address(shorter) == gone


def test_a_short_run_does_not_keep_a_long_run_s_memory(blocks):
    model = load_model(TINY_BERT)
    long = model.run(" ".join(["the cat sat on the mat"] * 6))
    block = weakref.ref(_block(long))
    del long
    gc.collect()
    short = model.run("the cat")
    assert _kept_bytes(_block(short)) == run_bytes(model.arch, short.n)
    assert block() is None  # given back, not kept for later


def test_runs_on_two_threads_at_once_each_get_their_own_memory(blocks):
    model = load_model(TINY_GPT2)
    texts = ["the cat sat on the mat", "the dog ran", "a bird sang in the tree"]
    want = {text: _arrays(load_model(TINY_GPT2).run(text)) for text in texts}
    wrong = []

    def work(offset):
        for i in range(30):
            text = texts[(i + offset) % len(texts)]
            trace = model.run(text)
            got = _arrays(trace)
            wrong.extend(f"{text}: {name}" for name in got if not np.array_equal(got[name], want[text][name]))

    on_two_threads(work)
    assert wrong == []


# ----- memory.allocation: huge pages for large blocks ---------------------------------------------------------
def _smaps_entry(address: int) -> dict:
    """The fields of /proc/self/smaps for the mapping that holds ``address``."""
    found, fields = False, {}
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and ":" not in head:
            if found:
                break
            low, high = (int(part, 16) for part in head.split("-"))
            found = low <= address < high
        elif found:
            name, _, value = line.partition(":")
            fields[name] = value.split()[0] if value.split() else ""
    return fields


@pytest.mark.skipif(not MAPS, reason="huge pages are asked for on Linux only")
def test_a_large_block_is_fresh_memory_asked_for_in_huge_pages_from_a_2_mb_boundary():
    count = memory.HUGE_BLOCK // 4
    raw = memory.allocation(count, np.float32)
    assert memory.is_mapped(raw) and memory.room(raw) >= count
    block = memory.aligned_start(raw, count)
    assert block.size == count and block.ctypes.data % memory.HUGE_PAGE == 0 and block.base is raw
    block[:] = 1.5  # writable, every number of it
    assert float(block.sum(dtype=np.float64)) == 1.5 * count
    setting = Path("/sys/kernel/mm/transparent_hugepage/enabled")
    if setting.exists() and "[never]" not in setting.read_text():
        assert _smaps_entry(block.ctypes.data).get("THPeligible") == "1"  # the system may give it huge pages
    mapping = weakref.ref(raw.base.obj)
    view = block[10:20]
    del raw, block
    gc.collect()
    assert mapping() is not None  # a view of it keeps it
    del view
    gc.collect()
    assert mapping() is None  # and it is given back when nothing refers to it


def test_a_small_block_or_one_where_mapping_is_not_offered_is_an_ordinary_array(monkeypatch):
    for count in (1000, memory.HUGE_BLOCK // 4):
        if count >= memory.HUGE_BLOCK // 4:
            monkeypatch.setattr(memory, "_CAN_MAP", False)  # Windows, macOS
        raw = memory.allocation(count, np.float32)
        assert not memory.is_mapped(raw) and raw.flags.owndata and memory.room(raw) == count
        block = memory.aligned_start(raw, count)
        assert block.size == count and block.ctypes.data % memory.LINE_BYTES == 0


def test_a_models_joined_weights_share_one_block_and_give_the_same_numbers_mapped(monkeypatch):
    ordinary = load_model(TINY_BERT)
    monkeypatch.setattr(memory, "HUGE_BLOCK", 0)
    mapped = load_model(TINY_BERT)
    bases = {id(a.base) for layer in mapped._weights.layers for a in layer.joined.values()}
    assert len(bases) == 1
    assert memory.is_mapped(mapped._weights.layers[0].joined["qkv"].base) == MAPS
    for name, numbers in _arrays(mapped.run("the cat sat on the mat")).items():
        np.testing.assert_array_equal(numbers, _arrays(ordinary.run("the cat sat on the mat"))[name], err_msg=name)


def test_a_mapping_the_system_refuses_falls_back_to_an_ordinary_array(monkeypatch):
    def refused(*args, **kwargs):
        raise OSError(12, "Cannot allocate memory")

    monkeypatch.setattr(memory.mmap, "mmap", refused)
    raw = memory.allocation(memory.HUGE_BLOCK // 4, np.float32)
    assert not memory.is_mapped(raw) and memory.room(raw) == memory.HUGE_BLOCK // 4
