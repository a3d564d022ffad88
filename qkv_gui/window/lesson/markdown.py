"""A small Markdown-to-HTML converter for the lesson texts, with live placeholders.

Qt's rich text shows the result (QTextBrowser.setHtml). It understands just
what the lessons use, and nothing else:

    ---                      front matter (key: value lines), read by ``split_front_matter``
    # Title / ## Heading     headings ("## What", "## Why", "## Picture" get the step's colour)
    plain lines              paragraphs (consecutive lines join)
    - item                   bullet lists
    > **Label.** text        a side note in a tinted box
    ```  ...  ```            worked arithmetic in a box (monospace, wraps)
    Q: question / A: answer  a quick check; the answer stays hidden until revealed
    ::: name                 a live block drawn by the app (e.g. ``::: softmax-direction``)
    **bold**  *italic*  `code`  :query[q]  (role colours: x, query, key, value, output, weight)
    {name}                   a placeholder, filled from the live numbers; {{ and }} are literal braces

Placeholder values are inserted as plain text (HTML-escaped, never read as
Markdown); an unknown placeholder shows as a red marker instead of failing.
Colours come from a palette (``RenderOptions.colours``; default: the one in use).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

from qkv_engine import lesson_numbers

from ...look import style

ROLE_INLINE = re.compile(r":(x|query|key|value|output|weight)\[([^\]\n]*)\]")
BOLD = re.compile(r"\*\*(.+?)\*\*")
ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
MONO = "DejaVu Sans Mono, Consolas, Menlo, monospace"


def split_front_matter(text: str) -> tuple[dict, str]:
    """``(meta, body)``: the ``key: value`` lines between two ``---`` lines at the top, and the rest."""
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text
    meta: dict[str, str] = {}
    for end in range(1, len(lines)):
        line = lines[end]
        if line.strip() == "---":
            return meta, "\n".join(lines[end + 1:])
        if ":" in line:
            k, v = line.split(":", 1)
            meta[k.strip().lower()] = v.strip()
    return {}, text  # no closing line: treat everything as body


@dataclass
class RenderOptions:
    px: int = 16  # body text size in pixels
    role: str | None = None  # colour of the What / Why / Picture headings
    revealed: frozenset = frozenset()  # indices of the quick checks whose answer is shown
    reveal_all: bool = False
    colours: style.Palette | None = None  # the palette (None: the one in use)

    @property
    def palette(self) -> style.Palette:
        return self.colours or style.current()


def unknown_html(name: str, colours: style.Palette | None = None) -> str:
    p = colours or style.current()
    return (f'<span style="color:{p.error_ink}; background-color:{p.negative_bg}; font-weight:bold;">'
            f'\u27e8unknown placeholder: {html.escape(name)}\u27e9</span>')


def _ink(role: str | None, colours: style.Palette) -> str:
    return colours.ink.get(role or "", colours.foreground)


def inline(text: str, values: dict, colours: style.Palette | None = None) -> str:
    """One line of Markdown to HTML: escape, then code spans, bold, italic, role colours, placeholders."""
    p = colours or style.current()

    def unknown(name: str) -> str:
        return unknown_html(name, p)

    out = []
    for n, part in enumerate(text.split("`")):
        if n % 2 == 1:  # inside a code span
            out.append(f'<span style="font-family:{MONO};">'
                       + lesson_numbers.fill(html.escape(part, quote=False), values, unknown, _esc) + "</span>")
            continue
        s = html.escape(part, quote=False)
        s = BOLD.sub(r"<b>\1</b>", s)
        s = ITALIC.sub(r"<i>\1</i>", s)
        s = ROLE_INLINE.sub(lambda m: f'<b style="color:{_ink(m.group(1), p)};">{m.group(2)}</b>', s)
        out.append(lesson_numbers.fill(s, values, unknown, _esc))
    return "".join(out)


def _esc(v: str) -> str:
    return html.escape(v, quote=False).replace("\n", "<br/>")


def _box(inner: str, bg: str, edge: str, pad: int) -> str:
    return (f'<table width="100%" cellspacing="0" cellpadding="{pad}" border="1" '
            f'style="border-color:{edge}; border-style:solid; background-color:{bg}; margin-top:4px; '
            f'margin-bottom:8px;"><tr><td>{inner}</td></tr></table>')


def render(markdown: str, values: dict, options: RenderOptions | None = None, blocks: dict | None = None) -> str:
    """The HTML of a lesson body. ``blocks`` maps a ``::: name`` to a function returning its HTML."""
    o = options or RenderOptions()
    pal = o.palette
    blocks = blocks or {}
    px = o.px
    lines = markdown.replace("\r\n", "\n").split("\n")
    parts: list[str] = [f'<div style="font-size:{px}px; color:{pal.foreground};">']
    para: list[str] = []
    items: list[str] = []
    quote: list[str] = []
    checks = 0
    k = 0

    def flush_para():
        if para:
            parts.append(f'<p style="margin-top:0px; margin-bottom:{px // 2}px;">'
                         + inline(" ".join(para), values, pal) + "</p>")
            para.clear()

    def flush_items():
        if items:
            parts.append(f'<ul style="margin-top:0px; margin-bottom:{px // 2}px;">'
                         + "".join(f"<li>{inline(t, values, pal)}</li>" for t in items) + "</ul>")
            items.clear()

    def flush_quote():
        if quote:
            body = inline(" ".join(quote), values, pal)
            parts.append(_box(f'<span style="font-size:{max(10, round(px * 0.92))}px;">{body}</span>',
                              *pal.side_note, max(4, px // 2)))
            quote.clear()

    def flush_all():
        flush_para()
        flush_items()
        flush_quote()

    while k < len(lines):
        raw = lines[k]
        line = raw.strip()
        k += 1
        if line.startswith("```"):
            flush_all()
            code: list[str] = []
            while k < len(lines) and not lines[k].strip().startswith("```"):
                code.append(lines[k].rstrip())
                k += 1
            k += 1  # the closing fence
            text = "\n".join(code).strip("\n")
            filled = lesson_numbers.fill(html.escape(text, quote=False), values,
                                         lambda name: unknown_html(name, pal), _esc)
            filled = filled.replace("\n", "<br/>")
            parts.append(_box(f'<span style="font-family:{MONO}; font-size:{max(10, round(px * 0.9))}px; '
                              f'white-space:pre-wrap;">{filled}</span>', *pal.worked, max(4, px // 2)))
            continue
        if not line:
            flush_all()
            continue
        if line.startswith("#"):
            flush_all()
            level = len(line) - len(line.lstrip("#"))
            title = line[level:].strip()
            if level == 1:
                parts.append(f'<p style="font-size:{round(px * 1.45)}px; font-weight:bold; margin-top:0px; '
                             f'margin-bottom:{px // 2}px;">{inline(title, values, pal)}</p>')
            else:
                colour = _ink(o.role, pal) if title.lower() in ("what", "why", "picture") else pal.foreground
                size = round(px * (1.15 if level == 2 else 1.05))
                parts.append(f'<p style="font-size:{size}px; font-weight:bold; color:{colour}; '
                             f'margin-top:{px // 2}px; margin-bottom:{px // 4}px;">{inline(title, values, pal)}</p>')
            continue
        if line.startswith(":::"):
            flush_all()
            name = line[3:].strip()
            make = blocks.get(name)
            parts.append(make() if make else f"<p>{unknown_html('block ' + name, pal)}</p>")
            continue
        if line.startswith(">"):
            flush_para()
            flush_items()
            quote.append(line[1:].strip())
            continue
        if line.startswith("- ") or line.startswith("* "):
            flush_para()
            flush_quote()
            items.append(line[2:].strip())
            continue
        if line.startswith("Q:"):
            flush_all()
            question = [line[2:].strip()]
            answer: list[str] = []
            target = question
            while k < len(lines) and lines[k].strip():
                nxt = lines[k].strip()
                if nxt.startswith("A:"):
                    target = answer
                    nxt = nxt[2:].strip()
                target.append(nxt)
                k += 1
            parts.append(_check_html(checks, " ".join(question), " ".join(answer), values, o))
            checks += 1
            continue
        if items and raw.startswith("  "):  # continuation of a list item
            items[-1] += " " + line
            continue
        flush_items()
        flush_quote()
        para.append(line)
    flush_all()
    parts.append("</div>")
    return "".join(parts)


def _check_html(index: int, question: str, answer: str, values: dict, o: RenderOptions) -> str:
    px, pal = o.px, o.palette
    head = (f'<p style="margin-top:{px // 2}px; margin-bottom:{px // 4}px;"><b>{index + 1}.</b> '
            f"{inline(question, values, pal)}</p>")
    if o.reveal_all or index in o.revealed:
        body = (f'<b style="color:{pal.ink["value"]};">Answer:</b> {inline(answer, values, pal)} '
                f'&nbsp;<a href="hide:{index}">hide</a>')
        return head + _box(body, *pal.answer, max(4, px // 3))
    return head + (f'<p style="margin-top:0px; margin-bottom:{px // 2}px;">'
                   f'<a href="reveal:{index}">Show the answer \u25b8</a></p>')


def count_checks(markdown: str) -> int:
    return sum(1 for line in markdown.split("\n") if line.strip().startswith("Q:"))
