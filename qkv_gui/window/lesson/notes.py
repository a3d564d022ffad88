"""Live blocks of the lesson text that come from the app, not from the engine's numbers:

    ::: example-note        "About this example": the note of the designed example open now (nothing otherwise)
    ::: open-experiment     a link that opens the step's experiment (e.g. "Learn the weights")
    ::: model-examples      links that open the examples with the built-in model
"""
from __future__ import annotations

import html

from qkv_engine import model_examples

from ...look import style
from ...editors.example_note import designed_preset, note_html
from .markdown import _box
from ...panels import catalog


def example_note_html(session, px: int, colours: style.Palette | None = None) -> str:
    """The designed example's note in a side-note box (in ``colours``, default: the palette in use), or ""
    when no designed example is open."""
    preset = designed_preset(session)
    if preset is None:
        return ""
    title = f'<p style="margin-top:0px;"><b>About this example: {html.escape(preset.title)}</b></p>'
    body = note_html(preset.note).replace("<p>", f'<p style="margin-top:0px; margin-bottom:{px // 3}px;">')
    return _box(f'<span style="font-size:{max(10, round(px * 0.92))}px;">{title}{body}</span>',
                *(colours or style.current()).side_note, max(4, px // 2))


def open_experiment_html(panel: str | None, px: int) -> str:
    """A link that opens the experiment whose panel is ``panel`` (the controller follows "open:<panel>")."""
    entry = catalog.by_object_name(panel)
    if entry is None or entry not in catalog.EXPERIMENTS:
        return ""
    return (f'<p style="margin-top:0px; margin-bottom:{px // 2}px;"><a href="open:{html.escape(panel)}">'
            f"\u25b6 Open the experiment \u201c{html.escape(entry.menu_text)}\u201d</a></p>")


def model_examples_html(px: int) -> str:
    """Links that open the examples with the built-in model (the controller follows "example:<name>")."""
    links = "".join(f'<p style="margin-top:0px; margin-bottom:{px // 2}px;"><a href="example:{html.escape(e.name)}">'
                    f"\u25b6 Open \u201c{html.escape(e.title)}\u201d</a></p>" for e in model_examples.EXAMPLES)
    return links
