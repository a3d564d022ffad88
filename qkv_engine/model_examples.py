"""Examples that open the model the app ships on a sentence, with the head to look at chosen.

    example = model_examples.get("model-it")
    view = example.view(trace.tokens)      # {"layer", "head", "query", "key"}: what Session.open_model takes

The heads are the ones the model card names (``resources/models/qkv-tiny-llama/MODEL_CARD.md``); the tests
check that each example's head gives its key the most weight from its query, and that the model's next word is
the one the note promises. Layers and heads count from 0 here; the notes speak as the app does, from 1.
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import ScenarioError, by_name


@dataclass(frozen=True)
class ModelExample:
    name: str  # e.g. "model-it"
    title: str  # as the preset menu shows it
    text: str  # the sentence, in words the model knows
    layer: int  # the head to look at (from 0)
    head: int
    query: str  # the token that looks: its last occurrence
    key: str  # the token it should look at: its first occurrence before the query
    next_word: str  # the model's most likely next word after the text
    note: str  # for students: what to look at (paragraphs split by newlines)

    def view(self, tokens) -> dict:
        """Layer, head and the selected pair (query, key) for the tokens the model made of ``text``."""
        tokens = list(tokens)
        if self.query not in tokens:
            raise ScenarioError(f"example {self.name}: '{self.query}' is not among the tokens")
        query = len(tokens) - 1 - tokens[::-1].index(self.query)
        if self.key not in tokens[:query]:
            raise ScenarioError(f"example {self.name}: '{self.key}' does not come before '{self.query}'")
        return {"layer": self.layer, "head": self.head, "query": query, "key": tokens.index(self.key)}


EXAMPLES = (
    ModelExample(
        name="model-it", title="Who is 'it'? \u2014 a trained model",
        text="the dog saw anna in the park . it", layer=3, head=5, query="it", key="dog", next_word="barked",
        note=("A real model, trained by the project: it learned that each animal has its own verb.\n"
              "Look: layer 4, head 6. The row of 'it' gives 'dog' almost all the weight.\n"
              "Why: the next word depends on who 'it' is. This head fetches the animal's value, and the model "
              "then says 'barked'.\n"
              "Try: type 'cat' instead of 'dog'. The head still finds the animal, and the guess becomes the cat's verb."),
    ),
    ModelExample(
        name="model-copy", title="Copying \u2014 a trained model",
        text="tom met anna at the park . later tom met", layer=3, head=5, query="met", key="anna",
        next_word="anna",
        note=("The model has seen 'tom met anna' before. Now 'tom met' comes again.\n"
              "Look: layer 4, head 6. The last 'met' looks at 'anna', the word that came after 'met' last time.\n"
              "Why: this is an induction head. It copies: what followed last time is the best guess now.\n"
              "Try: change 'anna' to 'sara' in the first sentence. The head and the guess follow.\n"
              "Then knock this head out (Trained model box). The model is no longer sure of 'anna': "
              "the prediction panel shows how far it falls."),
    ),
    ModelExample(
        name="model-agreement", title="Agreement \u2014 a trained model",
        text="the keys to the old cabinet", layer=3, head=5, query="cabinet", key="keys", next_word="are",
        note=("The verb must agree with 'keys' (plural), not with the nearer 'cabinet'.\n"
              "Look: layer 4, head 6. At 'cabinet' the head looks back at 'keys'.\n"
              "Why: the next word is 'are' because the subject is plural. The head brings 'keys' to the place "
              "where the verb is guessed.\n"
              "Try: 'the key to the old cabinets'. Now the guess is 'is'."),
    ),
)
_BY_NAME = {e.name: e for e in EXAMPLES}


def names() -> list[str]:
    return list(_BY_NAME)


def get(name: str) -> ModelExample:
    return by_name(_BY_NAME, name, "model example")


#: More sentences of the built-in model's grammar, for labelling its heads over several sentences.
BUILTIN_MORE = ("anna saw the dog . she", "anna has a red ball . tom has a blue kite . tom has a",
                "the key to the old cabinets", "red ball blue kite old dog red ball blue kite")

#: Most sentences "labels over several sentences" takes, and most characters in one.
MAX_SENTENCES, MAX_SENTENCE_CHARS = 40, 400


def example_sentences(model_name: str) -> list[str]:
    """Sentences to label a model's heads over: the built-in model's own examples (in words it knows); for any
    other model the sentences of the designed examples."""
    from . import presets
    from .models.builtin import BUILTIN_NAME

    if model_name == BUILTIN_NAME:
        return [e.text for e in EXAMPLES] + list(BUILTIN_MORE)
    return [presets.load(p.name).text for p in presets.all_presets() if p.designed]


def sentence_list(typed: str) -> list[str]:
    """The sentences of a typed list, one a line (blank lines left out). Too many, or a line too long, is
    refused with what the limit is."""
    lines = [line.strip() for line in str(typed).splitlines()]
    lines = [line for line in lines if line]
    if not lines:
        raise ScenarioError("type at least one sentence, one a line")
    if len(lines) > MAX_SENTENCES:
        raise ScenarioError(f"{len(lines)} sentences: at most {MAX_SENTENCES}, one a line")
    long = next((i for i, line in enumerate(lines) if len(line) > MAX_SENTENCE_CHARS), None)
    if long is not None:
        raise ScenarioError(f"sentence {long + 1} has {len(lines[long])} characters: at most {MAX_SENTENCE_CHARS}")
    return lines
