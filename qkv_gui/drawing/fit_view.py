"""A pyqtgraph layout widget that shrinks its drawing to fit instead of clipping it.

When the layout's minimum size (titles, labels) is larger than the widget, the whole
scene is scaled down uniformly so everything stays in view; otherwise it is drawn
at one scene unit per pixel, as usual.
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore


class FitLayoutWidget(pg.GraphicsLayoutWidget):
    def __init__(self, *args, **kwargs):
        self._built = False  # pyqtgraph resizes the widget while it is still being built
        super().__init__(*args, **kwargs)
        self._built = True

    def resizeEvent(self, ev):
        super().resizeEvent(ev)
        self.refit()

    def refit(self) -> None:
        if not self._built or self.closed:
            return  # still being built
        w, h = max(1, self.width()), max(1, self.height())
        need = self.ci.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize)
        scale = max(1.0, need.width() / w, need.height() / h)
        if scale > 1.0 + 1e-3:
            rect = QtCore.QRectF(0, 0, w * scale, h * scale)
            if self.autoPixelRange or self.range != rect:  # refitting to the same rect would redraw it all
                pg.GraphicsView.setRange(self, rect, padding=0, lockAspect=True)
        elif not self.autoPixelRange:
            self.autoPixelRange = True
            pg.GraphicsView.setRange(self, QtCore.QRectF(0, 0, w, h), padding=0, disableAutoPixel=False)
            self.updateMatrix()
