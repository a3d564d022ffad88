"""Designed examples: sentences whose features and weights are chosen by hand, so that every
number means something ("animate", "looks for a noun") and the attention pattern can be read.

Each builder returns a Scenario with named features and columns, in the "replaced-or-zero"
mode (a word typed over another takes its features; a new word gets zeros, never random
numbers). Features are 0 or 1 and weights small whole numbers, so every query, key and value
is a whole number too and the worked arithmetic stays short.

The figures in the notes (percentages) are computed by the tests from the numbers here.
"""
from __future__ import annotations

import numpy as np

from .scenario import Scenario
from .word_split import tokenize


def _designed(text: str, features: list, rows: dict, w_q: dict, w_k: dict, w_v: dict,
              q_names: list, k_names: list, v_names: list) -> Scenario:
    """A scenario from sparse hand-written numbers.

    ``rows``: token text -> {feature: value} (every other entry 0; unlisted tokens are all 0).
    ``w_q`` etc.: (feature, column number from 1) -> weight (every other cell 0).
    """
    toks = tokenize(text)
    index = {f: r for r, f in enumerate(features)}
    x = np.zeros((len(toks), len(features)))
    for i, t in enumerate(toks):
        for f, value in rows.get(t.text, {}).items():
            x[i, index[f]] = value

    def grid(cells: dict, cols: int) -> np.ndarray:
        g = np.zeros((len(features), cols))
        for (f, c), value in cells.items():
            g[index[f], c - 1] = value
        return g

    return Scenario(
        tokens=tuple(t.text for t in toks), x=x,
        w_q=grid(w_q, len(q_names)), w_k=grid(w_k, len(k_names)), w_v=grid(w_v, len(v_names)),
        text=text, spans=tuple((t.start, t.end) for t in toks),
        feature_names=tuple(features), q_names=tuple(q_names), k_names=tuple(k_names),
        v_names=tuple(v_names), new_tokens="replaced-or-zero",
    )


# ----- Who is 'it'? ------------------------------------------------------------------------------
IT_TEXT = "The animal didn't cross the street because it was too tired"


def who_is_it() -> Scenario:
    return _designed(
        IT_TEXT,
        features=["animate", "noun", "pronoun", "verb"],
        rows={"animal": {"animate": 1, "noun": 1}, "street": {"noun": 1}, "it": {"pronoun": 1},
              "didn't": {"verb": 1}, "cross": {"verb": 1}, "was": {"verb": 1}},
        w_q={("pronoun", 1): 2, ("pronoun", 2): 1},
        w_k={("animate", 1): 2, ("noun", 2): 2},
        w_v={("animate", 1): 1, ("noun", 2): 1},
        q_names=["looks for animate", "looks for a noun"],
        k_names=["is animate", "is a noun"],
        v_names=["animate", "noun"],
    )


IT_NOTE = (
    "Each word has four features: animate (alive), noun, pronoun and verb. "
    "'animal' is an animate noun, 'street' is a noun, 'it' is a pronoun, and 'didn't', 'cross' and 'was' "
    "are verbs. The other words have no feature we track, so their rows are all 0.\n"
    "W^Q: only the pronoun row is not 0. A pronoun asks two things: 'are you animate?' (q1, weight 2) "
    "and, less strongly, 'are you a noun?' (q2, weight 1). So the query of 'it' is (2, 1).\n"
    "W^K: the animate row puts 2 in k1 ('I am animate'), and the noun row puts 2 in k2 ('I am a noun'). "
    "So the key of 'animal' is (2, 2) and the key of 'street' is (0, 2).\n"
    "Scores: 'it' with 'animal' is 2×2 + 1×2 = 6, with 'street' 1×2 = 2, with every other word 0. "
    "After scaling and softmax, 'it' puts 84% of its weight on 'animal' and 5% on 'street'.\n"
    "Every other word has a query of 0: it asks for nothing, so it spreads its weight evenly (9% on each word).\n"
    "W^V copies the animate and noun features into the value. So the output of 'it' says: "
    "I stand for something animate.\n"
    "The verb feature is not used by this head: a real model has many heads, each reading different features.\n"
    "Try: type 'dog' in place of 'animal' (it takes the features of 'animal'), or set the animate feature "
    "of 'animal' to 0 and watch 'it' lose its choice."
)


# ----- Previous word -----------------------------------------------------------------------------
PREVIOUS_TEXT = "New York is a big city"
PLACES = 6


def previous_word() -> Scenario:
    places = [f"place {p}" for p in range(1, PLACES + 1)]
    words = [t.text for t in tokenize(PREVIOUS_TEXT)]
    w_q = {(places[0], 1): 4}  # the first word has no word before it: it asks for its own place
    w_q.update({(places[p], p): 4 for p in range(1, PLACES)})  # place p + 1 asks for place p
    return _designed(
        PREVIOUS_TEXT,
        features=places,
        rows={w: {places[i]: 1} for i, w in enumerate(words)},
        w_q=w_q,
        w_k={(places[p], p + 1): 2 for p in range(PLACES)},
        w_v={(places[p], p + 1): 1 for p in range(PLACES)},
        q_names=[f"asks for place {p}" for p in range(1, PLACES + 1)],
        k_names=[f"is at place {p}" for p in range(1, PLACES + 1)],
        v_names=[f"from place {p}" for p in range(1, PLACES + 1)],
    )


PREVIOUS_NOTE = (
    "This head knows nothing about meaning, only places. Feature 'place 3' is 1 for the third word "
    "and 0 for every other word.\n"
    "W^K: each place row puts 2 in its own column, so every key says 'I am at place p'.\n"
    "W^Q: the row of place p puts 4 in the column of place p - 1. So each word asks for the place just "
    "before its own. The first word has no word before it, so its row asks for place 1: it looks at itself.\n"
    "Scores: 4×2 = 8 for the word just before, 0 for every other word. After scaling and softmax, each word "
    "puts 84% of its weight on the word before it ('York' on 'New', 'city' on 'big').\n"
    "W^V copies the place into the value, so each output says where the word before sits.\n"
    "Real models have heads like this one: they help a word read the word next to it ('New' + 'York').\n"
    "Try: swap two words. The features go with the words, so the head now looks at the wrong places."
)


# ----- Adjective -> noun -------------------------------------------------------------------------
ADJECTIVE_TEXT = "A small brown dog barks loudly"


def adjective_noun() -> Scenario:
    return _designed(
        ADJECTIVE_TEXT,
        features=["adjective", "noun", "verb", "adverb"],
        rows={"small": {"adjective": 1}, "brown": {"adjective": 1}, "dog": {"noun": 1},
              "barks": {"verb": 1}, "loudly": {"adverb": 1}},
        w_q={("adjective", 1): 3, ("adverb", 2): 3},
        w_k={("noun", 1): 2, ("verb", 2): 2},
        w_v={("noun", 1): 1, ("verb", 2): 1},
        q_names=["looks for a noun", "looks for a verb"],
        k_names=["is a noun", "is a verb"],
        v_names=["noun", "verb"],
    )


ADJECTIVE_NOTE = (
    "A describing word looks for the word it describes. An adjective ('small', 'brown') describes a noun "
    "('dog'); an adverb ('loudly') describes a verb ('barks').\n"
    "W^Q: the adjective row puts 3 in q1 ('looking for a noun'); the adverb row puts 3 in q2 "
    "('looking for a verb').\n"
    "W^K: the noun row puts 2 in k1 ('I am a noun'); the verb row puts 2 in k2 ('I am a verb').\n"
    "Scores: 3×2 = 6 for the matching pair, 0 for the rest. After scaling and softmax, 'small' and 'brown' "
    "each put 93% of their weight on 'dog', and 'loudly' puts 93% on 'barks'.\n"
    "'A', 'dog' and 'barks' ask for nothing (their queries are 0), so they spread their weight evenly.\n"
    "W^V copies the noun and verb features, so the output of 'small' says: I belong to a noun.\n"
    "Try: type 'big' in place of 'small'. It takes the features of 'small' and still finds 'dog'."
)


# ----- Agreement -----------------------------------------------------------------------------------
AGREEMENT_TEXT = "The books on the shelf are old"


def agreement() -> Scenario:
    return _designed(
        AGREEMENT_TEXT,
        features=["noun", "verb", "plural", "singular"],
        rows={"books": {"noun": 1, "plural": 1}, "shelf": {"noun": 1, "singular": 1},
              "are": {"verb": 1, "plural": 1}},
        w_q={("verb", 1): 3, ("plural", 2): 2, ("singular", 3): 2},
        w_k={("noun", 1): 2, ("plural", 2): 2, ("singular", 3): 2},
        w_v={("plural", 1): 1, ("singular", 2): 1},
        q_names=["looks for a noun", "looks for plural", "looks for singular"],
        k_names=["is a noun", "is plural", "is singular"],
        v_names=["plural", "singular"],
    )


AGREEMENT_NOTE = (
    "A verb must agree with its subject: 'the books are', 'the shelf is'. Here the verb 'are' is plural, "
    "so it looks for a plural noun. It finds 'books', even though 'shelf' stands closer to it.\n"
    "Features: 'books' is a plural noun, 'shelf' a singular noun, 'are' a plural verb.\n"
    "W^Q: the verb row puts 3 in q1 (a verb looks for a noun). The plural row puts 2 in q2 and the singular "
    "row puts 2 in q3 (a word looks for words of its own number). So the query of 'are' is (3, 2, 0).\n"
    "W^K: the noun, plural and singular rows put 2 in k1, k2 and k3. So the key of 'books' is (2, 2, 0) "
    "and the key of 'shelf' is (2, 0, 2).\n"
    "Scores of 'are': 'books' 3×2 + 2×2 = 10, 'shelf' 3×2 = 6, 'are' itself 2×2 = 4. After scaling and "
    "softmax, 'are' puts 87% of its weight on 'books' and 9% on 'shelf'.\n"
    "Nouns have a number too, so 'books' also asks for plural words and 'shelf' for singular ones. "
    "This head is about the verb: read the row of 'are'.\n"
    "W^V copies the plural and singular features into the value. So the output of 'are' says: "
    "my subject is plural.\n"
    "Try: type 'is' in place of 'are'. It takes the features of 'are', so set its plural to 0 and its "
    "singular to 1 in the table. Now 'is' puts 87% of its weight on 'shelf'."
)
