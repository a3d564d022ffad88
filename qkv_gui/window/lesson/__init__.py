"""Classroom lesson mode: nine steps, the summary, a plain-words retelling and quick checks,
told with the numbers on screen; exercises; presenter mode.

    lesson = LessonController(session, dock_host, grid, grid_scroll, panel_actions, experiments)  # the dock, hidden
    lesson.menu                      # and the Lesson menu, which the main window puts in its bar
    lesson.enter(); lesson.go(4)
"""
from __future__ import annotations

from .controller import LessonController

__all__ = ["LessonController"]
