"""Where a panel's texts lie, as a viewer sees them: every visible text item of its graphics scenes (plain
QGraphicsTextItem / QGraphicsSimpleTextItem, and the ones inside pyqtgraph's TextItem, LabelItem and axis
titles), measured by its laid-out lines and mapped to panel pixels; the words a panel paints itself; and
the texts that overlap or stick out of their plot or view.

    layout_problems(panel)   # [] when no text overlaps another or sticks out, and no label is cut
"""
from PySide6 import QtCore, QtWidgets

import pyqtgraph as pg

SLACK = 2.0  # pixels of tolerance (anti-aliasing, rounding)


def shown_whole(widget, area, rect=None) -> bool:
    """Whether ``rect`` (in ``widget``'s pixels; default: all of ``widget``) lies whole inside ``area``, an
    ancestor of it (a panel, or a scroll area's viewport: in sight, not cut off at its edge)."""
    rect = widget.rect() if rect is None else rect
    return area.rect().contains(QtCore.QRect(widget.mapTo(area, rect.topLeft()), rect.size()))


def text_of(item) -> str:
    return item.toPlainText() if isinstance(item, QtWidgets.QGraphicsTextItem) else item.text()


def ink_rect(item) -> QtCore.QRectF:
    """The lines of text actually laid out (a text item's box may be wider than its words)."""
    if not isinstance(item, QtWidgets.QGraphicsTextItem):
        return item.boundingRect()
    doc = item.document()
    doc.documentLayout()
    rect = QtCore.QRectF()
    block = doc.begin()
    while block.isValid():
        layout = block.layout()
        if layout is not None and block.text().strip():
            for k in range(layout.lineCount()):
                r = layout.lineAt(k).naturalTextRect().translated(layout.position())
                rect = r if rect.isNull() else rect.united(r)
        block = block.next()
    return rect


def _viewbox_of(item):
    parent = item.parentItem()
    while parent is not None:
        if isinstance(parent, pg.ViewBox):
            return parent
        parent = parent.parentItem()
    return None


def scene_texts(panel):
    for view in panel.findChildren(QtWidgets.QGraphicsView):
        if view.scene() is None or not view.isVisibleTo(panel):
            continue
        for item in view.scene().items():
            if isinstance(item, (QtWidgets.QGraphicsTextItem, QtWidgets.QGraphicsSimpleTextItem)):
                if item.isVisible() and item.opacity() > 0 and text_of(item).strip():
                    yield view, item


def text_boxes(panel):
    """[(text, rect, allowed area)] in panel pixels: the allowed area is the item's plot (ViewBox) when it
    is drawn inside one, else its graphics view."""
    out = []
    for view, item in scene_texts(panel):
        ink = ink_rect(item)
        if ink.isEmpty():
            continue
        origin = view.viewport().mapTo(panel, QtCore.QPoint(0, 0))
        shift = (float(origin.x()), float(origin.y()))
        area = QtCore.QRectF(view.viewport().rect()).translated(*shift)
        # through the device transform: right for labels that ignore the plot's scale, as for the others
        rect = item.deviceTransform(view.viewportTransform()).mapRect(ink).translated(*shift)
        vb = _viewbox_of(item)
        if vb is not None:
            plot = QtCore.QRectF(view.mapFromScene(vb.sceneBoundingRect()).boundingRect()).translated(*shift)
            area = plot.intersected(area)
        out.append((text_of(item), rect, area))
    return out


def painted_boxes(panel):
    """The mixing panel paints its words itself: it says where (``canvas_texts``: headers, the dials' names,
    line labels, output cells)."""
    canvas = getattr(panel, "canvas", None)
    if not hasattr(panel, "canvas_texts"):
        return []
    at = canvas.mapTo(panel, QtCore.QPoint(0, 0))
    area = QtCore.QRectF(at.x(), at.y(), canvas.width(), canvas.height())
    rects = panel.canvas_texts()
    return [(text, QtCore.QRectF(rect).translated(at.x(), at.y()), area) for text, rect in rects]


def layout_problems(panel):
    boxes = text_boxes(panel) + painted_boxes(panel)
    bad = []
    for text, rect, area in boxes:
        if not area.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(rect):
            bad.append(f"{text!r} at {rect.getRect()} sticks out of {area.getRect()}")
    for a in range(len(boxes)):
        for b in range(a + 1, len(boxes)):
            ra = boxes[a][1].adjusted(SLACK, SLACK, -SLACK, -SLACK)
            rb = boxes[b][1].adjusted(SLACK, SLACK, -SLACK, -SLACK)
            if ra.intersects(rb):
                bad.append(f"{boxes[a][0]!r} {boxes[a][1].getRect()} overlaps {boxes[b][0]!r} {boxes[b][1].getRect()}")
    for label in panel.findChildren(QtWidgets.QLabel):
        if not label.isVisibleTo(panel) or not label.text().strip():
            continue
        at = label.mapTo(panel, QtCore.QPoint(0, 0))
        rect = QtCore.QRectF(at.x(), at.y(), label.width(), label.height())
        if not QtCore.QRectF(panel.rect()).adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(rect):
            bad.append(f"label {label.objectName()!r} at {rect.getRect()} sticks out of the panel")
        elif label.wordWrap() and label.heightForWidth(label.width()) > label.height() + SLACK:
            bad.append(f"label {label.objectName()!r} is cut: needs {label.heightForWidth(label.width())} px, "
                       f"has {label.height()}")
    return bad
