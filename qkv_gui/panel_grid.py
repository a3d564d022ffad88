"""The central area: the nine panels in a 3 x 3 grid of splitters, each in a titled frame.

Any panel can be focused (shown alone, large) and brought back; any can be
hidden from the View menu; one can be outlined (``highlight``: the lesson's
step). Splitter sizes are saved with the window.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from . import panel_help, style
from .panels.base import Panel

Qt = QtCore.Qt


class ElidedLabel(QtWidgets.QLabel):
    """A one-line title that shortens with "…" when narrow (the whole title is its tool tip), so a
    long title never forces the grid wider."""

    def __init__(self, text: str, parent=None):
        super().__init__(parent)
        self._full = ""
        self.setMinimumWidth(1)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt naming)
        self._full = text
        self.setToolTip(text)
        self._elide()

    def text(self) -> str:
        return self._full

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        shown = self.fontMetrics().elidedText(self._full, QtCore.Qt.TextElideMode.ElideRight, max(1, self.width()))
        if super().text() != shown:
            super().setText(shown)


class PanelFrame(QtWidgets.QFrame):
    """A panel with a title bar, a help button (?) and a focus button."""

    focusRequested = QtCore.Signal(str)

    def __init__(self, panel: Panel, parent=None):
        super().__init__(parent)
        self.panel = panel
        panel.text_room = True  # the grid scrolls: the panel may ask for its wrapped texts' height
        self.setObjectName(f"frame_{panel.object_name}")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(0)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(6, 2, 2, 2)
        self.titleLabel = ElidedLabel(panel.title, self)
        self.outline: str | None = None  # the colour of the outline that singles it out, if any
        self.title_px: int | None = None  # the title's size in pixels, when not the window's own
        bar.addWidget(self.titleLabel, 1)
        self.helpButton = QtWidgets.QToolButton(self)
        self.helpButton.setObjectName("panelHelpButton")
        self.helpButton.setText("?")
        self.helpButton.setToolTip("What am I looking at? (F1)")
        self.helpButton.setAutoRaise(True)
        self.helpButton.clicked.connect(self.show_help)
        bar.addWidget(self.helpButton)
        self.focusButton = QtWidgets.QToolButton(self)
        self.focusButton.setText("\u2922")
        self.focusButton.setToolTip("Show this panel alone (again to show all)")
        self.focusButton.setAutoRaise(True)
        self.focusButton.clicked.connect(lambda: self.focusRequested.emit(panel.object_name))
        bar.addWidget(self.focusButton)
        layout.addLayout(bar)
        layout.addWidget(panel, 1)
        session = panel.session
        session.headChanged.connect(self._follow_head)
        session.scenarioChanged.connect(self._follow_head)
        self._follow_head()
        self._restyle()

    def show_help(self) -> str:
        """The panel's "What am I looking at?" bubble, under the ? button; returns its text."""
        return panel_help.show_help(self.panel, self.helpButton.mapToGlobal(self.helpButton.rect().bottomLeft()))

    def set_outline(self, colour: str | None) -> None:
        """Single the panel out with a coloured outline (None: no outline)."""
        if colour != self.outline:
            self.outline = colour
            self._restyle()

    def set_title_px(self, px: int | None) -> None:
        """Draw the title ``px`` pixels high (None: the window's size)."""
        if px != self.title_px:
            self.title_px = px
            self._restyle()

    def _restyle(self) -> None:
        size = f" font-size: {self.title_px}px;" if self.title_px else ""
        self.titleLabel.setStyleSheet(f"font-weight: bold;{size}")
        self.setStyleSheet(f"QFrame#{self.objectName()} {{ border: 3px solid {self.outline}; border-radius: 4px; }}"
                           if self.outline else "")
        self.setProperty("highlighted", self.outline is not None)

    def _follow_head(self, *_) -> None:
        """With several heads, the title says which one the panel shows (with a trained model: which layer
        and head)."""
        session = self.panel.session
        heads = session.scenario.n_heads
        if session.model_doc is not None:
            text = f"{self.panel.title} \u00b7 L{session.model_layer + 1} H{session.model_head + 1}"
        elif heads == 1:
            text = self.panel.title
        else:
            text = f"{self.panel.title} \u00b7 head {session.head + 1} of {heads}"
        if self.titleLabel.text() != text:
            self.titleLabel.setText(text)

    def mouseDoubleClickEvent(self, event):
        if event.position().y() < 28:
            self.focusRequested.emit(self.panel.object_name)
        super().mouseDoubleClickEvent(event)


class PanelGrid(QtWidgets.QSplitter):
    """Rows of three panel frames; ``focus(name)`` shows one panel alone."""

    COLUMNS = 3

    def __init__(self, panels: list[Panel], parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setChildrenCollapsible(False)
        self.setHandleWidth(5)
        self.frames: dict[str, PanelFrame] = {}
        self.rows: list[QtWidgets.QSplitter] = []
        self.wanted: dict[str, bool] = {}
        self.focused: str | None = None
        self.highlighted: str | None = None
        for idx, panel in enumerate(panels):
            if idx % self.COLUMNS == 0:
                row = QtWidgets.QSplitter(Qt.Orientation.Horizontal, self)
                row.setChildrenCollapsible(False)
                self.addWidget(row)
                self.rows.append(row)
            frame = PanelFrame(panel, self.rows[-1])
            frame.focusRequested.connect(self.toggle_focus)
            self.rows[-1].addWidget(frame)
            self.frames[panel.object_name] = frame
            self.wanted[panel.object_name] = True
        self.equalize()

    def equalize(self) -> None:
        """Give every row, and every panel in a row, the same share of the space."""
        self.setSizes([1000] * len(self.rows))
        for row in self.rows:
            row.setSizes([1000] * row.count())

    def set_panel_visible(self, name: str, visible: bool) -> None:
        self.wanted[name] = visible
        self._apply()

    def toggle_focus(self, name: str) -> None:
        self.focus(None if self.focused == name else name)

    def focus(self, name: str | None) -> None:
        """Show only panel ``name`` (None: show every wanted panel again)."""
        self.focused = name
        self._apply()

    def highlight(self, name: str | None, colour: str = style.SELECTED) -> None:
        """Outline panel ``name`` in ``colour`` (the lesson's step panel); None: no panel outlined."""
        self.highlighted = name if name in self.frames else None
        for n, frame in self.frames.items():
            frame.set_outline(colour if n == self.highlighted else None)

    def set_title_px(self, px: int | None) -> None:
        """Every panel title ``px`` pixels high (presenter mode); None: back to the window's size."""
        for frame in self.frames.values():
            frame.set_title_px(px)

    def _apply(self) -> None:
        for name, frame in self.frames.items():
            frame.setVisible(name == self.focused if self.focused else self.wanted[name])
        for row in self.rows:
            row.setVisible(any(row.widget(i).isVisibleTo(row) for i in range(row.count())))

    def save_state(self) -> list:
        """The splitter sizes as text (base64), for the settings file: plain strings, read back as they were
        written (a list of Python bytes would be stored as a pickled object, and loading it unpickles)."""
        states = [self.saveState()] + [row.saveState() for row in self.rows]
        return [bytes(state.toBase64().data()).decode("ascii") for state in states]

    def restore_state(self, states) -> None:
        """Put back the sizes ``save_state`` gave; anything that is not such a list is ignored."""
        if isinstance(states, str):
            states = [states]
        if not isinstance(states, list) or not states or not all(isinstance(t, str) for t in states):
            return
        arrays = [QtCore.QByteArray.fromBase64(t.encode("ascii", "ignore")) for t in states]
        self.restoreState(arrays[0])
        for row, state in zip(self.rows, arrays[1:]):
            row.restoreState(state)
