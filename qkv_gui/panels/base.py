"""What every panel shares: its link to the Session, a hint page, and lazy repaint.

A panel subclass sets ``object_name`` and ``title``, builds its widgets and
plot items once in ``build(body)``, and fills them in ``show_result(result,
selection)``. It never computes attention maths: numbers come from the
result, ``qkv_engine.explain``, ``qkv_engine.geometry`` or ``qkv_engine.views``.

A hidden panel (say, a closed or tabbed-away dock) is not repainted; it
catches up when it is shown again.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from .. import style
from ..session import Selection, Session
from .lazy_axes import cache_axes

_BASE_FONT = 0x5146  # QGraphicsItem.data key: the item's font size at theme scale 1
_BASE_PEN = 0x5147  # ... and its pen width


class Panel(QtWidgets.QWidget):
    object_name = "panel"
    title = "Panel"
    #: Shown when there is nothing to draw (empty sentence).
    empty_hint = "Type a sentence to see this picture."
    no_source_hint = "Type a source sentence: its words give the keys and values this picture needs."

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setObjectName(self.object_name)
        self.session = session
        self._stale = True
        self._listening: list = []  # (signal, slot) pairs connected with ``listen``; ``detach`` undoes them
        self.theme = style.SCREEN
        self.paint_count = 0  # how many times show_result ran (tests, benchmarks)
        self.text_room = False  # ask for the wrapped texts' height (the scrolling panel grid sets it)
        self._stack = QtWidgets.QStackedLayout(self)
        self._stack.setContentsMargins(0, 0, 0, 0)
        self.body = QtWidgets.QWidget(self)
        self.hint = QtWidgets.QLabel(self.empty_hint, self)
        self.hint.setObjectName("panelHint")
        self.hint.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet(f"color: {style.HINT_TEXT}; font-size: 12pt; padding: 12px;")
        self._stack.addWidget(self.body)
        self._stack.addWidget(self.hint)
        self.build(self.body)
        cache_axes(self)  # axes are redrawn only when they change
        self.listen(session.resultChanged, self._on_change)
        self.listen(session.selectionChanged, self._on_change)

    # ----- the session's signals ------------------------------------------------------------
    def listen(self, signal, slot) -> None:
        """Connect ``slot`` to a signal of the session; ``detach`` disconnects it again."""
        signal.connect(slot)
        self._listening.append((signal, slot))

    def detach(self) -> None:
        """Stop following the session: disconnect everything ``listen`` connected (a copy made for
        an export is detached before it is thrown away)."""
        while self._listening:
            signal, slot = self._listening.pop()
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):  # already gone with the session
                pass

    # ----- for subclasses -------------------------------------------------------------------
    def build(self, body: QtWidgets.QWidget) -> None:
        """Create every widget and plot item once, inside ``body``."""
        raise NotImplementedError

    def show_result(self, result, selection: Selection) -> None:
        """Put the numbers of ``result`` on the items made in ``build``."""
        raise NotImplementedError

    def hint_for(self, result) -> str | None:
        """A message to show instead of the picture, or None to draw it."""
        if result.n == 0:
            return self.empty_hint
        if result.n_keys == 0:
            return self.no_source_hint
        return None

    # ----- machinery --------------------------------------------------------------------------
    def _on_change(self, *_):
        self._stale = True
        if self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        """Repaint from the session now."""
        self._stale = False
        result = self.session.result
        message = self.hint_for(result)
        if message is not None:
            self.hint.setText(message)
            self._stack.setCurrentWidget(self.hint)
            return
        self._stack.setCurrentWidget(self.body)
        self.show_result(result, self.session.selection)
        self.paint_count += 1
        if self.theme != style.SCREEN:
            self._scale_items()  # items made or restyled by show_result follow the theme too

    # ----- themes (slides, presenter mode) -------------------------------------------------------
    def set_theme(self, theme: "style.Theme") -> None:
        """Draw with ``theme``: every font and line scaled, then ``theme_changed`` for the rest."""
        self.theme = theme
        self._scale_widgets()
        self._scale_items(force=True)
        self.theme_changed(theme)
        self.refresh()

    def theme_changed(self, theme: "style.Theme") -> None:
        """Hook for panel-specific changes of theme (the generic scaling has already run)."""

    def _scale_widgets(self) -> None:
        """Scale every widget's font from the size it had at theme scale 1.

        All base sizes are read before any font is set: a child that inherits
        its parent's font would otherwise read an already-scaled size.
        """
        widgets = [self, *self.findChildren(QtWidgets.QWidget)]
        bases = []
        for w in widgets:
            base = w.property("qkvBasePointSize")
            if base is None:
                base = w.font().pointSizeF()
                if base <= 0:
                    bases.append(None)
                    continue
                w.setProperty("qkvBasePointSize", base)
            bases.append(float(base))
        for w, base in zip(widgets, bases):
            if base is None:
                continue
            font = w.font()
            font.setPointSizeF(base * self.theme.font_scale)
            w.setFont(font)

    def _scale_items(self, force: bool = False) -> None:
        """Scale the fonts and pens of every item in this panel's graphics scenes.

        Each item remembers the size it was last given by the theme; a size that
        differs was set by the panel since, and becomes the new base.
        """
        import pyqtgraph as pg

        fs, ls = self.theme.font_scale, self.theme.line_scale

        def scaled(item, key, current, factor, minimum=0.0):
            base, done = item.data(key), item.data(key + 1)
            if base is None or done is None or abs(current - done) > 1e-6:
                base = current  # first time, or the panel has set a new size since
            new = max(base, minimum) * factor if base > 0 else (factor if factor != 1 and minimum else 0.0)
            item.setData(key, base)
            item.setData(key + 1, new)
            return new

        for view in self.findChildren(QtWidgets.QGraphicsView):
            scene = view.scene()
            if scene is None:
                continue
            for item in scene.items():
                if isinstance(item, pg.AxisItem):
                    f = QtGui.QFont(item.style.get("tickFont") or QtGui.QFont())
                    size = f.pointSizeF() if f.pointSizeF() > 0 else 9.0
                    f.setPointSizeF(scaled(item, _BASE_FONT, size, fs))
                    item.setStyle(tickFont=f)
                elif isinstance(item, (QtWidgets.QGraphicsTextItem, QtWidgets.QGraphicsSimpleTextItem)):
                    f = item.font()
                    size = f.pointSizeF() if f.pointSizeF() > 0 else 9.0
                    f.setPointSizeF(scaled(item, _BASE_FONT, size, fs))
                    item.setFont(f)
                if isinstance(item, (QtWidgets.QAbstractGraphicsShapeItem, QtWidgets.QGraphicsLineItem)):
                    pen = item.pen()
                    if pen.style() != QtCore.Qt.PenStyle.NoPen:
                        pen.setWidthF(scaled(item, _BASE_PEN, pen.widthF(), ls, minimum=1.0))
                        item.setPen(pen)

    def showEvent(self, event):
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        """At least the height the picture and its wrapped texts need at the panel's width now.

        Splitters ask widgets only for a minimum size, not for a height that suits their width; a
        narrow panel (a small screen) then got less height than its wrapped lines of arithmetic need,
        and they were drawn over the plot. The panel grid scrolls instead. Only where something scrolls
        (``text_room``, set by the grid): in a dock, the window would grow past the screen instead."""
        hint = super().minimumSizeHint()
        layout = self.body.layout()
        if self.text_room and layout is not None and self.width() > 0 and not self.showing_hint() \
                and layout.hasHeightForWidth():
            hint.setHeight(max(hint.height(), layout.minimumHeightForWidth(self.width())))
        return hint

    def resizeEvent(self, event):
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the wrapped texts' height follows the width: ask for it again

    def showing_hint(self) -> bool:
        return self._stack.currentWidget() is self.hint
