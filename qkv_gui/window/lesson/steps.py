"""The lesson steps: one Markdown file each in resources/lessons/, read in file-name order: the
numbered steps (``01-token.md`` ...), then the appendices (``appendix-*.md``, e.g. "Where do the
weights come from?", which uses the "Learn the weights" experiment).

    steps = load_steps()
    steps[2].title, steps[2].panel, steps[2].body
    steps[-1].appendix          # True: shown as "Appendix", not as step 13 of 12
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...system.resources import resource
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
    appendix: bool = False  # after the numbered steps ("appendix-*.md")


APPENDIX_PREFIX = "appendix-"


def lesson_files() -> list[Path]:
    """The numbered steps' files in order, then the appendices'."""
    folder = resource(*LESSON_FOLDER)
    numbered = sorted(p for p in folder.glob("*.md") if p.name[:1].isdigit())
    return numbered + sorted(folder.glob(f"{APPENDIX_PREFIX}*.md"))


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
            appendix=path.name.startswith(APPENDIX_PREFIX),
        ))
    return steps
