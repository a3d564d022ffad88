"""Where the model view's head labels come from: this sentence, the example sentences, or sentences the teacher
types (one a line). The model view's part.

Over several sentences each head's scores are averaged over them and the same rule labels them
(``qkv_engine.head_labels_over``). The sentences run through the open model, with its what-if edits, on a
worker thread; until they land the labels of the sentence shown stay, and the line under the row says how far
the work has come. The choice and the typed list are kept in the session's ``lab_state`` (and so in session
files). With the word view on, each sentence is labelled in words.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import ScenarioError, head_labels_over, model_examples, trace_words, word_mask, word_weights

from ..worker_job import WorkerJob

#: The choices: (lab_state value, what the box says).
SOURCES = (("sentence", "this sentence"), ("examples", "the example sentences"), ("typed", "sentences I type…"))
SOURCE_KEY, TEXTS_KEY = "modelViewLabelSource", "modelViewLabelTexts"
#: After a what-if edit the labels over the sentences wait this long (ms) for the next edit before they are
#: worked out again: a run of quick edits starts one job, not one an edit.
SETTLE_MS = 300


def _in_words(trace):
    """(weights, tokens, allowed) of a trace, in words."""
    words = trace_words(trace)
    return word_weights(trace.weights, words), tuple(w.text for w in words), word_mask(trace.allowed, words)


def label_work(model, edits, texts, in_words: bool):
    """What the worker runs: each sentence through ``model`` with ``edits``, then the labels over them all."""
    def work(progress):
        sentences = []
        for i, text in enumerate(texts):
            trace = model.run(text, edits)
            sentences.append(_in_words(trace) if in_words else (trace.weights, trace.tokens, trace.allowed))
            if progress(i + 1, len(texts)) is False:
                return None
        return head_labels_over(sentences)

    return work


class LabelSources(QtCore.QObject):
    """The "Labels from" choice and the labels over several sentences. ``labels()`` is the HeadLabels to show
    instead of the sentence's own, or None (this sentence chosen, or still being worked out); ``changed`` says
    when that changes, ``progressed`` when only the state line does."""

    changed = QtCore.Signal()  # the labels (or the choice) changed: draw the tiles' words again
    progressed = QtCore.Signal()  # only the words about the work changed: say them again, nothing else

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self.state = ""  # a few words after the choice in the legend: how far the work is, or that it is done
        self.failed = ""  # why the labels over the sentences could not be worked out
        self.refused = ""  # why the last typed list was not taken ("" once a list or a choice is taken)
        self.job: WorkerJob | None = None
        self._job_key = None
        self._over = (None, None)  # (what they were worked out for, HeadLabels)
        self._waiting = None  # the key whose work starts when the edits have settled
        self._later = QtCore.QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(SETTLE_MS)
        self._later.timeout.connect(self._start_settled)

    def menu(self, parent: QtWidgets.QWidget) -> QtWidgets.QMenu:
        """The choices as a menu (the legend's "Labels from …" link opens it)."""
        menu = QtWidgets.QMenu(parent)
        menu.setObjectName("modelViewLabelSourceMenu")
        one_of = QtGui.QActionGroup(menu)  # one choice at a time, shown as radio marks
        for value, text in SOURCES:
            action = menu.addAction(text[0].upper() + text[1:])
            action.setCheckable(True)
            one_of.addAction(action)
            action.setChecked(value == self.source)
            action.setData(value)
            action.triggered.connect(lambda _=False, v=value: self._on_chosen(v))
        menu.addSeparator()
        edit = menu.addAction("Edit my sentences…")
        edit.setData("edit")
        edit.triggered.connect(lambda: self.ask_for_sentences(parent))
        return menu

    @property
    def lines(self) -> list:
        """What to say above the legend: a refused list, the state of the labels over sentences."""
        return [line for line in (self.refused, self.failed) if line]

    @property
    def tooltip(self) -> str:
        """The sentences the labels are over, one a line (for the legend's tooltip)."""
        texts = self.sentences()
        return ("Labels over these sentences:\n" + "\n".join(texts)) if texts else ""

    @property
    def source_words(self) -> str:
        return dict(SOURCES)[self.source].rstrip("…")

    # ----- the choice --------------------------------------------------------------------------------
    @property
    def source(self) -> str:
        value = self.session.lab_state.get(SOURCE_KEY, "sentence")
        return value if value in dict(SOURCES) else "sentence"

    @property
    def typed(self) -> list:
        texts = self.session.lab_state.get(TEXTS_KEY) or []
        return [str(t) for t in texts] if isinstance(texts, (list, tuple)) else []

    def sentences(self) -> list:
        """The sentences the labels are worked out over now (none for "this sentence")."""
        doc = self.session.model_doc
        if doc is None or self.source == "sentence":
            return []
        if self.source == "examples":
            return model_examples.example_sentences(doc.model.info.name)
        return self.typed

    def choose(self, source: str) -> None:
        self.refused = ""
        self.session.lab_state[SOURCE_KEY] = source
        self.refresh()
        self.changed.emit()

    def set_sentences(self, typed: str) -> bool:
        """Take a typed list (one sentence a line) and label over it; a bad list is refused with why, in the
        state line, and the list before is kept."""
        try:
            texts = model_examples.sentence_list(typed)
        except ScenarioError as exc:
            self.refused = f"Those sentences were not taken: {exc}. The list before is kept."
            self.changed.emit()
            return False
        self.session.lab_state[TEXTS_KEY] = texts
        self.choose("typed")
        return True

    def ask_for_sentences(self, parent: QtWidgets.QWidget | None = None) -> None:
        text, ok = QtWidgets.QInputDialog.getMultiLineText(
            parent, "Sentences for the labels", "One sentence a line; each head's scores are averaged over them:",
            "\n".join(self.typed))
        if ok:
            self.set_sentences(text)
        elif not self.typed:
            self.choose("sentence")

    def _on_chosen(self, value: str, parent: QtWidgets.QWidget | None = None) -> None:
        if value == "typed" and not self.typed:
            self.ask_for_sentences(parent)
        else:
            self.choose(value)

    # ----- the labels ------------------------------------------------------------------------------------
    def _key(self):
        doc = self.session.model_doc
        texts = self.sentences()
        if doc is None or not texts:
            return None
        return (id(doc.model), doc.edits, tuple(texts), bool(self.session.word_view))

    def labels(self):
        """The labels over the chosen sentences for the model and edits open now, or None."""
        key = self._key()
        return self._over[1] if key is not None and self._over[0] == key else None

    def refresh(self) -> None:
        """Follow the session: start the work the choice needs (once), and say where it is (the model view
        calls this as it draws; ``changed`` is for what happens in between)."""
        key = self._key()
        if key is None:
            self._cancel()
            self.state, self.failed = "", ""
        elif self._over[0] != key and self._job_key != key:
            last = self._job_key or self._over[0]
            if last is not None and last[2:] == key[2:]:  # the same sentences, the model edited: let edits settle
                if self._waiting != key:
                    self._cancel()
                    self._waiting = key
                    self._later.start()
                self.state, self.failed = "working out again after the edits", ""
            else:
                self._start(key)
        elif self._over[0] == key and self._over[1] is not None:
            self._cancel()  # back where the labels were worked out (an undo): nothing to wait for
            n = len(key[2])
            self.state = f"averaged over {n} sentence{'s' if n != 1 else ''}"

    def _start_settled(self) -> None:
        key, self._waiting = self._waiting, None
        if key is not None and key == self._key():
            self._start(key)
            self.changed.emit()

    def _start(self, key) -> None:
        self._cancel()
        doc = self.session.model_doc
        texts = list(key[2])
        job = WorkerJob(label_work(doc.model, doc.edits, texts, key[3]), "the labels could not be worked out",
                        "qkv-head-labels", self)
        job.progressed.connect(lambda done, total: self._on_progress(job, done, total))
        job.done.connect(lambda labels, error: self._on_done(job, key, labels, error))
        self.job, self._job_key = job, key
        self.state, self.failed = f"working out: 0 of {len(texts)} sentences", ""
        job.start()

    def _cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
        self.job, self._job_key = None, None
        self._later.stop()
        self._waiting = None

    def _on_progress(self, job, done: int, total: int) -> None:
        if job is self.job:
            self.state = f"working out: {done} of {total} sentences"
            self.progressed.emit()

    def _on_done(self, job, key, labels, error: str) -> None:
        if job is not self.job:
            return
        self.job, self._job_key = None, None
        if error:
            self.state = ""
            self.failed = f"The labels over those sentences could not be worked out: {error}."
            self._over = (key, None)
        elif labels is not None:
            self._over = (key, labels)
        self.refresh()
        self.changed.emit()

    def stop(self) -> None:
        self._cancel()
