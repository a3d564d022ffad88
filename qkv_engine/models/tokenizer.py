"""The model's own tokenizer, read from its folder with the ``tokenizers`` library (no network).

``tokenizer.json`` is used when present, with any padding and truncation it
carries switched off (MiniLM's pads every sentence to 128 tokens); the text is
cut at the model's ``max_tokens`` here, keeping BERT's ``[CLS]`` and ``[SEP]``, and
the number of tokens left out is reported. Without it, a BERT folder's
``vocab.txt`` or a GPT-2 folder's ``vocab.json`` and ``merges.txt`` build the
same tokenizer.

Tokens are shown as a person reads them: BERT's as they are (``[CLS]``, ``the``,
``##s``); GPT-2's byte-level pieces decoded to text, with a space shown as "␣"
(not "Ġ"), a new line as "↵" and a tab as "⇥". A piece that holds only part of a
character shows its bytes (``\\xe6\\x9d``).
"""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import ModelError

SPACE, NEWLINE, TAB, RETURN = "\u2423", "\u21b5", "\u21e5", "\u240d"
_VISIBLE = str.maketrans({" ": SPACE, "\n": NEWLINE, "\t": TAB, "\r": RETURN})
_BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
GPT2_END = "<|endoftext|>"


def _byte_decoder() -> dict:
    """GPT-2's byte-level alphabet backwards: each of its 256 printable characters -> the byte it stands for."""
    printable = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1))
                 + list(range(ord("\u00ae"), ord("\u00ff") + 1)))
    chars = printable[:]
    extra = 0
    for b in range(256):
        if b not in printable:
            printable.append(b)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars)}


_BYTES = _byte_decoder()


def shown_byte_level(piece: str) -> str:
    """A byte-level BPE piece as readable text (see the module docstring)."""
    raw = bytearray()
    for ch in piece:
        if ch in _BYTES:
            raw.append(_BYTES[ch])
        else:  # not from the byte alphabet (an added token): keep it as it is
            raw.extend(ch.encode("utf-8"))
    return raw.decode("utf-8", errors="backslashreplace").translate(_VISIBLE)


class ModelTokenizer:
    """Splits text the model's way and cuts it at ``max_tokens``."""

    def __init__(self, tokenizer, byte_level: bool, max_tokens: int):
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.byte_level = byte_level
        self.max_tokens = max_tokens
        self.n_special = tokenizer.num_special_tokens_to_add(False)

    def __call__(self, text: str) -> tuple[tuple, tuple, tuple, int]:
        """(tokens as shown, ids, (start, end) spans in ``text``, how many tokens were left out)."""
        if not isinstance(text, str):
            raise ModelError("text: expected a string")
        enc = self.tokenizer.encode(text, add_special_tokens=False)
        room = max(0, self.max_tokens - self.n_special)
        dropped = max(0, len(enc.ids) - room)
        if dropped:
            enc.truncate(room)
        enc = self.tokenizer.post_process(enc)  # BERT: [CLS] ... [SEP]
        pieces = enc.tokens
        shown = tuple(shown_byte_level(p) for p in pieces) if self.byte_level else tuple(pieces)
        spans = tuple((int(a), int(b)) for a, b in enc.offsets)
        return shown, tuple(int(i) for i in enc.ids), spans, dropped


def load_tokenizer(folder: Path, family: str, max_tokens: int) -> ModelTokenizer:
    """The tokenizer of ``folder`` (see the module docstring) or a ModelError saying what is missing."""
    from tokenizers import Tokenizer

    path = folder / "tokenizer.json"
    if path.is_file():
        try:
            tok = Tokenizer.from_file(str(path))
        except Exception as exc:  # the library raises plain Exceptions for a damaged file
            detail = " ".join(str(exc).split())[:100]
            raise ModelError(f"tokenizer.json in {folder} cannot be read ({detail})") from None
    elif family == "bert" and (folder / "vocab.txt").is_file():
        tok = _wordpiece(folder)
    elif family == "gpt2" and (folder / "vocab.json").is_file() and (folder / "merges.txt").is_file():
        tok = _byte_level_bpe(folder)
    else:
        other = "vocab.txt" if family == "bert" else "vocab.json and merges.txt"
        raise ModelError(f"No tokenizer in {folder}: expected tokenizer.json (or {other})")
    return ModelTokenizer(tok, family == "gpt2", max_tokens)


def _tokenizer_config(folder: Path) -> dict:
    try:
        doc = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _wordpiece(folder: Path):
    """BERT's WordPiece tokenizer from vocab.txt, as the transformers library builds it."""
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    settings = _tokenizer_config(folder)
    lowercase = bool(settings.get("do_lower_case", True))
    try:
        vocab = models.WordPiece.read_file(str(folder / "vocab.txt"))
        tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    except Exception as exc:
        raise ModelError(f"vocab.txt in {folder} cannot be read ({' '.join(str(exc).split())[:100]})") from None
    for needed in ("[CLS]", "[SEP]"):
        if needed not in vocab:
            raise ModelError(f"vocab.txt in {folder} has no {needed} token: it is not a BERT vocabulary")
    tok.normalizer = normalizers.BertNormalizer(
        clean_text=True, handle_chinese_chars=bool(settings.get("tokenize_chinese_chars", True)),
        strip_accents=settings.get("strip_accents"), lowercase=lowercase)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tok.decoder = decoders.WordPiece(prefix="##")
    tok.add_special_tokens([t for t in _BERT_SPECIALS if t in vocab])
    return tok


def _byte_level_bpe(folder: Path):
    """GPT-2's byte-level BPE tokenizer from vocab.json and merges.txt."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    try:
        bpe = models.BPE.from_file(str(folder / "vocab.json"), str(folder / "merges.txt"))
    except Exception as exc:
        detail = " ".join(str(exc).split())[:100]
        raise ModelError(f"vocab.json or merges.txt in {folder} cannot be read ({detail})") from None
    tok = Tokenizer(bpe)
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    if tok.token_to_id(GPT2_END) is not None:
        tok.add_special_tokens([GPT2_END])
    return tok
