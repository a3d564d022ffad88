"""The model's own tokenizer, read from its folder with the ``tokenizers`` library (no network).

``tokenizer.json`` is used when present, with any padding and truncation it
carries switched off (MiniLM's pads every sentence to 128 tokens); the text is
cut at the model's ``max_tokens`` here, keeping BERT's ``[CLS]`` and ``[SEP]``, and
the number of tokens left out is reported. Without it, a BERT folder's
``vocab.txt`` or a GPT-2 folder's ``vocab.json`` and ``merges.txt`` build the
same tokenizer.

Tokens are shown as a person reads them: BERT's as they are (``[CLS]``, ``the``,
``##s``); byte-level pieces (GPT-2, Qwen2) decoded to text, with a space shown as "␣"
(not "Ġ"), a new line as "↵" and a tab as "⇥"; SentencePiece-style pieces (Llama's
``Metaspace``) with their "▁" shown as "␣" and a byte-fallback piece (``<0x0A>``) as the
character it makes (here "↵"; another control character as its picture, "␁"). A piece that holds only part
of a character shows its bytes (``\\xe6\\x9d``). Special tokens (``<s>``, ``[CLS]``) are shown as they are. Which
way applies is read from tokenizer.json (its pre-tokenizer and decoder); the model's own
post-processor adds what it says (BERT's ``[CLS]`` and ``[SEP]``, Llama's BOS ``<s>``).
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from ..errors import ModelError

SPACE, NEWLINE, TAB, RETURN = "\u2423", "\u21b5", "\u21e5", "\u240d"
#: Characters shown as a mark: the space, new line, tab and return as above; every other control character
#: (U+0000 to U+001F, U+007F) as its picture in Unicode's Control Pictures ("\u2401" for U+0001), as it would
#: otherwise be invisible on screen and is not allowed in an SVG file's text.
_VISIBLE = str.maketrans({**{chr(c): chr(0x2400 + c) for c in range(0x20)}, "\x7f": "\u2421",
                          " ": SPACE, "\n": NEWLINE, "\t": TAB, "\r": RETURN})
_BERT_SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
GPT2_END = "<|endoftext|>"
METASPACE = "\u2581"
_BYTE_PIECE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")
#: How pieces are shown: as they are, byte-level decoded, or SentencePiece-style (▁ and <0xNN>).
STYLES = ("plain", "byte_level", "metaspace")


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


def shown_metaspace(piece: str, byte_fallback: bool) -> str:
    """A SentencePiece-style piece as readable text: "▁" as "␣", ``<0xNN>`` as its byte's character."""
    match = _BYTE_PIECE.match(piece) if byte_fallback else None
    if match:
        return bytes([int(match.group(1), 16)]).decode("utf-8", errors="backslashreplace").translate(_VISIBLE)
    return piece.replace(METASPACE, SPACE).translate(_VISIBLE)


def _types(node) -> set:
    """Every "type" named in a tokenizer.json component (Sequence components included)."""
    if isinstance(node, dict):
        found = {node["type"]} if isinstance(node.get("type"), str) else set()
        for value in node.values():
            found |= _types(value)
        return found
    if isinstance(node, list):
        return set().union(*(_types(v) for v in node)) if node else set()
    return set()


def piece_style(doc: dict) -> tuple[str, bool]:
    """(style, byte_fallback) of a parsed tokenizer.json: see STYLES."""
    kinds = _types(doc.get("pre_tokenizer")) | _types(doc.get("decoder"))
    model = doc.get("model") if isinstance(doc.get("model"), dict) else {}
    byte_fallback = bool(model.get("byte_fallback", False))
    if "ByteLevel" in kinds:
        return "byte_level", byte_fallback
    if "Metaspace" in kinds or METASPACE in json.dumps(doc.get("decoder")) or byte_fallback:
        return "metaspace", byte_fallback
    return "plain", byte_fallback


class ModelTokenizer:
    """Splits text the model's way and cuts it at ``max_tokens``."""

    def __init__(self, tokenizer, byte_level, max_tokens: int, byte_fallback: bool = False):
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        # ``byte_level`` was a bool before SentencePiece-style pieces: True is "byte_level", False "plain"
        self.style = byte_level if isinstance(byte_level, str) else ("byte_level" if byte_level else "plain")
        self.byte_level = self.style == "byte_level"
        self.byte_fallback = byte_fallback
        self.max_tokens = max_tokens
        self.n_special = tokenizer.num_special_tokens_to_add(False)
        self.specials = {t.content for t in tokenizer.get_added_tokens_decoder().values() if t.special}
        self._remembered = functools.lru_cache(maxsize=8)(self._encode)

    def show(self, piece: str) -> str:
        """One piece as this app shows it (see the module docstring)."""
        if self.style == "byte_level" and piece not in self.specials:
            return shown_byte_level(piece)
        if self.style == "metaspace" and (piece not in self.specials or _BYTE_PIECE.match(piece)):
            return shown_metaspace(piece, self.byte_fallback)
        return piece

    def shown(self, token_id: int) -> str:
        """Token number ``token_id`` as shown; "[id N]" for a number the tokenizer has no token for (a
        model's output may have more rows than its tokenizer has tokens: Qwen2.5 151,936 for 151,665)."""
        piece = self.tokenizer.id_to_token(int(token_id))
        return f"[id {int(token_id)}]" if piece is None else self.show(piece)

    def __call__(self, text: str) -> tuple[tuple, tuple, tuple, int]:
        """(tokens as shown, ids, (start, end) spans in ``text``, how many tokens were left out). The last few
        sentences' answers are kept: a what-if edit runs the model again on the same sentence."""
        if not isinstance(text, str):
            raise ModelError("text: expected a string")
        return self._remembered(text)

    def _encode(self, text: str) -> tuple[tuple, tuple, tuple, int]:
        enc = self.tokenizer.encode(text, add_special_tokens=False)
        room = max(0, self.max_tokens - self.n_special)
        dropped = max(0, len(enc.ids) - room)
        if dropped:
            enc.truncate(room)
        enc = self.tokenizer.post_process(enc)  # BERT: [CLS] ... [SEP]
        shown = tuple(self.show(p) for p in enc.tokens)
        spans = tuple((int(a), int(b)) for a, b in enc.offsets)
        return shown, tuple(int(i) for i in enc.ids), spans, dropped


def load_tokenizer(folder: Path, family: str, max_tokens: int) -> ModelTokenizer:
    """The tokenizer of ``folder`` (see the module docstring) or a ModelError saying what is missing."""
    from tokenizers import Tokenizer

    path = folder / "tokenizer.json"
    style, byte_fallback = ("byte_level" if family == "gpt2" else "plain"), False
    if path.is_file():
        try:
            tok = Tokenizer.from_file(str(path))
            style, byte_fallback = piece_style(json.loads(path.read_text(encoding="utf-8")))
        except Exception as exc:  # the library raises plain Exceptions for a damaged file
            detail = " ".join(str(exc).split())[:100]
            raise ModelError(f"tokenizer.json in {folder} cannot be read ({detail})") from None
    elif family == "llama":
        raise ModelError(f"No tokenizer in {folder}: expected tokenizer.json")
    elif family == "bert" and (folder / "vocab.txt").is_file():
        tok = _wordpiece(folder)
    elif family == "gpt2" and (folder / "vocab.json").is_file() and (folder / "merges.txt").is_file():
        tok = _byte_level_bpe(folder)
    else:
        other = "vocab.txt" if family == "bert" else "vocab.json and merges.txt"
        raise ModelError(f"No tokenizer in {folder}: expected tokenizer.json (or {other})")
    return ModelTokenizer(tok, style, max_tokens, byte_fallback)


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
