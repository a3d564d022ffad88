"""What a reader sees of a panel's texts: which are cut, drawn over one another, or too small to read.

    problems = unreadable(panel)        # [] when every text on show reads whole
    problems = unreadable(panel, floor_px=9)

Each problem is one line naming the text, e.g. ``"label 'scalingNote': needs 64 px high, has 40"`` or
``"text '0.3606' in scalingPanel: cut at the picture's edge"``. Widgets are checked against the size their
text needs (a label that shortens itself with "…" is fine); texts drawn in a picture (graphics items)
against the part of the picture that shows them: the view's area and every item that clips its children.
"""
from __future__ import annotations

import math

from PySide6 import QtCore, QtGui, QtWidgets

#: Slack (pixels) for rounding between a size hint and a laid-out size.
SLACK = 1.5
#: Two texts whose boxes share more than this many pixels both ways lie over one another.
OVERLAP_PX = 3.0


def _shown(widget: QtWidgets.QWidget, root: QtWidgets.QWidget) -> bool:
    return widget.isVisibleTo(root) and widget.isVisible() and widget.width() > 0 and widget.height() > 0


def _elides_itself(label: QtWidgets.QLabel) -> bool:
    """A label that shortens its own text to its width (the full text in its tool tip)."""
    shown = QtWidgets.QLabel.text(label)
    full = label.text()
    return shown != full and label.toolTip() == full or label.sizePolicy().horizontalPolicy() == \
        QtWidgets.QSizePolicy.Policy.Ignored and label.toolTip() == full


def widget_problems(root: QtWidgets.QWidget) -> list[str]:
    """Labels and buttons under ``root`` whose text does not fit the room they have."""
    found = []
    for label in root.findChildren(QtWidgets.QLabel):
        if not _shown(label, root) or not QtWidgets.QLabel.text(label).strip():
            continue
        name = label.objectName() or QtWidgets.QLabel.text(label)[:30]
        if _elides_itself(label):
            shown = QtWidgets.QLabel.text(label)
            if label.fontMetrics().horizontalAdvance(shown) > label.contentsRect().width() + SLACK:
                found.append(f"label {name!r}: its shortened text is still wider than the label")
            continue
        room = label.contentsRect()
        if label.wordWrap():
            need = label.heightForWidth(label.width())
            if need > label.height() + SLACK:
                found.append(f"label {name!r}: needs {need} px high, has {label.height()}")
        else:
            hint = label.sizeHint()
            if hint.width() > label.width() + SLACK:
                found.append(f"label {name!r}: needs {hint.width()} px wide, has {label.width()}")
            if label.fontMetrics().height() > room.height() + SLACK:
                found.append(f"label {name!r}: needs {label.fontMetrics().height()} px high, has {room.height()}")
    for button in root.findChildren(QtWidgets.QAbstractButton):
        if not _shown(button, root) or not button.text().strip() or isinstance(button, QtWidgets.QTabBar):
            continue
        if button.parentWidget() is not None and isinstance(button.parentWidget(), QtWidgets.QTabBar):
            continue  # a tab bar's scroll arrows
        hint = button.sizeHint()
        if hint.width() > button.width() + SLACK:
            found.append(f"button {button.objectName() or button.text()!r}: needs {hint.width()} px wide, "
                         f"has {button.width()}")
    return found


def _text_of(item) -> str:
    if isinstance(item, QtWidgets.QGraphicsSimpleTextItem):
        return item.text()
    return item.toPlainText()


def _pixel_size(item, transform: QtGui.QTransform) -> float:
    """The height of the item's letters on screen, in pixels."""
    info = QtGui.QFontInfo(item.font())
    scale = math.sqrt(abs(transform.determinant())) or 1.0
    return info.pixelSize() * scale


def _clip_rect(item, view) -> QtCore.QRectF:
    """The part of the view's area in which ``item`` can show (its clipping ancestors' shapes)."""
    room = QtCore.QRectF(view.viewport().rect())
    parent = item.parentItem()
    vt = view.viewportTransform()
    while parent is not None:
        if parent.flags() & QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape:
            room = room.intersected(parent.deviceTransform(vt).mapRect(parent.boundingRect()))
        parent = parent.parentItem()
    return room


def picture_texts(view: QtWidgets.QGraphicsView) -> list:
    """(item, text, rectangle in the view's pixels, letter height in pixels) of every text shown."""
    scene = view.scene()
    if scene is None:
        return []
    vt = view.viewportTransform()
    shown = []
    for item in scene.items():
        if not isinstance(item, (QtWidgets.QGraphicsSimpleTextItem, QtWidgets.QGraphicsTextItem)):
            continue
        text = _text_of(item).strip()
        if not text or not item.isVisible() or item.effectiveOpacity() < 0.05:
            continue
        device = item.deviceTransform(vt)
        box = item.boundingRect()
        if isinstance(item, QtWidgets.QGraphicsTextItem):  # the text, without the document's empty margin
            m = item.document().documentMargin()
            box = box.adjusted(m, m, -m, -m)
        rect = device.mapRect(box)
        shown.append((item, text, rect, _pixel_size(item, device)))
    return shown


def picture_problems(root: QtWidgets.QWidget, floor_px: float = 0.0, overlaps: bool = True) -> list[str]:
    """Texts drawn in the pictures under ``root``: cut at an edge, lying over one another, or (with
    ``floor_px``) smaller than that many pixels."""
    found = []
    for view in root.findChildren(QtWidgets.QGraphicsView):
        if not _shown(view, root):
            continue
        texts = picture_texts(view)
        where = view.objectName() or type(view).__name__
        for item, text, rect, px in texts:
            room = _clip_rect(item, view)
            inner = room.adjusted(-SLACK, -SLACK, SLACK, SLACK)
            if not inner.contains(rect):
                if not rect.intersects(room):
                    continue  # panned out of sight (a zoomed or scrolled picture), not cut
                found.append(f"text {text[:40]!r} in {where}: cut at the picture's edge "
                             f"({rect.toRect().getRect()} outside {room.toRect().getRect()})")
            if floor_px and px < floor_px - 0.05:
                found.append(f"text {text[:40]!r} in {where}: {px:.1f} px high, below {floor_px} px")
        if overlaps:
            for a in range(len(texts)):
                for b in range(a + 1, len(texts)):
                    ia, ta, ra, _ = texts[a]
                    ib, tb, rb, _ = texts[b]
                    if ia.isAncestorOf(ib) or ib.isAncestorOf(ia):
                        continue
                    both = ra.intersected(rb)
                    if both.width() > OVERLAP_PX and both.height() > OVERLAP_PX:
                        found.append(f"texts {ta[:30]!r} and {tb[:30]!r} in {where} lie over one another")
    return found


def unreadable(root: QtWidgets.QWidget, floor_px: float = 0.0, overlaps: bool = True) -> list[str]:
    """Every text under ``root`` that a reader cannot read whole: see the module's docstring."""
    return widget_problems(root) + picture_problems(root, floor_px, overlaps)
