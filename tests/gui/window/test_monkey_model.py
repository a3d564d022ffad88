"""A seeded monkey in the trained-model mode: typing, stepping between layers and heads, what-if edits,
knock-outs, undo and redo, and going back and forth between a model and the hand-made example, with the
numbers checked against the model's own run every few actions."""
import random
from pathlib import Path

import numpy as np
import pytest

from qkv_engine import compute
from qkv_engine.models import load_model
from tests.gui.conftest import settle

DATA = Path(__file__).resolve().parents[2] / "data"
WORDS = "the cat sat on mat dog ran it was too tired because street animal a an".split()


def check(window) -> None:
    """What every panel draws is the shown head of the model's run on the sentence, with the edits."""
    s = window.session
    doc = s.model_doc
    if doc is None:
        np.testing.assert_allclose(s.result.weights, compute(s.scenario, s.head).weights, atol=1e-12)
        return
    s.runner.wait()
    settle()
    trace = doc.model.run(doc.text, doc.edits)
    assert s.scenario.tokens == trace.tokens
    if trace.n == 0:
        return
    np.testing.assert_allclose(s.result.weights, trace.weights[s.model_layer, s.model_head], atol=1e-5)
    data = s.model_view_data
    assert (data.layer, data.head) == (s.model_layer, s.model_head)
    assert window.options.modelBox.layerSpin.value() == s.model_layer + 1


@pytest.mark.slow
@pytest.mark.parametrize("seed", [11, 12])
def test_random_actions_with_a_trained_model(window, seed):
    rng = random.Random(seed)
    models = [load_model(DATA / "tiny-bert"), load_model(DATA / "tiny-gpt2")]
    w = window
    w.models.show_model(models[0], text="the cat sat on the mat")
    settle()
    s = w.session

    def text():
        return " ".join(rng.choice(WORDS) for _ in range(rng.choice([0, 1, 3, 8, 20, 70])))

    actions = [
        lambda: s.set_text(text()),
        lambda: s.select_model_head(rng.randrange(3), rng.randrange(3)),  # one past the end is clamped
        lambda: s.set_cell(rng.choice(["w_q", "w_k", "w_v"]), rng.randrange(16), rng.randrange(8),
                           rng.uniform(-3, 3)),
        lambda: s.set_cell(rng.choice(["b_q", "b_k", "b_v"]), 0, rng.randrange(8), rng.uniform(-3, 3)),
        lambda: s.set_cell("x", rng.randrange(max(1, s.scenario.n)), rng.randrange(16), rng.uniform(-3, 3)),
        lambda: s.set_cell("w_q", 0, 0, rng.choice(["abc", "nan", "1e400", ""])),  # refused, nothing changes
        lambda: s.knock_out(rng.randrange(2), rng.randrange(2), rng.random() < 0.7),
        lambda: s.reset_to_checkpoint(),
        lambda: s.undo_stack.undo(),
        lambda: s.undo_stack.redo(),
        lambda: s.select(rng.randrange(30), rng.randrange(30)),
        lambda: s.set_colour_scale(rng.choice(["absolute", "auto", "row"])),
        lambda: s.set_option(temperature=2.0),  # refused in the model mode
        lambda: w.models.show_model(rng.choice(models), text=text()),
        lambda: w.models.back() if rng.random() < 0.3 else None,
        lambda: w.load_preset(rng.choice(["seed-cat", "pronoun", "designed-it"])) if rng.random() < 0.2 else None,
    ]
    for k in range(300):
        rng.choice(actions)()
        settle(rounds=1)
        if k % 10 == 9:
            check(w)
    check(w)
