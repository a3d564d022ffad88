"""A home for a label whose text changes on every edit, so that a new text asks for a new layout only
when it needs a different size.

``QLabel.setText`` always tells the layout that its size may have changed, and Qt then lays out again
every widget from the label up to the window: the panel, its frame, the splitters and the scrolling
grid (dozens of layout requests for one edit in the nine panels). Placed in a ``SteadyBox``, the
label tells only its box; the box compares the size the label needs now (a wrapped label: its height
at the width it has; another label: its size hints) with what the layout was last told, and passes the
news on only when it differs. A new number of the same length is then repainted, and nothing is laid
out.

    self.caption = QtWidgets.QLabel(body)       # set up as usual; the panel keeps talking to the label
    layout.addWidget(steady_box(self.caption))  # ... but the layout holds its box

A wrapped text that needs fewer lines does not give them back at once: while numbers are being edited, a
worked sum that goes from four lines to three and back would move everything below it up and down (and
lay the window out again) at every edit. The label is drawn at the top of its box, as tall as its words
need, and the box gives the spare lines back once the words have stayed as they are for ``SHRINK_AFTER_MS``.
A new width is followed at once.

Showing or hiding the label shows or hides its box.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

QEvent = QtCore.QEvent

#: A wrapped label's box gives back the lines its words no longer need after they stay unchanged this long.
SHRINK_AFTER_MS = 700


class SteadyBox(QtWidgets.QWidget):
    """Holds one QLabel, as large as itself; see the module's docstring."""

    def __init__(self, label: QtWidgets.QLabel, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent if parent is not None else label.parentWidget())
        self.label = label
        self.setObjectName(f"{label.objectName() or 'label'}Box")
        visible = not label.isHidden()
        label.setParent(self)
        label.move(0, 0)
        label.setVisible(True)
        self.setSizePolicy(label.sizePolicy())
        self._told = None  # the label's needs as the layout last heard them
        self._shrink = QtCore.QTimer(self)  # gives back spare lines after a pause (see the module's docstring)
        self._shrink.setSingleShot(True)
        self._shrink.setInterval(SHRINK_AFTER_MS)
        self._shrink.timeout.connect(self._give_back)
        label.installEventFilter(self)
        self.setVisible(visible)

    # ----- what the layout asks ------------------------------------------------------------------------
    # The label's own answers, asked only when the layout asks (for a wrapped label its minimum size is
    # slow to work out). Only the height a wrapped text needs at the width it has is followed at every new
    # text: a new minimum alone does not lay the window out again (it is taken up at the next layout).
    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        return self.label.sizeHint()

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802
        return self.label.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return self.label.sizePolicy().hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        height = self.label.heightForWidth(width)
        if self._shrink.isActive() and width == self.width():  # (a layout that runs for another reason
            return max(height, self._told[0])  # during the pause keeps the spare lines too)
        return height

    # ----- keeping the layout informed, only of changes ----------------------------------------------
    def _needs(self) -> tuple:
        """What the layout uses: a wrapped label's height at the width the box has, else its size hints."""
        label, policy = self.label, self.label.sizePolicy()
        if self.hasHeightForWidth():
            return label.heightForWidth(self.width()), policy
        return label.sizeHint(), label.minimumSizeHint(), policy

    def _check(self) -> None:
        needs = self._needs()
        told = self._told
        if told is not None and len(needs) == 2 and needs[1] == told[1] and needs[0] < told[0]:
            self._shrink.start()  # fewer lines: the box gives them back after a pause
        else:
            self._shrink.stop()
            if needs != told:
                self._tell(needs)
        self._place_label()  # (at the top of the box, as tall as its words)

    def _tell(self, needs: tuple) -> None:
        self._told = needs
        if self.sizePolicy() != needs[-1]:
            self.setSizePolicy(needs[-1])  # word wrap switched on or off
        self.updateGeometry()

    def _give_back(self) -> None:
        needs = self._needs()
        if needs != self._told:
            self._tell(needs)

    def _place_label(self) -> None:
        """The label as wide as the box, at its top; a wrapped one as tall as its words need (no taller than
        the box), the rest of the box left blank until it gives the spare lines back."""
        width, height = self.width(), self.height()
        if self.hasHeightForWidth():
            height = min(height, max(self.label.heightForWidth(width), 0))
        if self.label.size() != QtCore.QSize(width, height):
            self.label.resize(width, height)

    def event(self, event) -> bool:
        # (the events wanted here come as plain QEvents: a class test first is cheaper than asking every
        # paint its type)
        if type(event) is QEvent and event.type() == QEvent.Type.LayoutRequest:  # from the label: its text or font changed
            self._check()
            return True
        return super().event(event)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802
        if obj is self.label and type(event) is QEvent:
            kind = event.type()
            if kind == QEvent.Type.HideToParent and not self.isHidden():
                self.setVisible(False)
            elif kind == QEvent.Type.ShowToParent and self.isHidden():
                self.setVisible(True)
        return False

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width() and self._told is not None:
            self._shrink.stop()
            needs = self._needs()  # a new width: the wrapped text may need another height, followed at once
            if needs != self._told:
                self._tell(needs)
        self._place_label()

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self._shrink.stop()
        self._told = self._needs()  # shown: the layout asks the box afresh


def steady_box(label: QtWidgets.QLabel) -> SteadyBox:
    """``label`` placed in a ``SteadyBox`` (to be added to the layout instead of the label)."""
    return SteadyBox(label)
