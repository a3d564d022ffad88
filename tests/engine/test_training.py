"""Learning the weights: the loss against a loop-by-loop reference, the closed-form gradients
against central finite differences, and the steps (clipping, masks, heads, tied embeddings)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from qkv_engine import Scenario, ScenarioError, compute, presets, training

from .reference import attention_of

H = 1e-5  # central-difference step
REL = 1e-6  # allowed error, relative to the largest gradient entry


def random_scenario(seed: int, n: int = 5, d_model: int = 4, d_k: int = 3, d_v: int = 2, **options) -> Scenario:
    rng = np.random.default_rng(seed)
    return Scenario(tokens=tuple(f"t{i}" for i in range(n)), x=rng.normal(size=(n, d_model)),
                    w_q=rng.normal(size=(d_model, d_k)), w_k=rng.normal(size=(d_model, d_k)),
                    w_v=rng.normal(size=(d_model, d_v)), **options)


def random_target(s: Scenario, seed: int, skip_rows=(0,)) -> np.ndarray:
    """A random distribution over the open keys of every row but ``skip_rows``."""
    rng = np.random.default_rng(seed + 100)
    from qkv_engine.attention import MASK_OPEN, mask_reasons
    open_ = mask_reasons(s) == MASK_OPEN
    t = rng.uniform(0.1, 1.0, size=(s.n, s.n_keys)) * open_
    t[list(skip_rows)] = 0.0
    t[~open_.any(axis=1)] = 0.0
    return t


def reference_loss(s: Scenario, target, head=0, y=None, weight=0.0) -> float:
    """Cross-entropy (and squared error) from the reference implementation's weights, by loops."""
    h = s.head(head)
    ref = attention_of(h)
    rows = [i for i in range(s.n) if sum(target[i]) > 0]
    total = 0.0
    for i in rows:
        row_sum = sum(target[i])
        for j in range(s.n_keys):
            if target[i][j] > 0:
                total -= target[i][j] / row_sum * math.log(ref.weights[i][j])
    value = total / len(rows)
    if y is not None and weight > 0:
        y_rows = [i for i in range(s.n) if not all(math.isnan(v) for v in y[i])]
        sq = sum((ref.output[i][c] - y[i][c]) ** 2 for i in y_rows for c in range(len(y[i])))
        value += weight * sq / len(y_rows)
    return value


CASES = {
    "plain": dict(),
    "no scaling": dict(scale=False),
    "temperature": dict(temperature=0.37),
    "causal": dict(causal=True),
    "padding and blocked": dict(padding=(3,), blocked=((1, 0), (4, 2))),
    "all of them": dict(causal=True, padding=(4,), blocked=((2, 1),), temperature=2.5, scale=False),
}


def fd_check(s: Scenario, target, head=0, y=None, weight=0.0, names=("w_q", "w_k", "w_v", "x", "source_x")):
    g = training.gradients(s, target, head, y, weight)
    for name in names:
        grad = getattr(g, name)
        if grad is None:
            continue
        full = getattr(s, name)
        if name.startswith("w_"):
            d = grad.shape[1]
            cols = range(head * d, (head + 1) * d)
        else:
            cols = range(full.shape[1])
        fd = np.zeros_like(grad)
        for r in range(full.shape[0]):
            for c_out, c in enumerate(cols):
                def at(delta):
                    a = np.array(full)
                    a[r, c] += delta
                    return training.loss(s.with_options(**{name: a}), target, head, y, weight)
                fd[r, c_out] = (at(H) - at(-H)) / (2 * H)
        scale = max(np.abs(fd).max(), 1e-3)
        assert np.abs(fd - grad).max() <= REL * scale, f"{name}: {np.abs(fd - grad).max():.3g} vs {scale:.3g}"


# ----- the loss ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES)
def test_the_loss_is_the_cross_entropy_of_the_reference_weights(case):
    s = random_scenario(1, **CASES[case])
    t = random_target(s, 1)
    assert training.loss(s, t) == pytest.approx(reference_loss(s, t), rel=1e-12)
    assert training.gradients(s, t).loss == pytest.approx(reference_loss(s, t), rel=1e-12)


def test_the_output_term_is_the_mean_squared_error_of_the_reference_output():
    s = random_scenario(3, **CASES["all of them"])
    t = random_target(s, 3)
    y = np.random.default_rng(3).normal(size=(s.n, s.d_v))
    y[2] = np.nan
    assert training.loss(s, t, output_target=y, output_weight=0.6) == pytest.approx(
        reference_loss(s, t, y=y, weight=0.6), rel=1e-12)
    g = training.gradients(s, t, output_target=y, output_weight=0.6)
    assert g.output_loss > 0 and g.loss == pytest.approx(g.attention_loss + g.output_loss)


def test_the_loss_of_one_row_looking_at_one_key_is_minus_log_its_weight():
    s = presets.load("pronoun")
    t = training.look_at(s, "it", "animal")
    w = compute(s).weights[s.tokens.index("it"), s.tokens.index("animal")]
    assert training.loss(s, t) == pytest.approx(-math.log(w), rel=1e-12)


# ----- gradients against finite differences --------------------------------------------------------
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("seed", [2, 3])
def test_gradients_match_finite_differences(case, seed):
    s = random_scenario(seed, **CASES[case])
    fd_check(s, random_target(s, seed), names=("w_q", "w_k", "x"))


@pytest.mark.parametrize("case", ["plain", "all of them"])
def test_gradients_with_a_target_output_match_finite_differences(case):
    s = random_scenario(4, **CASES[case])
    y = np.random.default_rng(9).normal(size=(s.n, s.d_v))
    y[1] = np.nan  # no target output for row 2
    fd_check(s, random_target(s, 4), y=y, weight=0.7)


def test_gradients_in_cross_attention_match_finite_differences():
    s = random_scenario(5, n=3).with_source("u v w x")
    s = s.with_options(source_x=np.random.default_rng(5).normal(size=(4, 4)), padding=(1,))
    y = np.random.default_rng(6).normal(size=(3, s.d_v))
    fd_check(s, random_target(s, 5, skip_rows=()), y=y, weight=0.3)
    assert training.gradients(s, random_target(s, 5)).source_x.shape == (4, 4)


def test_gradients_of_the_second_head_match_finite_differences():
    s = random_scenario(6, d_k=2, d_v=2).with_heads(2)
    s = s.with_options(w_q=np.random.default_rng(7).normal(size=(4, 4)))
    fd_check(s, random_target(s, 6), head=1, y=np.random.default_rng(8).normal(size=(5, 2)), weight=0.5)


def test_a_fully_masked_row_without_a_target_gets_no_gradient_and_no_nan():
    s = random_scenario(7, padding=(0, 1, 2, 3, 4))
    with pytest.raises(ScenarioError, match="at least one cell"):
        training.gradients(s, random_target(s, 7))
    s = random_scenario(7, blocked=tuple((0, j) for j in range(5)))
    g = training.gradients(s, random_target(s, 7))
    assert np.all(np.isfinite(g.w_q)) and np.all(g.weights[0] == 0)


# ----- targets -----------------------------------------------------------------------------------------
def test_targets_from_cells_share_a_row_and_look_at_finds_tokens():
    s = presets.load("designed-it")
    t = training.target_from_cells(s, [(7, 1), (7, 5), (2, 0)])
    assert t[7, 1] == t[7, 5] == 0.5 and t[2, 0] == 1.0 and t.sum() == 2.0
    assert np.array_equal(training.look_at(s, "it", "animal"), training.look_at(s, 7, 1))
    assert not training.look_at(s, "it", "animal").flags.writeable


@pytest.mark.parametrize("make, fragment", [
    (lambda s: training.look_at(s, "it", "zebra"), "no token 'zebra'"),
    (lambda s: training.look_at(s, 40, 1), "outside the sentence"),
    (lambda s: training.target_from_cells(s, [(0, 11)]), "outside the 11 x 11"),
    (lambda s: training.check_target(s, np.zeros((11, 11))), "at least one cell"),
    (lambda s: training.check_target(s, -np.eye(11)), "0 or more"),
    (lambda s: training.check_target(s, np.eye(3)), "expected 11 x 11"),
    (lambda s: training.look_at(s.with_options(causal=True), "animal", "it"), "a mask hides it"),
    (lambda s: training.loss(s.with_options(softmax_over="queries"), np.eye(11)), "softmax over keys"),
])
def test_bad_targets_are_refused_with_a_reason(make, fragment):
    with pytest.raises(ScenarioError, match=fragment):
        make(presets.load("designed-it"))


# ----- steps --------------------------------------------------------------------------------------------
def it_sentence() -> Scenario:
    return Scenario.from_sentence("The animal didn't cross the street because it was too tired", seed=1)


def test_steps_lower_the_loss_and_reach_the_target():
    s = it_sentence()
    t = training.look_at(s, "it", "animal")
    i, j = s.tokens.index("it"), s.tokens.index("animal")
    losses = []
    for _ in range(300):
        s, value = training.train_step(s, t, lr=0.5)
        losses.append(value)
        if compute(s).weights[i, j] > 0.8:
            break
    assert compute(s).weights[i, j] > 0.8
    assert losses[-1] < losses[0] and all(b <= a + 1e-12 for a, b in zip(losses, losses[1:]))
    assert np.array_equal(s.x, it_sentence().x) and np.array_equal(s.w_v, it_sentence().w_v)


def test_momentum_reaches_the_target_in_fewer_steps():
    def steps_to_target(momentum):
        s = it_sentence()
        trainer = training.Trainer(training.look_at(s, "it", "animal"), lr=0.5, momentum=momentum)
        for n in range(1, 400):
            s, _ = trainer.step(s)
            if compute(s).weights[7, 1] > 0.8:
                return n
        return 400
    plain, fast = steps_to_target(0.0), steps_to_target(0.8)
    assert fast < plain < 400


def test_a_huge_learning_rate_takes_a_bounded_step_and_never_makes_nan():
    s = random_scenario(8)
    s = s.with_options(w_q=s.w_q * 1000, w_k=s.w_k * 1000)
    t = random_target(s, 8)
    for _ in range(20):
        new, value = training.train_step(s, t, lr=training.MAX_LR, what=("w_q", "w_k", "x"))
        step = math.sqrt(sum(np.sum((getattr(new, n) - getattr(s, n)) ** 2) for n in ("w_q", "w_k", "x")))
        assert step <= training.MAX_STEP * (1 + 1e-9) and math.isfinite(value)
        s = new
    assert all(np.isfinite(a).all() for a in (s.x, s.w_q, s.w_k))


def test_only_the_trained_head_changes():
    s = it_sentence().with_heads(2)
    new, _ = training.train_step(s, training.look_at(s, "it", "animal"), head=1)
    assert np.array_equal(new.w_q[:, :2], s.w_q[:, :2]) and not np.array_equal(new.w_q[:, 2:], s.w_q[:, 2:])
    assert np.array_equal(new.w_o, s.w_o) and np.array_equal(new.w_v, s.w_v)


def test_trained_embeddings_stay_tied_by_token_text():
    s = Scenario.from_sentence("the dog saw the cat", seed=2)
    t = training.look_at(s, "cat", "dog")
    g = training.gradients(s, t)
    new, _ = training.train_step(s, t, lr=0.1, what=("x",))
    assert np.array_equal(new.x[0], new.x[3])
    np.testing.assert_allclose(new.x[0] - s.x[0], -0.1 * (g.x[0] + g.x[3]), atol=1e-12)


def test_w_v_learns_towards_a_target_output():
    s = presets.load("designed-it")
    y = np.full((s.n, s.d_v), np.nan)
    y[7] = [1.0, 0.0]  # 'it' should say: animate, not a noun
    t = training.look_at(s, "it", "animal")
    with pytest.raises(ScenarioError, match="target output"):
        training.train_step(s, t, what=("w_v",))
    before = training.loss(s, t, output_target=y, output_weight=1.0)
    for _ in range(50):
        s, _ = training.train_step(s, t, lr=0.5, what=("w_v",), output_target=y, output_weight=1.0)
    assert training.loss(s, t, output_target=y, output_weight=1.0) < before / 4
    assert np.array_equal(s.w_q, presets.load("designed-it").w_q)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(lr=0), "learning rate"), (dict(lr=float("nan")), "learning rate"), (dict(lr=1e9), "learning rate"),
    (dict(what=()), "what to train"), (dict(what=("w_o",)), "what to train"), (dict(head=2), "head"),
])
def test_bad_settings_are_refused(kwargs, fragment):
    s = it_sentence()
    with pytest.raises(ScenarioError, match=fragment):
        training.train_step(s, training.look_at(s, "it", "animal"), **kwargs)


def test_rounded_keeps_two_decimals_of_what_was_trained():
    s = it_sentence()
    s, _ = training.train_step(s, training.look_at(s, "it", "animal"), lr=0.3)
    r = training.rounded(s)
    assert np.array_equal(r.w_q, np.round(s.w_q, 2)) and np.array_equal(r.x, s.x)
