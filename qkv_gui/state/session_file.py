"""The session's file: saving, opening, the recent files, autosave, recovery after a crash and the question
about unsaved changes. It draws nothing: the questions to the user (which file? save the changes? restore the
work of last time?) and the error messages are callables it is given, so the window asks them in dialogs and a
test answers them itself.

    document = SessionFile(session, Recovery(folder), settings, Questions(ask_unsaved=..., ask_file=...,
                           ask_restore=..., tell_error=...))
    document.save_as(path); document.open(path); document.path   # the file shown, or None
    document.autosave()            # unsaved work into this window's recovery file (every AUTOSAVE_MS)
    document.offer_recovery()      # the work of a window that did not close normally, if the user wants it
    document.keep_changes()        # True when the work may be replaced (saved, discarded, or nothing unsaved)
    document.changed               # the file or its saved state changed: the window's title follows
    document.note                  # (text, ms) for the status line
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from PySide6 import QtCore

from qkv_engine import ScenarioError, presets, session_format

from ..system.recovery import Recovery

#: How often unsaved work is kept in the recovery file.
AUTOSAVE_MS = 3000
#: How many files File → Open Recent lists.
MAX_RECENT = 8


def _nothing_more(_view: dict) -> None:
    pass


@dataclass
class Questions:
    """What the document asks of the user, and where it tells them something went wrong.

    ``ask_file(saving, folder)`` gives a path or None (cancelled); ``ask_unsaved()`` gives "save", "discard" or
    "cancel"; ``ask_restore()`` True to restore the work a crashed window left; ``tell_error(title, text)``.
    ``show_model(model, text, view, edits)`` opens a trained model's session (the window also shows the model
    view); None: the session opens it. ``view()`` gives what the file keeps besides the session's own view (the
    lesson's step); ``restore_view(view)`` puts it back after a file is opened."""

    ask_unsaved: Callable[[], str]
    ask_file: Callable[[bool, str], str | None]
    ask_restore: Callable[[], bool]
    tell_error: Callable[[str, str], None]
    show_model: Callable | None = None
    view: Callable[[], dict] = dict
    restore_view: Callable[[dict], None] = _nothing_more


class SessionFile(QtCore.QObject):
    """The file of ``session``: where it was opened from or saved to, and its unsaved work in ``recovery``."""

    changed = QtCore.Signal()  # the file shown or its saved state changed (a new name, saved, opened)
    recentChanged = QtCore.Signal()  # the list of recent files changed
    note = QtCore.Signal(str, int)  # (text, milliseconds) for the status line

    def __init__(self, session, recovery: Recovery, settings: QtCore.QSettings, questions: Questions, parent=None):
        super().__init__(parent)
        self.session = session
        self.recovery = recovery
        self.settings = settings
        self.questions = questions
        self.path: Path | None = None
        self._autosaved = None  # (undo index, document) last kept in the recovery file
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(AUTOSAVE_MS)
        self.timer.timeout.connect(self.autosave)

    # ----- the file shown -------------------------------------------------------------------------------
    def is_modified(self) -> bool:
        return not self.session.undo_stack.isClean()

    def forget(self) -> None:
        """The document shown is no longer the file opened or saved last (a model opened, or back to the
        hand-made example): Save asks for a file."""
        self.path = None

    def view_state(self) -> dict:
        """What a session file keeps besides the scenario: selection, preset, and the ``view`` of the questions
        (the lesson's step)."""
        return {**self.session.view_state(), **self.questions.view()}

    def _folder(self) -> str:
        return str(self.path.parent) if self.path else str(Path.home())

    # ----- unsaved changes --------------------------------------------------------------------------------
    def keep_changes(self) -> bool:
        """True when it is fine to replace the current work (saved, discarded, or nothing to lose)."""
        if not self.is_modified():
            return True
        answer = self.questions.ask_unsaved()
        if answer == "save":
            return self.save()
        return answer == "discard"

    # ----- opening ----------------------------------------------------------------------------------------
    def open(self, path=None) -> bool:
        """Open a session file (``path`` None: ask which); a bad file leaves the current work untouched and says
        what is wrong."""
        if not self.keep_changes():
            return False
        if path is None:
            path = self.questions.ask_file(False, self._folder())
            if path is None:
                return False
        path = Path(path)
        try:
            loaded = session_format.load_any(path)
            if isinstance(loaded, session_format.ModelSession):
                # the session of a trained model: the model must still be where it was
                model = session_format.open_model(loaded.ref)
        except ScenarioError as exc:
            self.questions.tell_error("Could not open the session", f"{path.name}: {exc}")
            return False
        if isinstance(loaded, session_format.ModelSession):
            self._show_model(model, loaded.text, loaded.view, loaded.edits)
            self._opened(path)
            return True
        scenario, view = loaded
        preset = view.get("preset") if view.get("preset") in presets.names() else None
        self.session.set_scenario(scenario, view=view, preset=preset)
        self._opened(path)
        self.questions.restore_view(view)
        return True

    def _opened(self, path: Path) -> None:
        self.path = path
        self._add_recent(path)
        self.changed.emit()

    def _show_model(self, model, text, view, edits) -> None:
        if self.questions.show_model is not None:
            self.questions.show_model(model, text=text, view=view, edits=edits)
        else:
            self.session.open_model(model, text=text, view=view, edits=edits)

    # ----- saving -----------------------------------------------------------------------------------------
    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self._write(self.path)

    def save_as(self, path=None) -> bool:
        path = path or self.questions.ask_file(True, self._folder())
        if not path:
            return False
        return self._write(Path(path))

    def _write(self, path: Path) -> bool:
        try:
            self._save_document(path, self.view_state())
        except OSError as exc:
            self.questions.tell_error("Could not save", f"Could not save to {path}: {exc.strerror or exc}. "
                                                        "Your work is still here; try another folder.")
            return False
        self.path = path
        self.session.undo_stack.setClean()
        self._add_recent(path)
        self._drop_recovery()
        self.note.emit(f"Saved {path.name}", 5000)
        self.changed.emit()
        return True

    def _save_document(self, path: Path, view: dict) -> None:
        """Write the document: the hand-made scenario, or where the trained model is and its edits."""
        doc = self.session.model_doc
        if doc is None:
            session_format.save_file(path, self.session.scenario, view)
        else:
            session_format.save_model_file(path, doc.model.info, doc.text, doc.edits, view)

    # ----- recent files -----------------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [v for v in (value or []) if isinstance(v, str)]

    def _add_recent(self, path: Path) -> None:
        items = [str(Path(path).resolve())] + [p for p in self.recent_files() if p != str(Path(path).resolve())]
        self.settings.setValue("recent", items[:MAX_RECENT])
        self.recentChanged.emit()

    # ----- autosave and recovery --------------------------------------------------------------------------
    @property
    def recovery_file(self) -> Path:
        """This document's recovery file."""
        return self.recovery.path

    def autosave(self) -> bool:
        """Keep unsaved work in the recovery file; True when something was written."""
        stack = self.session.undo_stack
        # a training run merges its steps into one undo step: the index stays, the document changes
        kept = self._autosaved
        if stack.isClean() or (kept is not None and kept[0] == stack.index() and kept[1] is self.session.document):
            return False
        try:
            self.recovery_file.parent.mkdir(parents=True, exist_ok=True)
            view = dict(self.view_state(), file=str(self.path) if self.path else None)
            self._save_document(self.recovery_file, view)
        except OSError as exc:
            self.note.emit(f"Autosave failed: {exc.strerror or exc}", 8000)
            return False
        self._autosaved = (stack.index(), self.session.document)
        return True

    def _drop_recovery(self) -> None:
        self.recovery.drop()
        self._autosaved = None

    def offer_recovery(self) -> bool:
        """Offer the work of a window that did not close normally (a crash); True when restored.

        Only files whose window is gone are offered: a window still running holds its file's lock.
        A declined or unreadable file is removed and the next one offered; a restored one is removed
        once this document has kept the work in its own file."""
        while (orphan := self.recovery.claim_orphan()) is not None:
            try:
                loaded = session_format.load_any(orphan.path)
                model = (session_format.open_model(loaded.ref)
                         if isinstance(loaded, session_format.ModelSession) else None)
            except ScenarioError:
                self.recovery.let_go(orphan, delete=True)
                continue
            if not self.questions.ask_restore():
                self.recovery.let_go(orphan, delete=True)
                continue
            if model is not None:
                view = loaded.view
                self._show_model(model, loaded.text, view, loaded.edits)
            else:
                scenario, view = loaded
                self.session.apply(scenario, "restore unsaved work", preset=None)
                self.session.select(int(view.get("query", 0) or 0), int(view.get("key", 0) or 0))
            file = view.get("file")
            self.path = Path(file) if isinstance(file, str) else None
            self.changed.emit()
            kept = self.autosave()
            self.recovery.let_go(orphan, delete=kept)  # not kept here: offered again next time
            return True
        return False

    def close(self) -> None:
        """The window closes normally: autosave stops, and no recovery file or lock is left."""
        self.timer.stop()
        self.recovery.close()
        self._autosaved = None
