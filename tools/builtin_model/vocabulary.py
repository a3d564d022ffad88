"""The built-in model's tokenizer: one token per whole word, built with the ``tokenizers`` library.

    [UNK] 0   any word the grammar never writes
    [BOS] 1   added in front of every text by the post-processor (the app's tokenizer path adds it too)
    then every word and punctuation mark of the grammar, sorted

The text is lower-cased, split at white space, and punctuation is split from the words
("Anna." -> "anna", "."), so a typed sentence reads as the grammar writes it.
"""
from __future__ import annotations

from .grammar import all_words

UNK, BOS = "[UNK]", "[BOS]"
SPECIALS = (UNK, BOS)


def vocabulary() -> dict[str, int]:
    """Token -> id: the special tokens first, then all_words() in order."""
    return {tok: i for i, tok in enumerate([*SPECIALS, *all_words()])}


def build_tokenizer():
    """The WordLevel tokenizer of vocabulary(), ready to save as tokenizer.json."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    vocab = vocabulary()
    tok = Tokenizer(models.WordLevel(vocab, unk_token=UNK))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A $B:1", special_tokens=[(BOS, vocab[BOS])])
    tok.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # joins the words with spaces
    tok.add_special_tokens(list(SPECIALS))
    return tok


def encode_words(words, vocab: dict[str, int]) -> list[int]:
    """Ids of a grammar's words with [BOS] in front: what the tokenizer gives for " ".join(words)."""
    return [vocab[BOS], *(vocab[w] for w in words)]
