"""A run's memory: what forward.run_bytes says a run keeps is what it allocates, and a model whose heads'
weights for a long sentence would pass RUN_MEMORY keeps the first tokens that fit and says why."""
from __future__ import annotations

import numpy as np
import pytest

from qkv_engine.models import load_model
from qkv_engine.models import model as model_module
from qkv_engine.models.forward import run_bytes

from .model_files import TINY_BERT, TINY_GPT2, TINY_LLAMA, TINY_QWEN2, runs_kept_to

LONG = " ".join(["the cat sat on the mat and looked at the dog"] * 30)


@pytest.mark.parametrize("source", [TINY_BERT, TINY_GPT2, TINY_LLAMA, TINY_QWEN2],
                         ids=["bert", "gpt2", "llama", "qwen2"])
@pytest.mark.parametrize("words", [3, 20])
def test_run_bytes_is_the_memory_a_run_keeps(source, words):
    model = load_model(source)
    trace = model.run(" ".join(["the cat sat on the mat"] * words)[: 4 * model.info.max_tokens])
    block = trace.weights.base
    while block.base is not None:
        block = block.base
    assert block.nbytes == run_bytes(model.arch, trace.n)
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
