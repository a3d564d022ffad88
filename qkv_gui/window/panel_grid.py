"""The central area: the nine panels in rows of splitters (three a row when they fit), each in a titled frame.

Any panel can be focused (shown alone, large) and brought back; any can be
hidden from the View menu; one can be outlined (``highlight``: the lesson's
step). A row holds as many panels as fit at their readable widths (three at
most): on a narrow screen, rows of two or one, and the area scrolls. Splitter
sizes are saved with the window.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from . import panel_help
from ..look import style
from ..panels.base import Panel
from ..labels.elided_label import ElidedLabel
from ..labels.steady_box import SteadyBox

#: A panel's frame's margin on each side, and the outline that singles a panel out (the lesson's), in pixels.
FRAME_MARGIN, OUTLINE_PX = 2, 3
#: What a panel's frame adds to its width at most: margin and outline, either side.
FRAME_ROOM = 2 * (FRAME_MARGIN + OUTLINE_PX)

Qt = QtCore.Qt


#: Events after which a frame works out the width its panel asks for again.
_NEW_ROOM = (QtCore.QEvent.Type.LayoutRequest, QtCore.QEvent.Type.Show, QtCore.QEvent.Type.Hide,
             QtCore.QEvent.Type.StyleChange, QtCore.QEvent.Type.FontChange)


class PanelFrame(QtWidgets.QFrame):
    """A panel with a title bar, a help button (?) and a focus button."""

    focusRequested = QtCore.Signal(str)

    def __init__(self, panel: Panel, parent=None):
        super().__init__(parent)
        self._room: int | None = None  # the width minimumSizeHint gives, while nothing in the frame changes
        self.panel = panel
        panel.text_room = True  # the grid scrolls: the panel may ask for its wrapped texts' height
        self.setObjectName(f"frame_{panel.object_name}")
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(FRAME_MARGIN, FRAME_MARGIN, FRAME_MARGIN, FRAME_MARGIN)
        layout.setSpacing(0)
        bar = QtWidgets.QHBoxLayout()
        bar.setContentsMargins(6, 2, 2, 2)
        self.titleLabel = ElidedLabel(panel.title, self)
        self.outline: str | None = None  # the colour of the outline that singles it out, if any
        self.title_px: int | None = None  # the title's size in pixels, when not the window's own
        bar.addWidget(SteadyBox(self.titleLabel, self), 1)
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
        self.setStyleSheet(f"QFrame#{self.objectName()} {{ border: {OUTLINE_PX}px solid {self.outline}; "
                           "border-radius: 4px; }"
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

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        """In the grid, as wide as the panel asks for (``Panel.room_width``), not its layout's minimum now:
        a panel whose buttons show words when wide and icons when narrow would otherwise hold its row
        wide once it had been shown wide (alone, say).

        The splitters and the grid's packing ask for it dozens of times in one layout pass; the panel's
        width is worked out once until something in the frame asks for a new layout (the panel's pictures
        or theme changed) or the frame is shown or hidden."""
        hint = super().minimumSizeHint()
        if self.panel.text_room:
            if self._room is None:
                margins = self.layout().contentsMargins()
                self._room = self.panel.room_width() + margins.left() + margins.right()
            hint.setWidth(self._room)
        return hint

    def event(self, event) -> bool:
        if event.type() in _NEW_ROOM:
            self._room = None  # worked out again when next asked
        return super().event(event)

    def mouseDoubleClickEvent(self, event):
        if event.position().y() < 28:
            self.focusRequested.emit(self.panel.object_name)
        super().mouseDoubleClickEvent(event)


class PanelGrid(QtWidgets.QSplitter):
    """Rows of up to three panel frames; ``focus(name)`` shows one panel alone.

    The rows are packed to the width of the area the grid is shown in (``watch``): a row takes the next
    panels, in lesson order, while their readable widths fit, at most ``COLUMNS``. A narrow area (a 1024 x
    768 projector) gets rows of two or one; the area scrolls for the height. Each packing keeps its own
    splitter sizes: going back to a packing brings back the sizes it had."""

    COLUMNS = 3

    def __init__(self, panels: list[Panel], parent=None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self.setChildrenCollapsible(False)
        self.setHandleWidth(5)
        self.frames: dict[str, PanelFrame] = {}
        self.panels: dict[str, Panel] = {p.object_name: p for p in panels}  # by object name, in order
        self.rows: list[QtWidgets.QSplitter] = []
        self.wanted: dict[str, bool] = {}
        self.focused: str | None = None
        self.highlighted: str | None = None
        self.packing: tuple = ()  # how many frames each row holds, e.g. (3, 3, 3)
        self._sizes: dict[tuple, list] = {}  # packing -> the splitters' sizes it had (as save_state gives them)
        self._width: int | None = None  # the width of the area the rows are packed to (None: not watched)
        self._area: QtWidgets.QAbstractScrollArea | None = None  # the scroll area the grid is shown in (``watch``)
        self._repack = QtCore.QTimer(self)
        self._repack.setSingleShot(True)
        self._repack.setInterval(0)
        self._repack.timeout.connect(self.pack)
        for panel in panels:
            frame = PanelFrame(panel)  # not a child of the grid: a splitter takes its children as sections
            frame.focusRequested.connect(self.toggle_focus)
            self.frames[panel.object_name] = frame
            self.wanted[panel.object_name] = True
        names = list(self.frames)
        self._lay_out(tuple(len(names[k:k + self.COLUMNS]) for k in range(0, len(names), self.COLUMNS)))

    # ----- packing the rows ------------------------------------------------------------------------
    def watch(self, area: QtWidgets.QAbstractScrollArea) -> None:
        """Pack the rows to the width of ``area`` (the scroll area the grid is shown in), now and whenever
        it changes size."""
        self._area = area
        area.installEventFilter(self)
        for frame in self.frames.values():
            frame.panel.view_area = area.viewport()  # a panel out of sight there waits (``Panel.in_view``)
        for bar in (area.verticalScrollBar(), area.horizontalScrollBar()):
            bar.valueChanged.connect(self._catch_up)
        self._follow_area()

    def eventFilter(self, obj, event):  # noqa: N802 (Qt naming)
        if obj is self._area and event.type() == QtCore.QEvent.Type.Resize:
            self._follow_area()
            self._catch_up()
        return False

    def _catch_up(self, *_) -> None:
        """The panels that came into sight (a scroll, a bigger area) show the session's numbers now, before
        they are painted."""
        for frame in self.frames.values():
            frame.panel.catch_up()

    def _follow_area(self) -> None:
        area = self._area
        # The room for the rows whether or not a scroll bar shows: the packing never depends on the bar.
        bar = area.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_ScrollBarExtent, None, area)
        width = area.width() - 2 * area.frameWidth() - bar
        if width != self._width:
            self._width = width
            self.pack()

    def event(self, event) -> bool:
        if event.type() == QtCore.QEvent.Type.LayoutRequest and self._width is not None:
            self._repack.start()  # a panel asks for another size: its row may hold fewer or more now
        return super().event(event)

    def packing_for(self, width: int) -> tuple:
        """How many frames each row holds in ``width`` pixels: the next frames in order while their
        minimum widths (and the handles between them) fit, at most ``COLUMNS`` shown; a hidden frame
        goes with the row it falls in."""
        rows: list[int] = []
        count = shown = used = 0
        handle = self.handleWidth()
        for name, frame in self.frames.items():
            if self.wanted[name]:
                need = frame.minimumSizeHint().width()
                if shown and (shown >= self.COLUMNS or used + handle + need > width):
                    rows.append(count)
                    count = shown = used = 0
                used += need + (handle if shown else 0)
                shown += 1
            count += 1
        rows.append(count)
        return tuple(rows)

    def pack(self) -> None:
        """Pack the rows to the watched width (nothing while one panel is shown alone)."""
        if self._width is None or self.focused is not None:
            return
        packing = self.packing_for(self._width)
        if packing != self.packing:
            self._sizes[self.packing] = self.save_state()[1:]
            self._lay_out(packing)

    def _lay_out(self, packing: tuple) -> None:
        """Put the frames, in order, into rows of ``packing`` frames; the sizes this packing had before,
        else equal shares."""
        frames = list(self.frames.values())
        while len(self.rows) < len(packing):
            row = QtWidgets.QSplitter(Qt.Orientation.Horizontal, self)
            row.setChildrenCollapsible(False)
            self.addWidget(row)
            self.rows.append(row)
        start = 0
        for row, count in zip(self.rows, packing):
            for k, frame in enumerate(frames[start:start + count]):
                if row.indexOf(frame) != k:
                    row.insertWidget(k, frame)
            start += count
        for row in self.rows[len(packing):]:
            row.hide()
            row.setParent(None)
            row.deleteLater()
        self.rows = self.rows[:len(packing)]
        self.packing = packing
        self._apply()
        if not self._put_back(self._sizes.get(packing)):
            self.equalize()

    def equalize(self) -> None:
        """Give every row, and every panel in a row, the same share of the space."""
        self.setSizes([1000] * len(self.rows))
        for row in self.rows:
            row.setSizes([1000] * row.count())

    def set_panel_visible(self, name: str, visible: bool) -> None:
        self.wanted[name] = visible
        self._apply()
        self.pack()

    def toggle_focus(self, name: str) -> None:
        self.focus(None if self.focused == name else name)

    def focus(self, name: str | None) -> None:
        """Show only panel ``name`` (None: show every wanted panel again)."""
        self.focused = name
        self._apply()
        self.pack()

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

    # ----- the sizes, for the settings file ----------------------------------------------------------
    def save_state(self) -> list:
        """The packing and the splitter sizes as text, for the settings file: plain strings, read back as
        they were written (a list of Python bytes would be stored as a pickled object, and loading it
        unpickles). The first string names the packing ("rows 3 3 3"), then one base64 string a splitter."""
        states = [self.saveState()] + [row.saveState() for row in self.rows]
        return ["rows " + " ".join(str(n) for n in self.packing)] + \
            [bytes(state.toBase64().data()).decode("ascii") for state in states]

    def restore_state(self, states) -> None:
        """Put back the sizes ``save_state`` gave, now if the rows are packed the same way, else when they
        are; anything that is not such a list is ignored (a list without the packing is of rows of three)."""
        if isinstance(states, str):
            states = [states]
        if not isinstance(states, list) or not states or not all(isinstance(t, str) for t in states):
            return
        if states[0].startswith("rows "):
            try:
                packing = tuple(int(n) for n in states[0][5:].split())
            except ValueError:
                return
            states = states[1:]
        else:
            names = list(self.frames)
            packing = tuple(len(names[k:k + self.COLUMNS]) for k in range(0, len(names), self.COLUMNS))
        if not states or sum(packing) != len(self.frames):
            return
        self._sizes[packing] = states
        if packing == self.packing:
            self._put_back(states)

    def _put_back(self, states) -> bool:
        """Apply splitter sizes kept as base64 text (the grid's, then each row's); False when there are none."""
        if not states:
            return False
        arrays = [QtCore.QByteArray.fromBase64(t.encode("ascii", "ignore")) for t in states]
        self.restoreState(arrays[0])
        for row, state in zip(self.rows, arrays[1:]):
            row.restoreState(state)
        return True
