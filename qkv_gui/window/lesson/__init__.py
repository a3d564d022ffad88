"""Classroom lesson mode: nine steps, the summary, a plain-words retelling and quick checks,
told with the numbers on screen; exercises; presenter mode.

    window.lesson = LessonController(window)   # made by the main window: the dock (hidden until used)
    window.lesson.menu                         # and the Lesson menu, which the window puts in its bar
    window.lesson.enter(); window.lesson.go(4)
"""
from __future__ import annotations

from .controller import LessonController

__all__ = ["LessonController"]
