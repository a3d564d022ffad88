"""What if: how much each head matters for one predicted token, and the text a model writes next.

    effects = head_effects(model, trace, position, target_id)   # L x H
    longer = generate(model, "The cat", 5)                       # the ModelTrace of the text, 5 tokens longer

head_effects[l, h] = log p(target | head h of layer l knocked out) - log p(target), both at ``position``
(GPT-2, Llama: the next token after it; BERT: the [MASK] there). Negative: the head helped the model give
that token. Each knock-out is a ModelEdits one head larger than the trace's own, run with ``reuse=trace``,
so a knock-out in layer l reruns layers l and up only. mode "zero" sets the head's output to 0; "mean" sets
it to the head's mean output over the sentence's positions (mean_edits), in every family (a grouped-query
head's values are shared, so its output is set, not its W^V).

generate: greedy (temperature 0: the most likely next token, the lowest id on a tie) or sampled from
softmax(logits / temperature) with numpy's generator seeded by ``seed``; the token's text is appended to
the text and the model run again, until ``n_tokens`` tokens, the end-of-text token, or a text the model's
max_tokens would cut. A token that holds part of a character appends the replacement character.
Decoding and the end-of-text token come from the model's tokenizer (Model._tokenizer: Model has no public
way to decode yet).
"""
from __future__ import annotations

import json
import math

import numpy as np

from ..errors import ModelError
from .model import Model, ModelTrace

#: "zero": the head's output set to 0 (ModelEdits.knocked_out); "mean": set to its mean over positions.
MODES = ("zero", "mean")


def log_softmax(z: np.ndarray) -> np.ndarray:
    """log p over the last axis, float64: z - max - log sum exp(z - max)."""
    z = np.asarray(z, dtype=np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def _whole(what: str, value, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value < high:
        raise ModelError(f"{what} {value!r}: expected a whole number from {low} to {high - 1}")
    return int(value)


def _with_head(model: Model, trace: ModelTrace) -> ModelTrace:
    if not isinstance(trace, ModelTrace) or trace.info != model.info:
        raise ModelError("this trace comes from another model: run the sentence again")
    if trace.output_head is None:
        raise ModelError(f"the model '{model.info.name}' has no output head (its checkpoint holds only the "
                         f"layers): it cannot predict tokens")
    return trace


def mean_edits(trace: ModelTrace, layer: int, head: int):
    """ModelEdits on top of the trace's that make head ``head`` of ``layer`` output, at every position, its
    mean output over the positions in ``trace`` (ModelEdits.fixed_outputs): the head still attends, but what
    it passes on no longer depends on where it looks."""
    mean = trace.context[layer, head].astype(np.float64).mean(axis=0)  # d_head
    return trace.edits.with_fixed_output(layer, head, tuple(float(v) for v in mean))


def head_effects(model: Model, trace: ModelTrace, position: int, target_id: int, mode: str = "zero",
                 progress=None) -> np.ndarray | None:
    """L x H float64: the change in log p(``target_id``) at ``position`` when each head alone is knocked out
    (the module docstring); 0 for a head the trace already knocks out. ``mode`` "zero" or "mean" (mean_edits).
    ``progress(done, total)`` is called after each head; when it returns False the work stops and the
    result is None."""
    _with_head(model, trace)
    n, vocab = trace.n, model.arch.vocab_size
    if n == 0:
        raise ModelError("the sentence has no tokens: there is nothing to predict")
    position = _whole("position", position, -n, n)
    target_id = _whole("token id", target_id, 0, vocab)
    if mode not in MODES:
        raise ModelError(f"mode {mode!r}: expected one of {', '.join(MODES)}")
    base = log_softmax(trace.logits_at(position))[target_id]
    L, H = trace.n_layers, trace.n_heads
    out = np.zeros((L, H))
    for layer in range(L):
        for head in range(H):
            if not trace.knocked_out(layer, head):
                edits = (trace.edits.with_knockout(layer, head, True) if mode == "zero"
                         else mean_edits(trace, layer, head))
                knocked = model.run(trace.text, edits, reuse=trace)  # reruns layers >= layer only
                out[layer, head] = log_softmax(knocked.logits_at(position))[target_id] - base
            if progress is not None and progress(layer * H + head + 1, L * H) is False:
                return None
    return out


def _read_json(path) -> dict:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def end_ids(model: Model) -> frozenset:
    """The ids that end a text: tokenizer_config.json's eos_token; else the eos_token_id of config.json or
    generation_config.json (a number or a list); else GPT-2's <|endoftext|> if the vocabulary has it."""
    tokenizer = model._tokenizer.tokenizer
    folder = model.info.path
    eos = _read_json(folder / "tokenizer_config.json").get("eos_token")
    if isinstance(eos, dict):
        eos = eos.get("content")
    if isinstance(eos, str) and tokenizer.token_to_id(eos) is not None:
        return frozenset({tokenizer.token_to_id(eos)})
    for name in ("generation_config.json", "config.json"):
        given = _read_json(folder / name).get("eos_token_id")
        ids = given if isinstance(given, list) else [given]
        ids = [i for i in ids if isinstance(i, int) and not isinstance(i, bool)]
        if ids:
            return frozenset(ids)
    end = tokenizer.token_to_id("<|endoftext|>")
    return frozenset() if end is None else frozenset({end})


def next_token(logits_row: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """Greedy (temperature 0): the argmax, the lowest id on a tie; else a draw from softmax(z / temperature)."""
    if temperature == 0.0:
        return int(np.argmax(logits_row))
    p = np.exp(log_softmax(np.asarray(logits_row, dtype=np.float64) / temperature))
    return int(rng.choice(p.size, p=p / p.sum()))


def appended_text(model: Model, ids: tuple, token_id: int) -> str:
    """The text ``token_id`` adds after the tokens ``ids``: the decoding of ids + [token_id] past the
    decoding of ids (a SentencePiece token's leading space is kept only after other tokens)."""
    decode = model._tokenizer.tokenizer.decode
    before = decode(list(ids), skip_special_tokens=False)
    after = decode(list(ids) + [int(token_id)], skip_special_tokens=False)
    return after[len(before):] if after.startswith(before) else decode([int(token_id)], skip_special_tokens=False)


def generate(model: Model, text: str, n_tokens: int, temperature: float = 0.0, seed: int = 0) -> ModelTrace:
    """The ModelTrace of ``text`` with up to ``n_tokens`` tokens the model writes appended (the module
    docstring). Only a model that reads left to right (GPT-2, Llama) writes text."""
    if not model.info.causal:
        raise ModelError(f"the model '{model.info.name}' reads the whole sentence at once: only a model that "
                         f"reads left to right (GPT-2, Llama) writes text")
    n_tokens = _whole("number of tokens", n_tokens, 0, 1_000_000)
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
            or not math.isfinite(temperature) or temperature < 0:
        raise ModelError(f"temperature {temperature!r}: expected a number, 0 or more")
    rng = np.random.default_rng(seed)
    ends = end_ids(model)
    trace = model.run(text)
    for _ in range(n_tokens):
        _with_head(model, trace)
        if trace.n == 0:
            raise ModelError("generate: give some text for the model to go on from")
        if trace.n >= model.info.token_limit:
            break
        token = next_token(trace.logits_at(-1), float(temperature), rng)
        if token in ends:
            break
        longer = model.run(trace.text + appended_text(model, trace.ids, token))
        if longer.dropped > trace.dropped:
            break  # past the model's max_tokens the text would be cut
        trace = longer
    return trace
