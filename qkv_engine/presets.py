"""Named scenarios a teacher can open: the seed documents' examples and classroom sentences.

    names()            the preset names, in menu order
    get(name)          the Preset (title, description, whether its weights are random or designed)
    load(name)         a fresh Scenario

Designed presets (``designed``) have hand-chosen features and weights with names, a ``note``
that says why each non-zero weight is there, and the (query, key) ``pairs`` the note promises.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import designed_presets as designed
from .errors import by_name
from .scenario import Scenario
from .word_split import tokenize

DEFAULT = "seed-the-cat-sat"


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    random_weights: bool
    build: Callable[[], Scenario]
    designed: bool = False  # features and weights chosen by hand, with names and a note
    note: str = ""  # for students: why each non-zero weight is there (paragraphs split by newlines)
    pairs: tuple = ()  # (query index, key index) cells the note says get the most weight in their rows


def _from_arrays(text: str, x, w_q, w_k, w_v, **options) -> Scenario:
    toks = tokenize(text)
    return Scenario(
        tokens=tuple(t.text for t in toks),
        x=np.array(x, dtype=np.float64),
        w_q=np.array(w_q, dtype=np.float64),
        w_k=np.array(w_k, dtype=np.float64),
        w_v=np.array(w_v, dtype=np.float64),
        text=text,
        spans=tuple((t.start, t.end) for t in toks),
        **options,
    )


# The first seed document's single token: x and the three grids, rows = input dials.
CAT_X = [[0.5, -0.3, 0.8, 0.2]]
CAT_WQ = [[0.1, 0.4], [0.2, -0.1], [-0.3, 0.5], [0.6, 0.2]]
CAT_WK = [[-0.2, 0.3], [0.5, 0.1], [0.4, -0.2], [-0.1, 0.6]]
CAT_WV = [[0.3, -0.2, 0.5], [-0.1, 0.4, 0.2], [0.6, 0.1, -0.3], [0.2, -0.5, 0.4]]

# The second seed document's three tokens and the Q, K, V vectors it lists for them.
THE_CAT_SAT_X = [[0.1, 0.4, 0.2, 0.5], [0.9, 0.1, 0.8, 0.3], [0.2, 0.7, 0.1, 0.9]]
THE_CAT_SAT_Q = [[0.2, 0.3], [0.8, 0.2], [0.3, 0.9]]
THE_CAT_SAT_K = [[0.5, 0.1], [0.7, 0.8], [0.2, 0.4]]
THE_CAT_SAT_V = [[0.4, 0.6, 0.2], [0.9, 0.3, 0.7], [0.5, 0.8, 0.1]]


def _solve_grid(x, target) -> np.ndarray:
    """The smallest grid W with X W = target (exact: X has full row rank)."""
    return np.linalg.pinv(np.array(x, dtype=np.float64)) @ np.array(target, dtype=np.float64)


def _seed_cat() -> Scenario:
    return _from_arrays("cat", CAT_X, CAT_WQ, CAT_WK, CAT_WV)


def _seed_the_cat_sat() -> Scenario:
    x = THE_CAT_SAT_X
    return _from_arrays("The cat sat", x, _solve_grid(x, THE_CAT_SAT_Q), _solve_grid(x, THE_CAT_SAT_K),
                        _solve_grid(x, THE_CAT_SAT_V))


def _seed_numpy_demo() -> Scenario:
    # The listing's order of draws: np.random.seed(42), then W_Q, W_K, W_V, each randn(d_model, 4) * 0.1.
    rng = np.random.RandomState(42)
    w_q = rng.randn(4, 4) * 0.1
    w_k = rng.randn(4, 4) * 0.1
    w_v = rng.randn(4, 4) * 0.1
    return _from_arrays("The cat sat", THE_CAT_SAT_X, w_q, w_k, w_v, seed=42)


def _sentence(text: str, seed: int, **dims) -> Callable[[], Scenario]:
    return lambda: Scenario.from_sentence(text, seed=seed, **dims)


def _padded() -> Scenario:
    s = Scenario.from_sentence("The cat sat PAD PAD", seed=4)
    return s.with_options(padding=tuple(i for i, t in enumerate(s.tokens) if t == "PAD"))


def _two_heads() -> Scenario:
    return Scenario.from_sentence("The dog chased the red ball", seed=5, d_model=4, d_k=2, d_v=2).with_heads(2)


def _translation() -> Scenario:
    return Scenario.from_sentence("the black cat sleeps", seed=6).with_source("le chat noir dort")


_PRESETS = [
    Preset("seed-cat", "One token: \"cat\"",
           "The single token 'cat' with the embedding and the three grids of the step-by-step walkthrough "
           "(d_model 4, d_k 2, d_v 3).", False, _seed_cat),
    Preset("seed-the-cat-sat", "The cat sat",
           "Three tokens with the embeddings and the query, key and value vectors of the library-analogy "
           "document; the grids are the smallest ones that give exactly those vectors.", False, _seed_the_cat_sat),
    Preset("seed-numpy-demo", "The cat sat (numpy listing)",
           "The same three embeddings with the grids the document's numpy listing draws: np.random.seed(42), "
           "then randn(4, 4) * 0.1 for W^Q, W^K and W^V in that order (d_k = d_v = 4).", True, _seed_numpy_demo),
    Preset("pronoun", "Who is 'it'?",
           "A sentence with a pronoun, to ask which word 'it' should look at. Random weights: "
           "an untrained model, so the pattern is not meaningful yet.", True,
           _sentence("The animal did not cross the street because it was too tired.", 1)),
    Preset("repeated-word", "The same word twice",
           "A sentence where 'dog' appears twice. Both copies share one embedding, so they get the same query, "
           "key and value. Random weights.", True,
           _sentence("The dog saw the other dog.", 2)),
    Preset("long-sentence", "A longer sentence",
           "Sixteen tokens with random weights, to see a bigger heatmap.", True,
           _sentence("After a long rainy week, the children finally played outside in the warm sun.", 3)),
    Preset("padding", "Padding",
           "A short sentence filled up with two PAD tokens, as happens when sentences of different lengths "
           "share a batch. The PAD tokens are marked as padding, so no token looks at them. Random weights.",
           True, _padded),
    Preset("two-heads", "Two heads",
           "Attention split into two heads, each with its own W^Q, W^K and W^V; W^O mixes their outputs. "
           "Random weights.", True, _two_heads),
    Preset("translation", "Cross-attention: a translation",
           "The English sentence asks (queries) and the French sentence answers (keys and values), "
           "as in a translation model. Random weights.", True, _translation),
    Preset("designed-it", "Who is 'it'? (designed)",
           "Eleven tokens with features chosen by hand (animate, noun, pronoun, verb): the query of 'it' asks "
           "for an animate noun, and the key of 'animal' answers.", False, designed.who_is_it,
           designed=True, note=designed.IT_NOTE, pairs=((7, 1),)),
    Preset("designed-previous-word", "Previous word",
           "A head that only knows places: every word looks at the word just before it. Six tokens, "
           "one feature per place, numbers chosen by hand.", False, designed.previous_word,
           designed=True, note=designed.PREVIOUS_NOTE, pairs=((0, 0), (1, 0), (2, 1), (3, 2), (4, 3), (5, 4))),
    Preset("designed-adjective-noun", "Adjective \u2192 noun",
           "Describing words find the word they describe: 'small' and 'brown' look at 'dog', 'loudly' at "
           "'barks'. Numbers chosen by hand.", False, designed.adjective_noun,
           designed=True, note=designed.ADJECTIVE_NOTE, pairs=((1, 3), (2, 3), (5, 4))),
    Preset("designed-agreement", "Agreement: the verb finds its subject",
           "The plural verb 'are' looks for a plural noun and finds 'books', not the nearer 'shelf'. "
           "Numbers chosen by hand.", False, designed.agreement,
           designed=True, note=designed.AGREEMENT_NOTE, pairs=((5, 1),)),
]
_BY_NAME = {p.name: p for p in _PRESETS}


def names() -> list[str]:
    return [p.name for p in _PRESETS]


def all_presets() -> list[Preset]:
    return list(_PRESETS)


def get(name: str) -> Preset:
    return by_name(_BY_NAME, name, "preset")


def load(name: str) -> Scenario:
    return get(name).build()
