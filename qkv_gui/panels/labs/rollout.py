"""Attention rollout (Abnar & Zuidema, 2020): where a trained model's information may have come from after
several layers, beside the raw attention of the last of those layers.

Left: ``qkv_engine.rollout(trace.weights, residual)[l]``, the rollout through layers 1 .. l (row i: position
i after layer l; column j: how much of token j's information the rollout says reached it). Right: layer l's
own attention, the mean over its heads (``qkv_engine.rollout_steps(weights, residual=False)[l]``, each row
adding up to 1). Both on one colour scale (the session's: 0 to 1, auto, or each row to its largest), with
one colour bar. A layer slider picks l; "Residual" mixes in the identity (0.5 W + 0.5 I) as the paper does.
The caption says what rollout leaves out: it is an approximation, not a measurement.

With the session's word view on, a word's pieces are joined (``qkv_engine.word_weights``: to a word the sum
over its pieces, from a word the mean) and WORD_RULE is said in the caption. Clicking a cell selects that
query and key in every panel (a word: its first piece); hovering one says both numbers. The layer and the
residual switch are kept in ``session.lab_state["rollout"]``, so that an exported copy shows what the one
on screen shows. With no model open the panel says how to open one.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import WORD_RULE, rollout, rollout_steps, views, word_weights

from ...look import colours, style
from ..base import Panel
from ...drawing.cell_grid import CellGridItem, Outline
from ...drawing.colour_scale import bar_titles, place_bar, show_on_bar
from ...drawing.lazy_axes import set_axis_title, set_ticks
from ...drawing.token_labels import label_step, short_token
from ...drawing.turned_axis import TurnableAxis
from ...look.colour_tables import colour_map
from ...labels.captions import info_label, note_label, show_texts
from ...labels.folding_row import FoldingRow
from ...labels.changed_text import set_tooltip
from ..themed_text import ThemedTextMixin

Qt = QtCore.Qt
TICK_PT = 8.0
#: Token names are cut to this many characters (upright key names take their length in height).
NAME_CHARS = 8
#: A picture at least this tall (pixels) has the title of its key axis.
TALL_ENOUGH = 300
#: session.lab_state key of this panel: {"layer": 0-based or None (the last), "residual": bool}
STATE = "rollout"
APPROXIMATION = ("Rollout is an approximation of where information came from, not a measurement: it follows "
                 "the attention weights only and leaves out the values, the MLPs and W^O.")


class RolloutPanel(ThemedTextMixin, Panel):
    object_name = "rolloutPanel"
    title = "Attention rollout"
    follows_colours = True
    empty_hint = ("Open a trained model (File \u2192 Open model\u2026) to follow its attention through the "
                  "layers here.")
    dock_size = (600, 480)

    # ----- building -----------------------------------------------------------------------------------
    def build(self, body):
        self._cache = (None, None)  # ((weights, residual), (rollout L x n x n, layer means L x n x n))
        self._shown = None  # (rollout matrix, layer matrix, labels, word groups or None) drawn now
        self._note = None
        self._info = None
        self.hover_cell_ij = None
        self.hover_text = ""
        self.x_tick_labels: list = []
        self.y_tick_labels: list = []

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        self.note = note_label(body, "rolloutNote")
        layout.addWidget(self.note)

        row = QtWidgets.QHBoxLayout()
        row.setContentsMargins(4, 0, 4, 0)
        self.layerLabel = QtWidgets.QLabel("Through layer", body)
        self.layerSlider = QtWidgets.QSlider(Qt.Orientation.Horizontal, body)
        self.layerSlider.setObjectName("rolloutLayerSlider")
        self.layerSlider.setMinimum(1)
        self.layerSlider.setPageStep(1)
        self.layerSlider.setTickPosition(QtWidgets.QSlider.TickPosition.TicksBelow)
        self.layerSlider.setToolTip("Follow the attention through layers 1 to this one")
        self.layerValue = QtWidgets.QLabel(body)
        self.layerValue.setObjectName("rolloutLayerValue")
        self.residualCheck = QtWidgets.QCheckBox("Residual", body)
        self.residualCheck.setObjectName("rolloutResidualCheck")
        self.residualCheck.setToolTip("On: each layer keeps half of every token as it was (0.5 W + 0.5 I), for the "
                                      "residual connection that carries a token past the attention, as Abnar and "
                                      "Zuidema do. Off: the attention alone.")
        self.wordsCheck = QtWidgets.QCheckBox("Words", body)
        self.wordsCheck.setObjectName("rolloutWordsCheck")
        self.wordsCheck.setToolTip(f"Join each word's pieces (the same switch as in the Trained model box). "
                                   f"{WORD_RULE} Clicking a word selects its first piece.")
        row.addWidget(self.layerLabel)
        row.addWidget(self.layerSlider, 1)
        row.addWidget(self.layerValue)
        switches = QtWidgets.QHBoxLayout()
        switches.setContentsMargins(4, 0, 4, 0)
        switches.addWidget(self.residualCheck)
        switches.addWidget(self.wordsCheck)
        switches.addStretch(1)  # (folded: at the left, under the slider)
        # the slider and the switches in one row, or the switches under the slider when the panel is narrow
        # (beside them in a dock on a 1024 x 768 screen, the slider was squeezed to 18 pixels)
        self.controls = FoldingRow((row, switches), body, spacing=2, stretch=0, name="rolloutControls")
        layout.addWidget(self.controls)

        # two pictures, each its own view, in a box that lays them beside each other or one above the other
        self.canvas = QtWidgets.QWidget(body)
        self.canvas.setObjectName("rolloutCanvas")
        self.pictures_box = QtWidgets.QBoxLayout(QtWidgets.QBoxLayout.Direction.LeftToRight, self.canvas)
        self.pictures_box.setContentsMargins(0, 0, 0, 0)
        self.pictures_box.setSpacing(0)
        tick_font = QtGui.QFont()
        tick_font.setPointSizeF(TICK_PT)
        self._tick_font = tick_font
        self._metrics = QtGui.QFontMetricsF(tick_font)
        self.views, self.plots, self.grids = [], [], []
        for name in ("rollout", "layer"):
            view = pg.GraphicsLayoutWidget(self.canvas)
            view.setObjectName(f"{name}Picture")
            view.ci.layout.setContentsMargins(2, 6, 4, 2)
            self.pictures_box.addWidget(view, 1)
            plot = view.addPlot(axisItems={"bottom": TurnableAxis("bottom")}, enableMenu=False)
            plot.setMenuEnabled(False)
            plot.hideButtons()
            plot.setMouseEnabled(False, False)
            vb = plot.getViewBox()
            vb.invertY(True)
            vb.setDefaultPadding(0.0)
            for side, role in (("left", "query"), ("bottom", "key")):
                axis = plot.getAxis(side)
                axis.setStyle(tickFont=tick_font, tickLength=-3, autoExpandTextSpace=True)
                colours.paint(axis, self.colours, pen="foreground", text=f"ink_{role}")
                axis.label.setFont(tick_font)
            grid = CellGridItem("weights")
            plot.addItem(grid)
            grid.cellHovered.connect(self._on_hover)
            grid.cellLeft.connect(self._on_left)
            grid.cellClicked.connect(self._on_click)
            vb.sigResized.connect(lambda *_: self._update_labels())
            self.views.append(view)
            self.plots.append(plot)
            self.grids.append(grid)
        self.rolloutGrid, self.layerGrid = self.grids
        self.rolloutPlot, self.layerPlot = self.plots
        self.side_by_side = True  # the two pictures beside each other (wide) or one above the other (tall)
        # one colour scale for both; each picture has its bar, so that the two are laid out alike and their
        # cells line up
        self.colorbars = []
        for plot in self.plots:
            bar = pg.ColorBarItem(values=(0.0, 1.0), colorMap=colour_map("weights", self.colours),
                                  interactive=False, width=10, label="weight", colorMapMenu=False)
            colours.paint(bar, self.colours, table="weights")
            place_bar(bar, plot)
            bar.getAxis("right").setStyle(tickFont=tick_font, hideOverlappingLabels=False)
            bar.getAxis("left").label.setFont(tick_font)
            self.colorbars.append(bar)
        self.colorbar = self.colorbars[1]
        layout.addWidget(self.canvas, 1)
        self.canvas.installEventFilter(self)

        self.info = info_label(body, "rolloutInfo", self.colours)
        self.info.setTextFormat(Qt.TextFormat.PlainText)  # a token such as <s> is text, not a tag
        layout.addWidget(self.info)

        self.layerSlider.valueChanged.connect(self._on_layer)
        self.residualCheck.toggled.connect(self._on_residual)
        self.wordsCheck.toggled.connect(self.session.set_word_view)
        self._key_title = "from token (key)"
        self.listen(self.session.modelViewChanged, self._on_change)
        self.listen(self.session.colourScaleChanged, self._on_change)
        self.listen(self.session.wordViewChanged, self._on_change)

    # ----- the panel's settings (kept in the session, for exported copies) ----------------------------
    def _state(self) -> dict:
        return self.session.lab_state.setdefault(STATE, {"layer": None, "residual": True})

    @property
    def layer(self) -> int:
        """The layer shown (0-based): the last one unless one was chosen."""
        trace = self.session.model_trace
        L = trace.n_layers if trace is not None else 1
        chosen = self._state()["layer"]
        return L - 1 if chosen is None else max(0, min(int(chosen), L - 1))

    @property
    def residual(self) -> bool:
        return bool(self._state()["residual"])

    def set_layer(self, layer: int) -> None:
        """Show the rollout through layers 1 .. ``layer`` + 1 (0-based ``layer``; as the slider does)."""
        trace = self.session.model_trace
        last = (trace.n_layers - 1) if trace is not None else None
        self._state()["layer"] = None if layer == last else int(layer)
        self._on_change()

    def set_residual(self, on: bool) -> None:
        self._state()["residual"] = bool(on)
        self._on_change()

    def _on_layer(self, value: int) -> None:
        self.set_layer(value - 1)

    def _on_residual(self, on: bool) -> None:
        self.set_residual(on)

    # ----- filling ------------------------------------------------------------------------------------
    def hint_for(self, result) -> str | None:
        if self.session.model_doc is None:
            return self.empty_hint
        trace = self.session.model_trace
        if trace is None:
            return "The model is running\u2026"
        if trace.n == 0:
            return "Type a sentence: the model needs at least one token."
        return None

    def matrices(self) -> tuple:
        """(rollout through the layer shown, that layer's mean over heads), every layer worked out once per
        trace and residual setting by the engine."""
        trace = self.session.model_trace
        made_for = self._cache[0]  # (the weights themselves, not their id: a new array may reuse a freed one's)
        if made_for is None or made_for[0] is not trace.weights or made_for[1] != self.residual:
            self._cache = ((trace.weights, self.residual), (rollout(trace.weights, residual=self.residual),
                                                            rollout_steps(trace.weights, residual=False)))
        rolled, steps = self._cache[1]
        return rolled[self.layer], steps[self.layer]

    def show_result(self, result, selection):
        trace = self.session.model_trace
        L, H = trace.n_layers, trace.n_heads
        layer = self.layer
        for widget in (self.layerSlider, self.residualCheck, self.wordsCheck):
            widget.blockSignals(True)  # (set from the session: nothing is sent back)
        try:
            if self.layerSlider.maximum() != L:
                self.layerSlider.setMaximum(L)
            self.layerSlider.setValue(layer + 1)
            self.residualCheck.setChecked(self.residual)
            self.wordsCheck.setChecked(self.session.word_view)
        finally:
            for widget in (self.layerSlider, self.residualCheck, self.wordsCheck):
                widget.blockSignals(False)
        self.layerValue.setText(f"{layer + 1} of {L}")

        rolled, raw = self.matrices()
        words = self.session.words_shown
        if words is not None and sum(len(w.pieces) for w in words) == rolled.shape[0]:
            rolled, raw = word_weights(rolled, words), word_weights(raw, words)
            labels = [w.text for w in words]
        else:
            words = None
            labels = list(trace.tokens)
        self._shown = (rolled, raw, labels, words)
        mode = self.session.colour_scale
        levels = views.colour_levels(np.stack([rolled, raw]), mode)
        high = levels.high
        highs = (high[0], high[1]) if isinstance(high, np.ndarray) and high.ndim == 3 else (high, high)
        n = rolled.shape[0]
        for grid, values, top, plot in zip(self.grids, (rolled, raw), highs, self.plots):
            grid.setData(values, (0.0, top))
            grid.setRect(QtCore.QRectF(0, 0, n, n))
            plot.getViewBox().setRange(xRange=(0, n), yRange=(0, n), padding=0.0)
        titles = bar_titles(levels)  # longest first: "weight (0 to 1)", "weight, auto", "weight, per row"
        for bar in self.colorbars:
            show_on_bar(bar, levels, title=titles[0] if mode == "absolute" else titles[1])
        through = "layer 1" if layer == 0 else f"layers 1\u2013{layer + 1}"
        self._titles = ((f"Rollout through {through}", f"Rollout, {through}"),
                        (f"Layer {layer + 1} alone (mean of {H} heads)", f"Layer {layer + 1} alone"))
        self._fit_titles()
        for plot in self.plots:
            set_axis_title(plot.getAxis("left"), "position (query)", color=self.colours.ink["query"])
        self._key_title = "from token (key)" if words is None else "from word (key)"

        residual = ("with the residual: each layer keeps half of every token (0.5 W + 0.5 I)" if self.residual
                    else "attention alone, no residual")
        wide = (f"Row: a position after layer {layer + 1}; column: how much of that token's information the "
                f"rollout says reached it (rows add up to 1). Each layer's heads are averaged, {residual}, and "
                f"the layers multiplied. <b>{APPROXIMATION}</b>")
        narrow = (f"Rollout ({'residual' if self.residual else 'no residual'}): heads averaged, layers multiplied. "
                  f"<b>An approximation, not a measurement.</b>")
        if words is not None:
            wide += f"<br>Words: {WORD_RULE}"
            narrow += " Words: to a word = sum of its pieces, from a word = mean."
        self._note = (wide, narrow)
        self._update_selection(selection)
        self._update_labels()
        self._keep_in_view()
        QtCore.QTimer.singleShot(0, self, self._keep_in_view)  # (after the layouts took the new words)
        hover = next((g.hovered for g in self.grids if g.hovered is not None), None)
        if hover is not None:
            self._on_hover(*hover)
        else:
            self._show_selected()

    # ----- selection and words ----------------------------------------------------------------------------
    def _cell_of_selection(self, selection) -> tuple:
        """The (row, column) the selection falls in: a word's when words are shown."""
        words = self._shown[3]
        i, j = selection.query, selection.key
        if words is not None:
            return self.session.word_of(words, i), self.session.word_of(words, j)
        n = self._shown[0].shape[0]
        return min(i, n - 1), min(j, n - 1)

    def _update_selection(self, selection) -> None:
        n = self._shown[0].shape[0]
        i, j = self._cell_of_selection(selection)
        for grid in self.grids:
            grid.set_outlines({
                "row": Outline(QtCore.QRectF(0, i, n, 1), self.colours.ink["query"], 1.5, dashed=True),
                "cell": Outline(QtCore.QRectF(j, i, 1, 1), self.colours.selected, 2.5, halo=True),
            })

    def cell_words(self, i: int, j: int) -> str:
        """"'it' ← 'animal': rollout 0.31, layer 3 alone 0.12" for row i, column j of the pictures."""
        rolled, raw, labels, _words = self._shown
        return (f"'{short_token(labels[i])}' \u2190 '{short_token(labels[j])}': rollout "
                f"{style.fmt(rolled[i, j], 2)}, layer {self.layer + 1} alone {style.fmt(raw[i, j], 2)}")

    def _show_selected(self) -> None:
        i, j = self._cell_of_selection(self.session.selection)
        rolled, _raw, labels, _words = self._shown
        top, _left = views.largest_entries(rolled[i], 3)
        most = ", ".join(f"'{short_token(labels[k])}' {style.fmt(rolled[i, k], 2)}" for k in top)
        text = self.cell_words(i, j)
        self._info = (f"Selected: {text}. After layer {self.layer + 1}, '{short_token(labels[i])}' holds most "
                      f"of: {most}.", f"Selected: {text}")
        set_tooltip(self.canvas, text)
        self._apply_texts()

    def _on_hover(self, i: int, j: int) -> None:
        if self._shown is None:
            return
        self.hover_cell_ij = (i, j)
        self.hover_text = self.cell_words(i, j)
        self._info = (f"Under the mouse: {self.hover_text}.", self.hover_text)
        set_tooltip(self.canvas, self.hover_text)
        self._apply_texts()

    def _on_left(self) -> None:
        self.hover_cell_ij = None
        self.hover_text = ""
        if self._shown is not None and not self.showing_hint():
            self._show_selected()

    def _on_click(self, i: int, j: int) -> None:
        words = self._shown[3] if self._shown is not None else None
        if words is not None:  # a word stands for its first piece
            i, j = words[i].pieces[0], words[j].pieces[0]
        self.session.select(query=i, key=j)

    # ----- names on the axes --------------------------------------------------------------------------
    def _update_labels(self) -> None:
        """Token (or word) names on each picture's axes: as many as fit its cells, every k-th when they would
        overlap; key names stand upright when that names more columns."""
        if self._shown is None or self.showing_hint():
            return
        labels = [short_token(t, NAME_CHARS) for t in self._shown[2]]
        n = len(labels)
        fm = self._metrics
        line = fm.height()
        widest = max(fm.horizontalAdvance(t) for t in labels) if labels else 0.0
        for k, plot in enumerate(self.plots):
            vb = plot.getViewBox()
            (x0, x1), (y0, y1) = vb.viewRange()
            px_x = max(1.0, vb.width()) / max(1e-9, x1 - x0)
            px_y = max(1.0, vb.height()) / max(1e-9, y1 - y0)
            across = label_step((widest + 8.0) / px_x)
            upright = label_step((line + 2.0) / px_x)
            turned = upright < across
            xt = [(j + 0.5, labels[j]) for j in range(0, n, upright if turned else across)]
            yt = [(i + 0.5, labels[i]) for i in range(0, n, label_step((line + 1.0) / px_y))]
            if k == 0:
                self.x_tick_labels, self.y_tick_labels = xt, yt
            bottom = plot.getAxis("bottom")
            # the keys' title only under a picture tall enough to spare its line (the note says what columns are)
            title = (self._key_title if self.views[k].height() >= TALL_ENOUGH else None, self.colours.ink["key"])
            if getattr(bottom, "_qkv_title", None) != title:
                bottom._qkv_title = title
                set_axis_title(bottom, title[0], color=title[1])
            bottom.set_turned(turned, widest)
            set_ticks(bottom, [xt, []])
            set_ticks(plot.getAxis("left"), [yt, []])

    # ----- words -----------------------------------------------------------------------------------------
    def _apply_texts(self) -> None:
        show_texts(self.width(), ((self.note, self._note), (self.info, self._info)))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt naming)
        """The picture changed size: the two grids beside each other when it is wide (at least 1.6 times as wide as
        tall), else one above the other."""
        if obj is self.canvas and event.type() == QtCore.QEvent.Type.Resize:
            self._arrange(event.size().width() >= 1.6 * event.size().height())
            QtCore.QTimer.singleShot(0, self, self._fit_titles)  # (when the pictures have their new widths)
            QtCore.QTimer.singleShot(0, self, self._keep_in_view)
        return False

    def _fit_titles(self) -> None:
        """Each picture's title, the long form when it fits the picture's width (a title wider than the picture
        would widen it past its view and cut its right side off)."""
        titles = getattr(self, "_titles", None)
        if titles is None:
            return
        font = QtGui.QFont(self._tick_font)
        font.setPointSizeF(9.0 * self.theme.font_scale)
        fm = QtGui.QFontMetricsF(font)
        for view, plot, forms in zip(self.views, self.plots, titles):
            room = view.width() - plot.getAxis("left").width() - 90  # (the colour bar and its numbers)
            text = next((t for t in forms if fm.horizontalAdvance(t) <= room), forms[-1])
            look = (text, str(self.colours.foreground), font.pointSizeF())
            if getattr(plot, "_qkv_title", None) != look:  # set again for new words, colours or text size
                plot._qkv_title = look
                plot.setTitle(text, size=f"{font.pointSizeF():g}pt", color=self.colours.foreground)
        self._keep_in_view()


    def _keep_in_view(self) -> None:
        """Each picture back to its view's size: a picture whose parts once asked for more room (a longer title,
        wider numbers) keeps that size when they shrink, and its right side would stay cut off."""
        for view in self.views:
            if view.ci.geometry().size() != QtCore.QSizeF(view.size()):
                view.resizeEvent(None)

    def _arrange(self, side_by_side: bool) -> None:
        if side_by_side == self.side_by_side:
            return
        self.side_by_side = side_by_side
        self.pictures_box.setDirection(QtWidgets.QBoxLayout.Direction.LeftToRight if side_by_side
                                       else QtWidgets.QBoxLayout.Direction.TopToBottom)
        self._update_labels()

    def theme_changed(self, theme) -> None:
        for grid in self.grids:
            grid.set_theme_scale(theme.font_scale, theme.line_scale)
        font = QtGui.QFont(self._tick_font)
        font.setPointSizeF(TICK_PT * theme.font_scale)
        self._metrics = QtGui.QFontMetricsF(font)
