""""About this example": the note of a designed example, in the sentence dock where the teacher looks.

    box = ExampleNoteBox(session)     # shown while a designed preset is open (``Preset.designed``)

The note says why each non-zero weight is there (``Preset.note``, one paragraph per line). A paragraph
that starts with a short label ("W^Q:", "Try:") gets the label in bold. The arrow button folds the
text away and brings it back; a newly opened example shows it unfolded, except on a short screen
(a 1024 x 768 projector), where the token table needs the room: there one click unfolds it.
"""
from __future__ import annotations

import html

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import model_examples, presets

from ..look import colours
from ..state.session import Session

Qt = QtCore.Qt
#: A paragraph's first words up to a colon are its label when they are at most this long.
LABEL_CHARS = 12
#: The note's text box is at most this many lines high; longer notes scroll.
MAX_LINES = 9
#: ... and at least this many lines high (unfolded), so that a teacher reads it without scrolling at once.
MIN_LINES = 6
#: In a window (or on a screen) lower than this (pixels) a newly opened note starts folded.
ROOMY_HEIGHT = 900


def designed_preset(session: Session):
    """The designed Preset open now, or None (another preset, a file, a trained model)."""
    name = session.preset_name
    if session.model_doc is not None or name not in presets.names():
        return None
    preset = presets.get(name)
    return preset if preset.designed else None


def model_example(session: Session):
    """The model example open now (``qkv_engine.model_examples``), or None."""
    name = getattr(session, "model_example", None)
    if session.model_doc is None or name not in model_examples.names():
        return None
    return model_examples.get(name)


def note_html(note: str) -> str:
    """The note's paragraphs as HTML, each short leading label ("W^Q:") in bold."""
    out = []
    for para in (p.strip() for p in note.split("\n")):
        if not para:
            continue
        label, colon, rest = para.partition(":")
        if colon and 0 < len(label) <= LABEL_CHARS:
            out.append(f"<p><b>{html.escape(label)}:</b>{html.escape(rest)}</p>")
        else:
            out.append(f"<p>{html.escape(para)}</p>")
    return "".join(out)


class ExampleNoteBox(QtWidgets.QWidget):
    """A fold-away note about the designed example that is open."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName("exampleNote")
        self.session = session
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 4, 0, 0)
        lay.setSpacing(2)
        self.toggle = QtWidgets.QToolButton(self)
        self.toggle.setObjectName("exampleNoteToggle")
        self.toggle.setCheckable(True)
        self.toggle.setChecked(True)
        self.toggle.setAutoRaise(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.setToolTip("Why each number of this example is there (click to fold it away)")
        self.toggle.toggled.connect(self._folded)
        lay.addWidget(self.toggle)
        self.text = QtWidgets.QTextBrowser(self)
        self.text.setObjectName("exampleNoteText")
        self.text.setOpenLinks(False)
        colours.sheet(self.text, "QTextBrowser { background: $example_note_bg; border: 1px solid $example_note_edge; "
                                 "color: $foreground; }")
        self.text.document().setDocumentMargin(4)
        line = self.text.fontMetrics().lineSpacing()
        self.text.setMaximumHeight(MAX_LINES * line + 12)
        self.text.setMinimumHeight(MIN_LINES * line + 12)
        lay.addWidget(self.text)
        self._shown_preset = None
        session.scenarioChanged.connect(lambda _s: self.follow())
        session.modelChanged.connect(lambda _doc: self.follow())
        self.follow()

    def _folded(self, unfolded: bool) -> None:
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if unfolded else Qt.ArrowType.RightArrow)
        self.text.setVisible(unfolded)

    def follow(self) -> None:
        """Show the note of the designed example (or the model example) open now, or hide."""
        preset = designed_preset(self.session) or model_example(self.session)
        self.setVisible(preset is not None)
        if preset is None:
            self._shown_preset = None
            return
        if preset.name == self._shown_preset:
            return
        self._shown_preset = preset.name
        # the title goes in the text, which wraps: on the button a long title would widen the dock
        self.toggle.setText("About this example")
        self.text.setHtml(f"<p><b>{html.escape(preset.title)}</b></p>" + note_html(preset.note))
        self.toggle.setChecked(self._roomy())  # a newly opened example shows its note, if there is room

    def _roomy(self) -> bool:
        window = self.window()
        if window is not self and window.isVisible():
            return window.height() >= ROOMY_HEIGHT
        screen = QtGui.QGuiApplication.primaryScreen()
        return screen is None or screen.availableGeometry().height() >= ROOMY_HEIGHT
