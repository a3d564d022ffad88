"""The heatmap's mask helpers against cell-by-cell loops: runs cover exactly the masked cells,
open keys are counted per row, and the row notes say what the weights do."""
from __future__ import annotations

import numpy as np

from qkv_engine import Scenario, compute
from qkv_engine.attention import MASK_BLOCKED, MASK_CAUSAL, MASK_OPEN, MASK_PADDING
from qkv_engine.mask_view import mask_runs, open_keys, reasons_present, row_note


def scenario(n, m=None, seed=0, **masks):
    rng = np.random.default_rng(seed)
    kw = dict(tokens=tuple(f"t{i}" for i in range(n)), x=rng.normal(size=(n, 3)), w_q=rng.normal(size=(3, 2)),
              w_k=rng.normal(size=(3, 2)), w_v=rng.normal(size=(3, 2)))
    if m is not None:
        kw.update(source_tokens=tuple(f"s{j}" for j in range(m)), source_x=rng.normal(size=(m, 3)))
    return Scenario(**kw, **masks)


def cells_of(runs):
    return {(int(i), j) for i, a, b in runs for j in range(int(a), int(b))}


def test_runs_cover_exactly_the_masked_cells():
    rng = np.random.default_rng(7)
    for _ in range(40):
        n, m = int(rng.integers(1, 9)), int(rng.integers(1, 9))
        why = rng.choice([MASK_OPEN, MASK_CAUSAL, MASK_PADDING, MASK_BLOCKED], size=(n, m), p=[0.5, 0.2, 0.15, 0.15])
        why = why.astype(np.int8)
        for reason in (None, MASK_CAUSAL, MASK_PADDING, MASK_BLOCKED):
            runs = mask_runs(why, reason)
            expected = {(i, j) for i in range(n) for j in range(m)
                        if (why[i, j] != MASK_OPEN if reason is None else why[i, j] == reason)}
            assert cells_of(runs) == expected
            # maximal: no two runs of one row touch, and each covers at least one cell
            assert all(b > a for _, a, b in runs)
            for (i1, _, b1), (i2, a2, _) in zip(runs[:-1], runs[1:]):
                assert i1 < i2 or b1 < a2


def test_runs_of_an_empty_or_open_grid():
    assert mask_runs(np.zeros((0, 0), np.int8)).shape == (0, 3)
    assert mask_runs(np.zeros((3, 0), np.int8)).shape == (0, 3)
    assert mask_runs(np.zeros((4, 5), np.int8)).shape == (0, 3)
    full = np.full((2, 3), MASK_BLOCKED, np.int8)
    assert mask_runs(full).tolist() == [[0, 0, 3], [1, 0, 3]]


def test_open_keys_and_reasons():
    s = scenario(4, causal=True, padding=(3,), blocked=((2, 0),))
    r = compute(s)
    loop = [sum(1 for j in range(4) if j <= i and j != 3 and (i, j) != (2, 0)) for i in range(4)]
    assert open_keys(r).tolist() == loop == [1, 2, 2, 3]
    assert reasons_present(r) == (MASK_CAUSAL, MASK_PADDING, MASK_BLOCKED)
    assert reasons_present(compute(scenario(3))) == ()
    # cross-attention: causal is ignored, rows are queries, columns the source keys
    rc = compute(scenario(2, 5, causal=True, padding=(0, 4)))
    assert open_keys(rc).tolist() == [3, 3]
    assert reasons_present(rc) == (MASK_PADDING,)


def test_row_notes():
    r = compute(scenario(3, blocked=((0, 1),) + tuple((2, j) for j in range(3)), padding=()))
    assert row_note(r, 0) == "2 of 3 keys are open, and their weights add up to 1."
    assert np.isclose(r.weights[0].sum(), 1.0)
    assert row_note(r, 1) == "All 3 keys are open, and their weights add up to 1."
    assert row_note(r, 2).startswith("No key is left")
    assert np.all(r.weights[2] == 0) and np.all(r.output[2] == 0)
    r1 = compute(scenario(3, blocked=((1, 0), (1, 2))))
    assert row_note(r1, 1) == "1 of 3 keys is open, so it gets all the weight: 1."
    assert r1.weights[1, 1] == 1.0
    assert row_note(compute(scenario(1)), 0) == "The only key is open, so it gets all the weight: 1."
    rcol = compute(scenario(3, softmax_over="queries", blocked=((0, 0),)))
    assert "need not add up to 1" in row_note(rcol, 0)
