"""Classroom lesson mode: nine steps, the summary, a plain-words retelling and quick checks,
told with the numbers on screen; exercises; presenter mode.

    from qkv_gui.lesson import install_lesson
    install_lesson(window)          # adds the Lesson dock and menu, window.lesson, window.enter_lesson_mode()
    window.enter_lesson_mode()
"""
from __future__ import annotations

from PySide6 import QtGui

from .controller import LessonController


def install_lesson(window) -> LessonController:
    """Give ``window`` its lesson: the dock (hidden until used), the Lesson menu and its actions."""
    lesson = LessonController(window)
    window.lesson = lesson
    window.enter_lesson_mode = lesson.enter
    window.leave_lesson_mode = lesson.leave

    menu = window.menuBar().addMenu("&Lesson")
    menu.setObjectName("lessonMenu")

    def action(text, slot, shortcut=None, checkable=False, name=None):
        act = menu.addAction(text)
        if shortcut:
            act.setShortcut(QtGui.QKeySequence(shortcut))
        act.setCheckable(checkable)
        if name:
            act.setObjectName(name)
        act.triggered.connect(slot)
        return act

    lesson.lessonAction = action("&Lesson mode", lambda on: lesson.enter() if on else lesson.leave(),
                                 "Ctrl+L", True, "lessonModeAction")
    lesson.modeChanged.connect(lesson.lessonAction.setChecked)
    menu.addSeparator()
    # The arrow / space / page keys are handled by the lesson itself (only when no box is being typed in),
    # so these items show them without taking them as shortcuts.
    action("&Next step\t\u2192  Space  PgDn", lambda: (lesson.enter(), lesson.next()), name="lessonNextAction")
    action("&Previous step\t\u2190  PgUp", lambda: (lesson.enter(), lesson.previous()), name="lessonPreviousAction")
    menu.addSeparator()
    lesson.exerciseAction = action("&Exercise: hide a number", lambda on: lesson.set_exercise(on), "Ctrl+Shift+E", True,
                                   "lessonExerciseAction")
    lesson.pane.exerciseButton.toggled.connect(lesson.exerciseAction.setChecked)
    lesson.presenterAction = action(
        "&Presenter mode (Esc leaves)",
        lambda on: lesson.enter_presenter() if on else lesson.exit_presenter(), None, True, "lessonPresenterAction")
    lesson.presenterAction.setShortcut(QtGui.QKeySequence("F5"))
    lesson.presenterChanged.connect(lesson.presenterAction.setChecked)
    menu.addSeparator()
    action("&Larger text\t+", lambda: lesson.step_scale(+1), name="lessonLargerAction")
    action("&Smaller text\t\u2212", lambda: lesson.step_scale(-1), name="lessonSmallerAction")
    return lesson


__all__ = ["LessonController", "install_lesson"]
