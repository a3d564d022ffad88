"""MODEL_CARD.md of the built-in model, written from training.json and evaluation.json beside the weights.

Every number in the card comes from those two files, so the card, the files and the tests that
reproduce the numbers never disagree.
"""
from __future__ import annotations

from .grammar import MIX
from .measure import ACCURACIES, TARGETS
from . import words as W

TOLERANCE = 0.05  # how far the tests may find a head's mean weight from the card's (float16 vs float32, etc.)

_WHAT = {
    "agreement": "`is` or `are` after a subject with a distractor noun of the other number",
    "pronoun_it": "the animal's own verb after `it` (`barked` for a dog)",
    "pronoun_person": "`smiled` after `she`, `laughed` after `he`",
    "copy": "a story repeated after `later`, from its second word on",
    "recall": "`tom has a` -> the adjective, noun and full stop of Tom's earlier sentence",
    "random_copy": "a repeated run of 4 to 10 random known words, from its second word on",
}
_HEAD_WHAT = {
    "previous_token": ("previous-token head", "each word looks at the word just before it",
                       "mean weight on the previous token, all held-out sentences"),
    "induction": ("induction (copying) head", "a repeated word looks at the word that came after it last time",
                  "mean weight on that word, repeated runs of random words"),
    "it_antecedent": ("\"it\" head", "`it` looks at the animal it stands for",
                      "mean weight from `it` on the animal noun, held-out pronoun sentences"),
    "person_antecedent": ("\"she\"/\"he\" head", "`she` or `he` looks at the name it stands for",
                          "mean weight from the pronoun on the name"),
    "subject": ("subject head", "before `is`/`are`, the distractor noun looks back at the subject noun",
                "mean weight from `cabinet` on `keys` in \"the keys to the old cabinet are\", held-out sentences"),
}


def alike(evaluation: dict, kind: str, within: float = 0.1) -> list[tuple[int, int]]:
    """The other heads whose mean weight for ``kind`` is within ``within`` of the named head's."""
    best = evaluation["best_heads"][kind]
    grid = evaluation["heads"][kind]
    return [(layer, head) for layer, row in enumerate(grid) for head, w in enumerate(row)
            if (layer, head) != tuple(best[:2]) and w >= best[2] - within]


def named_heads(evaluation: dict) -> dict:
    """The heads the card names: kind -> {layer, head, weight} (the best head of each score)."""
    return {k: dict(zip(("layer", "head", "weight"), v)) for k, v in evaluation["best_heads"].items()}


def knock_section(evaluation: dict) -> str:
    """The knock-out table: the accuracies with the heads of one job switched off."""
    if not evaluation.get("knock_outs"):
        return ""
    acc = evaluation["accuracy"]
    lines = ["### Knocking heads out", "",
             "The app can knock a head out (its output becomes zero). With the heads of one job knocked out, "
             "the accuracies fall:", "",
             "| knocked out | " + " | ".join(ACCURACIES) + " |", "| --- |" + " --- |" * len(ACCURACIES),
             "| nothing | " + " | ".join(f"{acc[k]:.1%}" for k in ACCURACIES) + " |"]
    for ko in evaluation["knock_outs"]:
        heads = ", ".join(f"{layer}.{head}" for layer, head in ko["heads"])
        title = "the named induction head alone," if ko["job"] == "induction_alone" else _HEAD_WHAT[ko["job"]][0] + "s"
        lines.append(f"| {title} {heads} | " + " | ".join(f"{ko['accuracy'][k]:.1%}" for k in ACCURACIES) + " |")
    lines += ["", "Heads are written layer.head."]
    demo = evaluation.get("copy_demo")
    if demo:
        (layer, head, left), *rest = demo["knocked"]
        lines += ["", f"One head alone: after \"{demo['text']}\" the model says `{demo['word']}` with probability "
                      f"{demo['p']:.2f}. With layer {layer} head {head} knocked out, `{demo['word']}` falls to {left:.2f}. "
                      "The next heads that matter most for it: "
                      + ", ".join(f"{la}.{he} (to {le:.2f})" for la, he, le in rest) + "."]
    return "\n".join(lines)


def quiet_heads(training: dict, below: float = 0.05) -> list[tuple[int, int]]:
    """The heads whose share of the output projection the second stage brought below ``below``."""
    shares = training.get("gather", {}).get("head_shares_after", [])
    return [(layer, head) for layer, row in enumerate(shares) for head, v in enumerate(row) if v < below]


def gather_section(training: dict) -> str:
    g = training.get("gather")
    if not g:
        return ""
    r = g["recipe"]
    quiet = ", ".join(f"{layer}.{head}" for layer, head in quiet_heads(training)) or "none"
    return f"""
Second stage: gathering each job into fewer heads.
- After the first stage, several heads often did the same job. Then knocking one out changed nothing, because its neighbours covered for it.
- So training goes on for {r['steps']} more steps (seed {r['seed']}, learning rate {r['lr']} down to 0 on a cosine, no weight decay) with a penalty added to the loss: {r['penalty']} times the sum, over all heads, of the square root of the size of the head's share of the output projection W^O.
- The square root makes it cheaper to keep one big head than several small ones, so heads that only repeat another's work fade away.
- The steps are fixed, not timed, so this stage comes out the same on any machine. It took {g['seconds'] / 60:.1f} minutes here. Final training loss {g['final_loss']}.
- Heads whose share fell below 0.05 (their output is almost nothing): {quiet}. Their attention still shows in the app, but knocking them out changes nothing.
"""


def model_card(name: str, training: dict, evaluation: dict, n_words: int) -> str:
    shape, recipe = training["shape"], training["recipe"]
    acc = evaluation["accuracy"]
    heads = named_heads(evaluation)
    size_mb = evaluation["weights_bytes"] / 1e6
    minutes = training["train_seconds"] / 60
    forward = ("the app's own numpy forward" if evaluation["backend"] == "numpy"
               else "the transformers library (torch), not yet the app's own forward")
    rows = []
    for k in ACCURACIES:
        target = f"{TARGETS[k]:.0%}" if k in TARGETS else "none"
        rows.append(f"| {k} | {_WHAT[k]} | {acc[k]:.1%} | {target} | {evaluation['scored_words'][k]} |")
    head_rows = []
    for k, (title, does, how) in _HEAD_WHAT.items():
        h = heads[k]
        others = ", ".join(f"layer {layer} head {head}" for layer, head in alike(evaluation, k)) or "none"
        head_rows.append(f"| layer {h['layer']} head {h['head']} | {title}: {does} | {h['weight']:.2f} | {others} "
                         f"| {how} |")
    mix = ", ".join(f"{k} {v:.0%}" for k, v in MIX.items())
    return f"""# {name}

A tiny language model that QKV Visualizer ships, so that a class can open a real trained model with no network.
The project trained it itself, on sentences from its own grammar.
Its heads show known attention patterns: a previous-token head, an induction head, and heads that find what a pronoun stands for.

## Architecture

- A decoder of the Llama family, saved by the transformers library's `LlamaForCausalLM`.
- {shape['num_hidden_layers']} layers, d_model {shape['hidden_size']}, {shape['num_attention_heads']} query heads of {shape['head_dim']} numbers.
- The query heads share {shape['num_key_value_heads']} key/value heads (grouped-query attention): heads 0 to 3 use key/value head 0, heads 4 to 7 use key/value head 1.
- Rotary positions (theta 10000), RMSNorm, a SwiGLU feed-forward block of {shape['intermediate_size']}.
- Up to {shape['max_position_embeddings']} tokens; it was trained on texts of {recipe['seq_len']} tokens.
- {training['parameters']:,} parameters, stored in float16: `model.safetensors` is {size_mb:.1f} MB.
- Layers and heads count from 0 here, as in the engine and the tools. The app's Trained model box counts from 1: layer 3 head 5 here is layer 4, head 6 there.

## Tokens

- One token per whole word: a WordLevel `tokenizer.json` of {n_words} tokens.
- The words are {n_words - 2 - len(W.PUNCTUATION)} lower-case words, the marks `{' '.join(W.PUNCTUATION)}`, `[UNK]` and `[BOS]`.
- Text is lower-cased. Punctuation is split from the words.
- A word the model does not know becomes `[UNK]`.
- `[BOS]` is put in front of every text, so even the first word has a token before it to look at.

## The grammar

The sentences come from `tools/builtin_model/grammar.py`. The words were written for this project, so there is no licence question.

- Agreement: "the keys to the old cabinet are new ." The verb agrees with the first noun, not the nearest one.
- Pronouns: "the dog saw anna in the park . it barked ." Each animal has its own verb, so the word after `it` depends on which animal `it` is. After `she` comes `smiled`, after `he` comes `laughed`.
- Copying: "tom met anna at the park . later tom met anna at the park ."
- Recall: "anna has a red ball . tom has a blue kite . tom has a blue kite ."
- Random runs: a run of 4 to 10 random known words, then the same run again. This teaches copying of any words, not only the templates.

A training text is `[BOS]` and examples strung together, {recipe['seq_len']} tokens in all. The kinds are mixed as: {mix}.

## Training

- Script: `tools/train_builtin_model.py` (torch, from the optional extra: `pip install ".[train]"`).
- Seed {training['seed']}. The generator makes each batch as it goes, so the corpus is {training['tokens_seen']:,} tokens ({training['steps_done']} steps of {recipe['batch']} texts of {recipe['seq_len']} tokens).
- AdamW, peak learning rate {recipe['lr']}, {recipe['warmup']} warm-up steps, then a cosine down to {recipe['final_lr_share']:.0%} of the peak; weight decay {recipe['weight_decay']}; gradients clipped at {recipe['clip']}.
- {training['threads']} CPU threads, {minutes:.1f} minutes. Final training loss {training['final_loss']}.
- The learning rate's cosine follows the steps or the clock, whichever is further along, so the run ends inside its time budget. On a slower or busier machine it takes fewer steps, and the model comes out a little different.
- torch {training['torch']}.
{gather_section(training)}
## Measured

On {evaluation['per_kind']} held-out examples of each kind, made with seed {evaluation['seed']} (never used in training), run through {forward} from the float16 weights.
`tools/evaluate_builtin_model.py` prints these numbers; `tests/engine/test_builtin_model.py` checks them.
A word counts as right when it is the model's top prediction.

| phenomenon | what is predicted | accuracy | target | words scored |
| --- | --- | --- | --- | --- |
{chr(10).join(rows)}

## Heads

Each number is a mean attention weight (0 to 1). "Also" lists the other heads within 0.1 of the named one.
The tests measure the same heads again and find the same weights, within {TOLERANCE}.
`tools/evaluate_builtin_model.py` prints every head's numbers.

| head | what it does | weight | also | measured on |
| --- | --- | --- | --- | --- |
{chr(10).join(head_rows)}

{knock_section(evaluation)}

Try it: type "the dog saw anna . it" and look at layer {heads['it_antecedent']['layer']} head {heads['it_antecedent']['head']}: `it` looks at `dog`, and the top prediction is `barked`.
Type a run of words twice to see the induction head.
Type "the keys to the old cabinet" and look at layer {heads['subject']['layer']} head {heads['subject']['head']}: `cabinet` looks at `keys`, and the top prediction is `are`.

## Limits

- It knows only its grammar's words and sentence shapes. Anything else is `[UNK]` or nonsense.
- It is a teaching model. It is not a language model for real text.

## Licence

MIT, as the rest of QKV Visualizer. The grammar, the words and the weights were all made by the project.
"""
