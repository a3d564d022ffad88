"""The plot label (``TextLabel``): its anchor point stays on its position whatever its text, font or angle."""
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_gui.drawing.text_label import TextLabel


def anchor_point(label: TextLabel) -> QtCore.QPointF:
    """Where the label's anchor point (a point of its text box) lies in the scene."""
    box = label.box_rect()
    a = label.anchor
    return label.mapToScene(QtCore.QPointF(box.left() + a.x() * box.width(), box.top() + a.y() * box.height()))


@pytest.mark.parametrize("anchor", [(0.0, 0.0), (0.5, 1.0), (1.0, 0.5)])
def test_the_anchor_stays_on_the_position_as_text_font_and_angle_change(qapp, anchor):
    scene = QtWidgets.QGraphicsScene()
    label = TextLabel("0.25", anchor=anchor)
    scene.addItem(label)
    label.setPos(40.0, 30.0)
    at = QtCore.QPointF(40.0, 30.0)
    assert anchor_point(label) == at
    width = label.box_size().width()
    label.setText("0.75")  # the same size: nothing to place again, and still in place
    assert label.box_size().width() == width and anchor_point(label) == at
    label.setText("-10.75")  # wider
    assert label.box_size().width() > width and anchor_point(label) == at
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 2)
    label.setFont(font)  # bigger
    assert anchor_point(label) == at
    label.setAngle(90)  # turned about its anchor
    assert (anchor_point(label) - at).manhattanLength() < 1e-9
    label.setText("1.50")
    assert (anchor_point(label) - at).manhattanLength() < 1e-9
    label.fill = QtGui.QColor("white")  # a box behind the text, as large as its text box
    assert label._box.rect() == label.box_rect()
    label.setText("12345.678")
    assert label._box.rect() == label.box_rect()
