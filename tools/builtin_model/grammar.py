"""The grammar the built-in model is trained on: short sentences made with a seeded random generator.

Five kinds of example, each built so that an attention pattern is needed to predict a word:

    agreement    "the keys to the old cabinet are new ."      the verb agrees with "keys", not "cabinet"
    pronoun      "the dog saw anna in the park . it barked ."  the verb after "it" says which animal it is
    copy         "tom met anna at the park . later tom met anna at the park ."
    recall       "anna has a red ball . tom has a blue kite . tom has a blue kite ."
    random_copy  "zebra lamp quiet gift fog zebra lamp quiet gift fog ."   any run of known words, repeated

``Generator(seed)`` makes them; ``Generator.document(n)`` strings random examples together into one
training text of at least n words. The same seed always gives the same examples. Each Example says
which of its words a model is scored on (``targets``: the word must be predicted from the words
before it) and, for a pronoun, where the pronoun and the word it stands for are.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from . import words as W

KINDS = ("agreement", "pronoun", "copy", "recall", "random_copy")
#: How often each kind appears in a training document.
MIX = {"agreement": 0.18, "pronoun": 0.24, "copy": 0.18, "recall": 0.10, "random_copy": 0.30}
NAMES = tuple(W.FEMALE_NAMES + W.MALE_NAMES)
PRONOUN_OF = {**{n: "she" for n in W.FEMALE_NAMES}, **{n: "he" for n in W.MALE_NAMES}}
SINGULARS = tuple(W.NOUN_PLURALS)
ANIMALS = tuple(W.ANIMAL_VERBS)


@dataclass(frozen=True)
class Example:
    """One example: its words, the indices of the words a model is scored on, the index of the pronoun
    (pronoun examples, else -1) and of the earlier word the scored word depends on (``antecedent``: the
    noun a pronoun stands for, the subject noun a verb agrees with; else -1)."""

    kind: str
    words: tuple
    targets: tuple
    pronoun: int = -1
    antecedent: int = -1

    @property
    def text(self) -> str:
        return " ".join(self.words)


def article(word: str) -> str:
    """"an" before a vowel ("an old key"), else "a"."""
    return "an" if word[0] in "aeiou" else "a"


def all_words() -> list[str]:
    """Every word the grammar can write, punctuation included, each once, sorted."""
    found = set(W.PUNCTUATION) | set(W.FUNCTION_WORDS) | set(NAMES) | set(W.PERSON_VERBS.values())
    found |= set(W.ANIMAL_VERBS) | set(W.ANIMAL_VERBS.values()) | set(W.MEETING_VERBS)
    found |= set(W.NOUN_PLURALS) | set(W.NOUN_PLURALS.values()) | set(W.PREPOSITIONS)
    found |= set(W.ADJECTIVES) | set(W.PLACES) | set(W.STORY_VERBS) | set(W.FINDING_VERBS)
    found |= set(W.EXTRA_WORDS)
    return sorted(found)


#: The words a random run is drawn from: every word but punctuation.
RUN_WORDS = tuple(w for w in all_words() if w not in W.PUNCTUATION)


class Generator:
    """Examples of each kind from one seeded random stream."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    # ----- pieces -----------------------------------------------------------------------------------
    def _noun_phrase(self, plural: bool, avoid: str = "") -> tuple[list, str]:
        """"the [adj] [adj] noun(s)" and the singular noun chosen (never ``avoid``)."""
        r = self.rng
        noun = r.choice(SINGULARS)
        while noun == avoid:
            noun = r.choice(SINGULARS)
        adjs = r.sample(W.ADJECTIVES, r.choice((0, 0, 1, 1, 2)))
        return ["the", *adjs, W.NOUN_PLURALS[noun] if plural else noun], noun

    def _being(self) -> tuple[list, str]:
        """A person ("anna") or an animal ("the dog"), and the pronoun that stands for it."""
        r = self.rng
        if r.random() < 0.5:
            name = r.choice(NAMES)
            return [name], PRONOUN_OF[name]
        return ["the", r.choice(ANIMALS)], "it"

    def _place(self) -> list:
        r = self.rng
        return [r.choice(("at", "in", "near")), "the", r.choice(W.PLACES)]

    # ----- the five kinds -----------------------------------------------------------------------------
    def agreement(self, opposite: float = 0.7) -> Example:
        """"the keys to the old cabinet are new ." The distractor noun has the other number with
        probability ``opposite``; a second distractor phrase follows one time in four."""
        r = self.rng
        plural = r.random() < 0.5
        subject, noun = self._noun_phrase(plural)
        words = subject[:]
        other = not plural if r.random() < opposite else plural
        for _ in range(2 if r.random() < 0.25 else 1):
            phrase, _ = self._noun_phrase(other, avoid=noun)
            words += [r.choice(W.PREPOSITIONS), *phrase]
            other = r.random() < 0.5
        verb = len(words)
        words.append("are" if plural else "is")
        subject_noun = len(subject) - 1
        if r.random() < 0.5:
            words.append(r.choice(W.ADJECTIVES))
        else:
            words += [r.choice(W.PREPOSITIONS), *self._noun_phrase(r.random() < 0.5)[0]]
        words.append(".")
        return Example("agreement", tuple(words), (verb,), antecedent=subject_noun)

    def pronoun(self, it_share: float = 0.6) -> Example:
        """"anna saw the dog . it barked ." / "... . she smiled ." Two beings of different pronouns;
        the pronoun is "it" with probability ``it_share`` when one of them is an animal."""
        r = self.rng
        while True:
            (a, pa), (b, pb) = self._being(), self._being()
            if pa != pb:
                break
        words = [*a, r.choice(W.MEETING_VERBS), *b]
        if r.random() < 0.5:
            words += self._place()
        words.append(".")
        beings = [(a, pa, 0), (b, pb, len(a) + 1)]
        its = [x for x in beings if x[1] == "it"]
        if its and r.random() < it_share:
            chosen = its[0]
        else:
            chosen = r.choice([x for x in beings if x[1] != "it"] or beings)
        who, pron, start = chosen
        antecedent = start + len(who) - 1  # "dog" in "the dog", the name itself
        verb = W.ANIMAL_VERBS[who[-1]] if pron == "it" else W.PERSON_VERBS[pron]
        at = len(words)
        words += [pron, verb, "."]
        return Example("pronoun", tuple(words), (at + 1,), pronoun=at, antecedent=antecedent)

    def _story(self) -> list:
        r = self.rng
        form = r.randrange(4)
        a, b = r.sample(NAMES, 2)
        adj, noun = r.choice(W.ADJECTIVES), r.choice(SINGULARS)
        if form == 0:
            return [a, r.choice(W.MEETING_VERBS), b, *self._place(), "."]
        if form == 1:
            return [a, r.choice(W.FINDING_VERBS), article(adj), adj, noun, *self._place(), "."]
        if form == 2:
            return [a, r.choice(W.STORY_VERBS), b, article(adj), adj, noun, "."]
        return ["the", r.choice(ANIMALS), r.choice(W.MEETING_VERBS), a, *self._place(), "."]

    def copy(self) -> Example:
        """"tom met anna at the park . later tom met anna at the park ." Scored on the repeat's words
        after its first one."""
        first = self._story()
        words = first + ["later"] + first
        start = len(first) + 1
        return Example("copy", tuple(words), tuple(range(start + 1, len(words))))

    def recall(self) -> Example:
        """"anna has a red ball . tom has a blue kite . tom has a blue kite ." Two or three facts, then one
        of them again: scored on its adjective, noun and full stop."""
        r = self.rng
        names = r.sample(NAMES, r.choice((2, 3)))
        adjs = [r.choice(W.ADJECTIVES) for _ in names]
        facts = [[n, "has", article(a), a, r.choice(SINGULARS), "."] for n, a in zip(names, adjs)]
        words = [w for f in facts for w in f]
        asked = r.choice(facts)
        start = len(words)
        words += asked
        return Example("recall", tuple(words), (start + 3, start + 4, start + 5))

    def random_copy(self, lo: int = 4, hi: int = 10) -> Example:
        """A run of lo..hi random known words, then the same run again and a full stop. Scored on the
        repeat's words after its first one (the first cannot be known to start a repeat)."""
        r = self.rng
        run = [r.choice(RUN_WORDS) for _ in range(r.randint(lo, hi))]
        words = run + run + ["."]
        return Example("random_copy", tuple(words), tuple(range(len(run) + 1, 2 * len(run))))

    def example(self, kind: str) -> Example:
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}: expected one of {', '.join(KINDS)}")
        return getattr(self, kind)()

    def document(self, n_words: int) -> list[str]:
        """Random examples (kinds drawn with the weights of MIX) until there are at least n_words words."""
        kinds, weights = list(MIX), list(MIX.values())
        out: list[str] = []
        while len(out) < n_words:
            out += self.example(self.rng.choices(kinds, weights)[0]).words
        return out
