"""The lesson steps: one Markdown file each in resources/lessons/, read in file-name order.

    steps = load_steps()
    steps[2].title, steps[2].panel, steps[2].body
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..resources import resource
from .markdown import split_front_matter

LESSON_FOLDER = ("lessons",)


@dataclass(frozen=True)
class Step:
    number: int  # 1-based position in the lesson
    slug: str  # the file name without ".md", e.g. "03-query"
    title: str
    panel: str | None  # objectName of the panel this step brings forward
    role: str | None  # colour of the headings
    exercise: str  # default exercise kind
    body: str  # Markdown with placeholders


def lesson_files() -> list[Path]:
    folder = resource(*LESSON_FOLDER)
    return sorted(p for p in folder.glob("*.md") if p.name[:1].isdigit())


def load_steps() -> list[Step]:
    steps = []
    for n, path in enumerate(lesson_files(), start=1):
        meta, body = split_front_matter(path.read_text(encoding="utf-8"))
        steps.append(Step(
            number=n,
            slug=path.stem,
            title=meta.get("title") or path.stem,
            panel=meta.get("panel") or None,
            role=meta.get("role") or None,
            exercise=meta.get("exercise") or "q",
            body=body,
        ))
    return steps
