"""Measuring the built-in model on held-out sentences: accuracy per phenomenon and what each head does.

Works on any runner ``run(text) -> (logits, weights)``: logits n x vocab (the next token's scores at each
position), weights layers x heads x n x n, for the tokens [BOS] + the text's words. The app's numpy
forward is one runner (tools/evaluate_builtin_model.py, the tests); the training script passes torch's.
Only numpy is needed here.

Held-out sentences come from the grammar with a seed the training never uses (EVAL_SEED). Word i of an
example is token i + 1 (token 0 is [BOS]); it is predicted by the logits at token i.

Accuracy: the model's top word equals the grammar's word, over every scored word of the kind.
    agreement        "is"/"are" after a subject whose distractor noun has the other number
    pronoun_it       the animal's verb after "it" ("barked" for a dog)
    pronoun_person   "smiled" after "she", "laughed" after "he"
    copy             the repeated story after "later", from its second word on
    recall           "tom has a" -> tom's adjective, noun, full stop
    random_copy      a repeated run of random known words, from its second word on

Knock-outs (``knock_out``): the same accuracies with a group of heads switched off (the app's knock-out
edit: their output is zero), which shows that the heads named for a job are the ones doing it.

Per head, each a mean attention weight:
    previous_token   query at token t >= 2 on token t - 1 (all held-out sentences)
    induction        query at a repeated random word on the word that followed its first occurrence
    it_antecedent    query at "it" on the animal noun it stands for
    person_antecedent  query at "she"/"he" on the name it stands for
    subject          query at the word before "is"/"are" (the distractor noun) on the subject noun
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .grammar import Example, Generator

EVAL_SEED = 20_260_501  # never used for training (the training seed is 1234)
ACCURACIES = ("agreement", "pronoun_it", "pronoun_person", "copy", "recall", "random_copy")
HEAD_SCORES = ("previous_token", "induction", "it_antecedent", "person_antecedent", "subject")
#: The issue's targets (share of scored words).
TARGETS = {"agreement": 0.95, "pronoun_it": 0.90, "pronoun_person": 0.90, "copy": 0.90, "random_copy": 0.50}


def held_out(per_kind: int, seed: int = EVAL_SEED) -> dict[str, list[Example]]:
    """per_kind examples of each kind; agreement always with a distractor of the other number."""
    gen = Generator(seed)
    return {
        "agreement": [gen.agreement(opposite=1.0) for _ in range(per_kind)],
        "pronoun": [gen.pronoun() for _ in range(per_kind)],
        "copy": [gen.copy() for _ in range(per_kind)],
        "recall": [gen.recall() for _ in range(per_kind)],
        "random_copy": [gen.random_copy() for _ in range(per_kind)],
    }


@dataclass
class Results:
    """Correct / counted per accuracy, and per head the sums behind each mean weight."""

    n_layers: int
    n_heads: int
    correct: dict = field(default_factory=lambda: {k: 0 for k in ACCURACIES})
    counted: dict = field(default_factory=lambda: {k: 0 for k in ACCURACIES})
    sums: dict = field(default_factory=dict)
    counts: dict = field(default_factory=lambda: {k: 0 for k in HEAD_SCORES})

    def __post_init__(self):
        self.sums = {k: np.zeros((self.n_layers, self.n_heads)) for k in HEAD_SCORES}

    def accuracy(self, kind: str) -> float:
        return self.correct[kind] / self.counted[kind] if self.counted[kind] else float("nan")

    def head_score(self, kind: str) -> np.ndarray:
        """layers x heads: the mean weight of that score."""
        return self.sums[kind] / max(1, self.counts[kind])

    def best_head(self, kind: str) -> tuple[int, int, float]:
        s = self.head_score(kind)
        layer, head = np.unravel_index(int(np.argmax(s)), s.shape)
        return int(layer), int(head), float(s[layer, head])

    def as_dict(self) -> dict:
        return {
            "accuracy": {k: round(self.accuracy(k), 4) for k in ACCURACIES},
            "scored_words": dict(self.counted),
            "heads": {k: np.round(self.head_score(k), 4).tolist() for k in HEAD_SCORES},
            "best_heads": {k: list(self.best_head(k)) for k in HEAD_SCORES},
        }


def _score(res: Results, kind: str, logits: np.ndarray, ids: list[int], words_at: list[int]) -> None:
    for i in words_at:
        res.counted[kind] += 1
        res.correct[kind] += int(np.argmax(logits[i]) == ids[i + 1])


def evaluate(run, encode, examples: dict[str, list[Example]], n_layers: int, n_heads: int) -> Results:
    """Every example through ``run``; ``encode(words)`` gives the ids [BOS] + words (to check the runner's
    tokens and to know the right answers)."""
    res = Results(n_layers, n_heads)
    for kind, items in examples.items():
        for ex in items:
            ids = encode(ex.words)
            logits, weights = run(ex.text)
            if logits.shape[0] != len(ids):
                raise ValueError(f"the runner gave {logits.shape[0]} positions for {len(ids)} tokens: {ex.text!r}")
            n = len(ids)
            res.sums["previous_token"] += weights[:, :, np.arange(2, n), np.arange(1, n - 1)].mean(axis=-1)
            res.counts["previous_token"] += 1
            if kind == "pronoun":
                it = ex.words[ex.pronoun] == "it"
                _score(res, "pronoun_it" if it else "pronoun_person", logits, ids, list(ex.targets))
                key = "it_antecedent" if it else "person_antecedent"
                res.sums[key] += weights[:, :, ex.pronoun + 1, ex.antecedent + 1]
                res.counts[key] += 1
            else:
                _score(res, kind, logits, ids, list(ex.targets))
            if kind == "agreement":
                # the query predicting the verb is the token before it: word verb - 1, token verb
                res.sums["subject"] += weights[:, :, ex.targets[0], ex.antecedent + 1]
                res.counts["subject"] += 1
            if kind == "random_copy":
                k = (len(ex.words) - 1) // 2
                # query: repeat word j (token k + j + 1); key: word j + 1 of the first run (token j + 2)
                q = np.arange(k + 1, 2 * k)
                res.sums["induction"] += weights[:, :, q, q - k + 1].mean(axis=-1)
                res.counts["induction"] += 1
    return res


def table(res: Results) -> str:
    """The results as plain-text tables (accuracy per phenomenon, then every head's scores)."""
    lines = ["phenomenon        accuracy  target  scored words"]
    for k in ACCURACIES:
        target = f"{TARGETS[k]:.0%}" if k in TARGETS else "-"
        lines.append(f"{k:<17} {res.accuracy(k):7.1%}  {target:>6}  {res.counted[k]:>12}")
    lines += ["", "layer head  " + "  ".join(HEAD_SCORES)]
    for layer in range(res.n_layers):
        for head in range(res.n_heads):
            vals = [f"{res.head_score(k)[layer, head]:{len(k)}.2f}" for k in HEAD_SCORES]
            lines.append(f"{layer:>5} {head:>4}  " + "  ".join(vals))
    return "\n".join(lines)


def knock_out(model, heads, examples: dict[str, list[Example]], encode) -> Results:
    """The accuracies of ``model`` (a qkv_engine Model) with ``heads`` [(layer, head), ...] knocked out."""
    from qkv_engine.models import ModelEdits

    edits = ModelEdits(knocked_out=frozenset(tuple(h) for h in heads))

    def run(text):
        trace = model.run(text, edits)
        return np.asarray(trace.logits), np.asarray(trace.weights)

    return evaluate(run, encode, examples, model.info.n_layers, model.info.n_heads)
