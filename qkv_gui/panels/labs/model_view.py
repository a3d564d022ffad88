"""Model view: every layer and head of a trained model at once, as a grid of small weight maps.

Rows are layers ("layer 1" at the top), columns are heads; each tile is that head's n x n attention
weights (rows: queries, columns: keys), like BertViz's model view. All tiles are ONE cell-grid item: the
weights are tiled into one array with empty (NaN) gaps between the tiles. Each tile is coloured by the
session's colour scale, "auto" meaning each tile from 0 to its own largest weight, so that every head's
pattern shows; masked cells get the mask look of every grid. The head the other panels show is outlined,
with the selected query's row; a knocked-out head is veiled and crossed.

Hovering a tile says where the selected query looks most in that head ("layer 3, head 5: 'it' looks most
at 'animal' (0.41)"); clicking a tile steps into that head (``headClicked(layer, head)``, 0-based, and
``session.select_model_head``). The panel reads ``session.model_view_data`` (None: no model is open, and
a hint says so) and follows ``session.modelViewChanged``.

Each tile carries a word for what that head does in this sentence (``head_labels``: previous, next, self,
first, separator, broad, mixed); clicking a word in the legend under the grid shows only those heads (the
others are dimmed). In a grouped-query model the query heads that share a key/value head are framed together
in a dashed band, and the note says how many share each. After "Which heads matter?" (the prediction panel)
the tiles can be coloured by ``head_effects``: the change in the pinned word's log-probability when each
head alone is knocked out, on a diverging scale (blue: the head helped, red: it hurt), the number on the tile.

With the session's word view on, every tile shows words instead of pieces (``qkv_engine.word_weights``: to a
word the sum over its pieces, from a word the mean), the labels are worked out from those word weights, and
the note states the rule.
"""
from __future__ import annotations

import dataclasses
import html
import math

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import pyqtgraph as pg  # noqa: E402  (PySide6 first)

from qkv_engine import (WORD_RULE, ScenarioError, group_words, head_labels, mask_view, views, word_mask,
                        word_weights)

from ...look import colours, style
from ..base import Panel
from ...drawing.cell_grid import CellGridItem, Outline
from ...drawing.token_labels import label_step, short_token
from ...labels.captions import info_label, note_label, show_texts
from ...labels.changed_text import set_tooltip
from ...drawing.colour_scale import NAMES as SCALE_NAMES
from ...drawing.lazy_axes import set_ticks
from ...drawing.text_label import TextLabel
from ...look.colour_tables import colour_map, table_argb
from ..themed_text import ThemedTextMixin
from .label_sources import LabelSources

Qt = QtCore.Qt
#: A tile is drawn with at most this many cells a side: a longer sentence's tiles show block maxima.
MAX_TILE_CELLS = 48
#: A tile is at least this many pixels a side: a model of many layers (SmolLM2's 30, Qwen2.5's 24) scrolls in a
#: low dock rather than shrinking its tiles to dots (30 x 9 heads were 2-pixel tiles on a 1024 x 768 screen).
MIN_TILE_PX = 10

TICK_PT = 8.0
#: Empty cells between two tiles: about a sixth of a tile, at least one.
GAP_PART = 6
#: Point size of the words on the tiles at theme scale 1.
TAG_PT = 7.5
#: A label's word on a tile, long and short (the short one when the long one does not fit).
TAG_WORDS = {"previous": ("prev", "P"), "next": ("next", "N"), "self": ("self", "S"), "first": ("first", "F"),
             "separator": ("sep", "|"), "broad": ("broad", "B"), "mixed": ("mixed", "M")}
#: Heads are labelled for sentences up to this many tokens (at 512 tokens labelling 12 x 12 heads took 0.66 s,
#: too long for every edit; at 128, 0.04 s).
LABEL_MAX_TOKENS = 128
#: The session's lab_state keys: the label shown alone (None: all) and whether effects colour the tiles.
LABEL_KEY, EFFECTS_KEY = "modelViewLabel", "modelViewEffects"


class EffectScale(QtWidgets.QWidget):
    """The diverging colour scale of the head effects: blue (the head helped) through white to red (it hurt),
    its ends and middle named in numbers."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("modelViewEffectScale")
        self.high = 1.0
        self.colours = style.STANDARD
        self.setMinimumHeight(self.fontMetrics().height() * 2 + 6)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(300, self.minimumHeight())

    def paintEvent(self, event):  # noqa: N802
        p = QtGui.QPainter(self)
        fm = self.fontMetrics()
        bar = QtCore.QRectF(4, 2, self.width() - 8, fm.height() * 0.8)
        gradient = QtGui.QLinearGradient(bar.topLeft(), bar.topRight())
        cmap = colour_map("diff", self.colours)
        for stop in np.linspace(0.0, 1.0, 9):
            gradient.setColorAt(float(stop), cmap.mapToQColor(float(stop)))
        p.fillRect(bar, gradient)
        p.setPen(QtGui.QColor(self.colours.foreground))
        y = bar.bottom() + 2
        row = QtCore.QRectF(4, y, self.width() - 8, fm.height() + 2)
        high = style.fmt(self.high, 2)
        p.drawText(row, int(Qt.AlignmentFlag.AlignLeft), f"−{high} helped")
        p.drawText(row, int(Qt.AlignmentFlag.AlignHCenter), "0")
        p.drawText(row, int(Qt.AlignmentFlag.AlignRight), f"+{high} hurt")
        p.end()


def tile_gap(n: int) -> int:
    """Empty cells between two tiles of n x n cells."""
    return max(1, int(math.ceil(n / GAP_PART)))


class ModelViewPanel(ThemedTextMixin, Panel):
    object_name = "modelViewPanel"
    title = "Model view: every layer and head"
    follows_colours = True
    empty_hint = "Open a trained model (File → Open model…) to see every layer and head of it here."
    headClicked = QtCore.Signal(int, int)  # (layer, head), 0-based: a tile was clicked

    dock_size = (560, 420)

    # ----- building ---------------------------------------------------------------------------------
    def build(self, body):
        self._data = None
        self._shape = None  # (L, H, n, m, gap) drawn now (n, m: cells a tile side, after shrinking)
        self._factor = 1  # how many tokens a drawn cell stands for (long sentences are shrunk)
        self._built = None  # what the tiles were drawn from: (weights, allowed, colour scale)
        self.hover_tile = None  # (layer, head) under the mouse, or None
        self.hover_text = ""
        self.layer_labels: list = []  # [(position, text)] on the layer axis now
        self.head_labels: list = []
        self._note = None  # the note: (wide, narrow) wordings
        self._info = None  # the line about a head: (wide, narrow) wordings

        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.setSpacing(2)
        self.note = note_label(body, "modelViewNote")
        layout.addWidget(self.note)

        self.canvasScroll = QtWidgets.QScrollArea(body)  # (scrolls when the tiles would be under MIN_TILE_PX)
        self.canvasScroll.setObjectName("modelViewScroll")
        self.canvasScroll.setWidgetResizable(True)
        self.canvasScroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setObjectName("modelViewCanvas")
        self.canvas.ci.layout.setContentsMargins(2, 2, 6, 2)
        self.plot = self.canvas.addPlot(enableMenu=False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(False, False)
        self.vb = self.plot.getViewBox()
        self.vb.invertY(True)
        self.vb.setDefaultPadding(0.0)
        tick_font = QtGui.QFont()
        tick_font.setPointSizeF(TICK_PT)
        self._metrics = QtGui.QFontMetricsF(tick_font)
        self.plot.hideAxis("bottom")
        self.plot.showAxis("top")
        for name in ("left", "top"):
            axis = self.plot.getAxis(name)
            axis.setStyle(tickFont=tick_font, tickLength=0, autoExpandTextSpace=True)
            axis.setPen(pg.mkPen(None))
            colours.paint(axis, self.colours, text="foreground")
        self.grid = CellGridItem("weights")
        self.plot.addItem(self.grid)
        self.grid.cellHovered.connect(self._on_hover)
        self.grid.cellLeft.connect(self._on_left)
        self.grid.cellClicked.connect(self._on_click)
        self.canvasScroll.setWidget(self.canvas)
        layout.addWidget(self.canvasScroll, 1)

        effects_row = QtWidgets.QHBoxLayout()
        self.effectsBox = QtWidgets.QCheckBox("Effect colours", body)
        self.effectsBox.setObjectName("modelViewEffectsBox")
        self.effectsBox.setToolTip("Each tile coloured by how much knocking out that head alone changes the pinned "
                                   "word's log-probability (from \"Which heads matter?\" in the prediction panel)")
        self.effectsBox.toggled.connect(self._on_effects_box)
        effects_row.addWidget(self.effectsBox, 0, Qt.AlignmentFlag.AlignTop)
        self.effectScale = EffectScale(body)
        effects_row.addWidget(self.effectScale, 1)
        layout.addLayout(effects_row)
        self.legend = QtWidgets.QLabel(body)
        self.legend.setObjectName("modelViewLegend")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.linkActivated.connect(self._on_legend)
        self.legend.setStyleSheet("padding: 0 4px;")
        layout.addWidget(self.legend)
        self.sources = LabelSources(self.session, self)
        self.sources.changed.connect(self._on_change)
        self.sources.progressed.connect(self._on_progress)
        self.info = info_label(body, "modelViewInfo", self.colours)
        layout.addWidget(self.info)
        self.tags: list = []  # one TextLabel a tile, row by row (layer, then head)
        self.labels = None  # HeadLabels on the tiles: of the sentence shown, or over the sentences chosen
        self._sentence_labels = None  # HeadLabels of the sentence shown
        self._labels_of = None  # what they were worked out from
        self._in_words = (None, None, None)  # (pieces' weights, words, the data in words) last joined
        self.words = None  # the words shown (qkv_engine.Word), or None: pieces
        self.effects = None  # the L x H head effects the tiles are coloured by now, or None
        self.dim = QtWidgets.QGraphicsPathItem(self.grid)  # over the heads the legend's choice leaves out
        self.dim.setPen(QtGui.QPen(Qt.PenStyle.NoPen))
        self.dim.setZValue(1)
        self._groups = (1, 0, 0)  # (query heads a key/value head, extra cells between groups, rows under the tiles)
        self.brackets = QtWidgets.QGraphicsPathItem(self.grid)  # under each key/value head's query heads
        pen = QtGui.QPen(QtGui.QColor(self.colours.foreground), 1.5)
        pen.setCosmetic(True)
        self.brackets.setPen(pen)
        colours.paint(self.brackets, self.colours, pen="foreground")
        self.bracket_labels: list = []
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.info.setTextFormat(Qt.TextFormat.PlainText)  # a token such as <s> is text, not a tag

        table_argb("diff", self.colours)  # read now, not in the turn where "Which heads matter?" lands
        self.listen(self.session.modelViewChanged, self._on_change)
        self.listen(self.session.colourScaleChanged, self._on_change)
        self.listen(self.session.headEffectsChanged, self._on_effects)
        self.listen(self.session.wordViewChanged, self._on_change)
        self.vb.sigResized.connect(lambda *_: self._fit())

    # ----- filling ----------------------------------------------------------------------------------
    def hint_for(self, result) -> str | None:
        data = self.session.model_view_data
        if data is None:
            return self.empty_hint
        if np.asarray(data.weights).size == 0:
            return "Type a sentence to see every layer and head."
        return None

    def words_of(self, data):
        """``data`` in words when the word view is on (the same object again while nothing changed, so that
        the tiles are not drawn again), else ``data`` itself; and the words, or None."""
        words = self.session.words_shown
        n = len(data.tokens)
        if words is None or sum(len(w.pieces) for w in words) != n:
            return data, None
        if self._in_words[0] is not data.weights or self._in_words[1] is not words:
            weights = word_weights(data.weights, words, np.float32)
            allowed = word_mask(data.allowed, words)
            self._in_words = (data.weights, words, (weights, allowed, tuple(w.text for w in words)))
        weights, allowed, tokens = self._in_words[2]
        return dataclasses.replace(data, weights=weights, allowed=allowed, tokens=tokens), words

    def show_result(self, result, selection) -> None:
        data, self.words = self.words_of(self.session.model_view_data)
        self._data = data
        mode = self.session.colour_scale
        effects = self.session.head_effects
        shape = np.asarray(data.weights).shape[:2]
        use_effects = (effects is not None and self.session.lab_state.get(EFFECTS_KEY, True)
                       and effects.deltas.shape == shape)
        self.effects = effects.deltas if use_effects else None
        built = (id(data.weights), id(data.allowed), mode, id(self.effects))
        if built != self._built:  # a new trace, colour scale or effects: draw the tiles again (a new head needs not)
            self._built = built
            self._build_tiles(data, mode)
            if self.effects is not None:
                self._colour_by_effects(self.effects)
        if self._labels_of != (id(data.weights), id(data.allowed)):
            self._labels_of = (id(data.weights), id(data.allowed))
            try:
                long = len(data.tokens) > LABEL_MAX_TOKENS
                self._sentence_labels = None if long else head_labels(data.weights, data.tokens, data.allowed)
            except ScenarioError:  # weights and tokens that do not go together: no labels, the tiles stay
                self._sentence_labels = None
        self.sources.refresh()
        over = self.sources.labels()  # of the model open now (its layers and heads), or None
        self.labels = over if over is not None else self._sentence_labels
        L, H, n, m, gap = self._shape
        self.grid.set_veils([self.tile_rect(l, h) for l, h in sorted(data.knocked_out) if l < L and h < H])
        self.query = self.row_of(selection.query)
        layer, head = self._current()
        current = self.tile_rect(layer, head)
        row = QtCore.QRectF(current.left(), current.top() + self.query // self._factor, m, 1)
        self.grid.set_outlines({
            "query": Outline(row, self.colours.ink["query"], 1.5, dashed=True),
            "current": Outline(current, self.colours.selected, 2.5, halo=True),
        })
        self._show_tags()
        self._colour_brackets()
        self._least_canvas()
        self._fit()
        self._keep_current_in_view()
        scale = {"auto": "each tile from 0 to its own largest weight", "absolute": "0 to 1 in every tile",
                 "row": "each row to its own largest weight"}[mode]
        groups = self.kv_heads()
        grouped = f" {group_words(H, groups)} (the brackets under the tiles)." if groups < H else ""
        short_grouped = f" {H // groups} query heads a key/value head." if groups < H else ""
        if self.effects is not None:
            stale = "" if self.session.effects_are_current() else ", worked out before the last change"
            what = (f"colours: the change in log p('{effects.target.text}') when the head alone is knocked out "
                    f"(blue: it helped{stale})")
            short_what = f"colours: effect on '{effects.target.text}'{stale}"
        else:
            what, short_what = f"colours {scale}", f"colours: {SCALE_NAMES[mode]}"
        self._note = (f"{L} layers × {H} heads. Each tile: one head's weights (rows: queries, columns: keys), "
                      f"{what}.{grouped} Click a tile to step into that head.",
                      f"{L} × {H} heads; {short_what}.{short_grouped} Click one to step in.")
        if self.words is not None:
            self._note = (self._note[0] + f" Words, not pieces: {WORD_RULE}",
                          self._note[1] + " Words: to a word = sum of its pieces, from a word = mean.")
        self._show_legend()
        self._apply_texts()
        if self.grid.hovered is not None:
            self._on_hover(*self.grid.hovered)
        else:
            self.hover_tile = None
            self.hover_text = ""
            self._show_current()

    def _build_tiles(self, data, mode: str) -> None:
        """Every head's weights tiled into one grid; tiles of a long sentence shrunk to at most
        ``MAX_TILE_CELLS`` cells a side, each cell the largest weight of its block."""
        weights = data.weights
        L, H, n, m = weights.shape
        self._factor = factor = max(1, -(-max(n, m) // MAX_TILE_CELLS))
        allowed = np.asarray(data.allowed, dtype=bool)
        if factor > 1:  # a layer at a time, in the weights' own type: no float64 copy of every head's n x m
            weights = np.stack([views.pooled(np.where(allowed, layer, 0), factor) for layer in weights])
            allowed = views.pooled(allowed, factor)
        weights = np.asarray(weights, dtype=np.float64)
        n, m = weights.shape[2:]
        gap = tile_gap(max(n, m))
        self._shape = (L, H, n, m, gap)
        groups = self.kv_heads(H)
        # grouped-query attention: more room between the groups, and a bracket under each (``foot`` rows)
        self._groups = (H // groups, 2 * gap, max(3, (n + 1) // 2)) if groups < H else (H, 0, 0)
        # auto: each tile from 0 to its own largest weight (every head's pattern shows)
        levels = views.colour_levels(weights, mode, per_matrix=True)
        high = self._spread(views.tile_grid(np.broadcast_to(levels.high, weights.shape), gap, fill=1.0), 1.0)
        why = mask_view.reasons_from_allowed(allowed)
        masked = self._spread(views.tile_grid(np.broadcast_to(why, weights.shape), gap, fill=0), 0).astype(np.int8)
        self.grid.numbers = True
        self.grid.setData(self._spread(views.tile_grid(weights, gap)), (0.0, high),
                          masked_by=masked if why.any() else None, colormap="weights")
        self._draw_brackets()

    def _colour_brackets(self) -> None:
        """The brackets and their names in the palette's foreground (made after the palette was taken)."""
        ink = QtGui.QColor(self.colours.foreground)
        pen = self.brackets.pen()
        if pen.color() != ink:
            pen.setColor(ink)
            self.brackets.setPen(pen)
        for label in self.bracket_labels:
            label.setColor(self.colours.foreground)

    def _spread(self, tiled: np.ndarray, fill=np.nan) -> np.ndarray:
        """A grid tiled evenly (``views.tile_grid``) with the extra room between key/value groups and under the
        tiles that grouped-query attention gets (nothing changes without groups)."""
        L, H, n, m, gap = self._shape
        share, extra, foot = self._groups
        if not extra:
            return tiled
        width = share * (m + gap)
        padded = np.concatenate([tiled, np.full((tiled.shape[0], gap), fill)], axis=1)
        parts = []
        for g in range(H // share):
            parts.append(padded[:, g * width:(g + 1) * width])
            parts.append(np.full((tiled.shape[0], extra), fill))
        spread = np.concatenate(parts[:-1], axis=1)[:, :-gap]
        return np.concatenate([spread, np.full((foot, spread.shape[1]), fill)], axis=0)

    def _draw_brackets(self) -> None:
        """Under the tiles, a bracket over each key/value head's query heads, named."""
        L, H, n, m, gap = self._shape
        share, extra, foot = self._groups
        path = QtGui.QPainterPath()
        groups = H // share if extra else 0
        while len(self.bracket_labels) < groups:
            label = TextLabel("", anchor=(0.5, 0.0), margin=1.0, parent=self.grid)
            self.bracket_labels.append(label)
        top = L * (n + gap) - gap + 0.3
        tick = min(1.5, foot / 3)
        for g, label in enumerate(self.bracket_labels):
            label.setVisible(g < groups)
            if g >= groups:
                continue
            left = self.tile_rect(0, g * share).left()
            right = self.tile_rect(0, (g + 1) * share - 1).right()
            path.moveTo(left, top)
            path.lineTo(left, top + tick)
            path.lineTo(right, top + tick)
            path.lineTo(right, top)
            label.setPos((left + right) / 2, top + tick)
            label.setText(f"key/value head {g + 1}")
        self.brackets.setPath(path)

    def _colour_by_effects(self, deltas) -> None:
        """Every tile filled with its head's effect on the pinned word, on a diverging scale centred on 0."""
        L, H, n, m, gap = self._shape
        high = float(np.max(np.abs(deltas))) or 1.0
        self.effectScale.high = high
        filled = self._spread(views.tile_grid(np.broadcast_to(np.asarray(deltas, dtype=np.float64)[:, :, None, None],
                                                              (L, H, n, m)), gap))
        self.grid.numbers = False
        self.grid.setData(filled, (-high, high), colormap="diff")

    # ----- key/value groups, labels, the legend ------------------------------------------------------------
    def _model_info(self):
        doc = self.session.model_doc
        return doc.model.info if doc is not None else None

    def kv_heads(self, H: int | None = None) -> int:
        """How many key/value heads a layer has (as many as query heads but in grouped-query models)."""
        info = self._model_info()
        H = np.asarray(self._data.weights).shape[1] if H is None else H
        return info.kv_heads if info is not None and info.n_heads == H else H

    def kv_head(self, head: int) -> int:
        info = self._model_info()
        return info.kv_head(head) if info is not None and self.kv_heads() < info.n_heads else head

    def shown_label(self) -> str | None:
        """The label whose heads alone are shown (the others dimmed), or None: every head (also when no head of
        the sentence shown now has that label)."""
        label = self.session.lab_state.get(LABEL_KEY)
        if label is None or self.labels is None or not any(label in row for row in self.labels.labels):
            return None
        return label

    def _show_tags(self) -> None:
        """A word on each tile (its label, or its effect when the tiles show effects), and the dimming."""
        L, H, n, m, gap = self._shape
        if len(self.tags) != L * H:
            for tag in self.tags:
                tag.setParentItem(None)
                if tag.scene() is not None:
                    tag.scene().removeItem(tag)
            font = QtGui.QFont()
            font.setPointSizeF(TAG_PT * self.theme.font_scale)
            self.tags = [TextLabel("", anchor=(1.0, 0.0), font=font, margin=1.0, parent=self.grid)
                         for _ in range(L * H)]
            for tag in self.tags:
                tag.setZValue(2)
        box = QtGui.QColor(*self.colours.label_box)
        shown = self.shown_label()
        dim = QtGui.QPainterPath()
        for layer in range(L):
            for head in range(H):
                tag = self.tags[layer * H + head]
                rect = self.tile_rect(layer, head)
                tag.setPos(rect.topRight())
                tag.fill = QtGui.QBrush(box)
                tag.setColor(self.colours.foreground)
                label = self.labels.labels[layer][head] if self.labels is not None else None
                if self.effects is not None:
                    tag.setText(style.fmt(self.effects[layer, head], 2))
                else:
                    tag.setText(TAG_WORDS.get(label, ("", ""))[0])
                if shown is not None and label != shown:
                    dim.addRect(rect)
        self.dim.setBrush(QtGui.QColor(*self.colours.veil[:3], 215))
        self.dim.setPath(dim)
        self._fit_tags()

    def _fit_tags(self) -> None:
        """The long words where they fit a tile, else the short ones (effects: the number or nothing)."""
        if not self.tags or self._shape is None:
            return
        L, H, n, m, gap = self._shape
        px_x, px_y = self.grid.cell_px()
        if px_x <= 0:
            return
        room = m * px_x - 2
        for layer in range(L):
            for head in range(H):
                tag = self.tags[layer * H + head]
                if self.effects is not None:
                    text = style.fmt(self.effects[layer, head], 2)
                    words = (text, text)
                elif self.labels is not None:
                    words = TAG_WORDS[self.labels.labels[layer][head]]
                else:
                    words = ()
                fm = QtGui.QFontMetricsF(tag.font())
                fits = [w for w in words if fm.horizontalAdvance(w) + 2 <= room and fm.height() <= n * px_y]
                tag.setText(fits[0] if fits else "")
                tag.setVisible(bool(fits))

    def _fit_brackets(self) -> None:
        """Each bracket's name where it fits under its group, and above the view's bottom edge: 'key/value head 2',
        else 'kv 2', else none (the note says how many query heads share a key/value head)."""
        if self._shape is None or not self._groups[1]:
            return
        px_x, px_y = self.grid.cell_px()
        L, H, n, m, gap = self._shape
        share, _extra, foot = self._groups
        room = (share * (m + gap) - gap) * px_x
        below = self.vb.height() - (L * (n + gap) - gap + 0.3 + min(1.5, foot / 3)) * px_y  # pixels under the tick
        for g, label in enumerate(self.bracket_labels):
            if g >= H // share:
                continue
            fm = QtGui.QFontMetricsF(label.font())
            tall_enough = fm.height() <= below
            words = [w for w in (f"key/value head {g + 1}", f"kv {g + 1}")
                     if tall_enough and fm.horizontalAdvance(w) + 4 <= room]
            label.setText(words[0] if words else "")
            label.setVisible(bool(words))

    def tag_texts(self) -> list:
        """[[word on each tile of a layer] for each layer], as shown now ("" where none fits)."""
        L, H = self._shape[:2]
        return [[self.tags[l * H + h].text() for h in range(H)] for l in range(L)]

    def _show_legend(self) -> None:
        """The labels present, each with its count, as links: a click shows only those heads."""
        self._show_effects_choice()
        lead = "".join(f"{html.escape(line, quote=False)}<br>" for line in self.sources.lines)
        state = f" ({html.escape(self.sources.state, quote=False)})" if self.sources.state else ""
        source = f"Labels from <a href=\"source:\">{html.escape(self.sources.source_words)}</a>{state}"
        if self.labels is None:
            long = len(self._data.tokens) > LABEL_MAX_TOKENS
            why = f" (heads are labelled for sentences of up to {LABEL_MAX_TOKENS} tokens)" if long else ""
            self.legend.setText(f"{lead}{source}{why}")
            return
        counts: dict = {}
        for row in self.labels.labels:
            for label in row:
                counts[label] = counts.get(label, 0) + 1
        shown = self.shown_label()
        parts = []
        for name, meaning in self.labels.legend:
            if name not in counts:
                continue
            short = TAG_WORDS[name][0]
            word = f"{name} ({short}): {counts[name]}" if short != name else f"{name}: {counts[name]}"
            parts.append(f"<b>[{word}]</b>" if name == shown else f"<a href=\"{name}\">{word}</a>")
        if shown is not None:
            parts.append("<a href=\"*\">show all</a>")
        self.legend.setText(f"{lead}{source}: " + " · ".join(parts))
        self.legend.setToolTip("\n".join([f"{name}: {meaning}" for name, meaning in self.labels.legend]
                                          + ([self.sources.tooltip] if self.sources.tooltip else [])))

    def _show_effects_choice(self) -> None:
        has_effects = self.session.head_effects is not None
        self.effectsBox.setVisible(has_effects)
        self.effectScale.setVisible(self.effects is not None)
        self.effectScale.colours = self.colours
        self.effectScale.update()
        self.effectsBox.blockSignals(True)
        self.effectsBox.setChecked(self.effects is not None)
        self.effectsBox.blockSignals(False)

    def show_only(self, label: str | None) -> None:
        """Show only the heads labelled ``label`` (the others dimmed); None: every head."""
        self.session.lab_state[LABEL_KEY] = label
        self._on_change()

    def _on_legend(self, link: str) -> None:
        if link == "source:":
            self.sources.menu(self).exec(QtGui.QCursor.pos())
            return
        self.show_only(None if link == "*" or link == self.shown_label() else link)

    def _on_effects(self, effects) -> None:
        if effects is not None:
            self.session.lab_state[EFFECTS_KEY] = True  # new effects are shown at once
        self._on_change()

    def _on_effects_box(self, on: bool) -> None:
        self.session.lab_state[EFFECTS_KEY] = bool(on)
        self._on_change()

    def row_of(self, token: int) -> int:
        """The tile row (a token, or the word that holds it) of token position ``token``."""
        if self.words is not None:
            return self.session.word_of(self.words, token)
        return min(token, len(self._data.tokens) - 1)

    def _current(self) -> tuple:
        L, H = np.asarray(self._data.weights).shape[:2]
        return min(max(0, int(self._data.layer)), L - 1), min(max(0, int(self._data.head)), H - 1)

    # ----- tiles --------------------------------------------------------------------------------------
    def tile_rect(self, layer: int, head: int) -> QtCore.QRectF:
        """Where tile (layer, head) lies, in cells of the grid (key/value groups a little apart)."""
        _L, _H, n, m, gap = self._shape
        share, extra, _foot = self._groups
        return QtCore.QRectF(head * (m + gap) + (head // share) * extra, layer * (n + gap), m, n)

    def tile_at(self, i: int, j: int) -> tuple | None:
        """(layer, head, query row, key column) of grid cell (i, j), or None in a gap."""
        L, H, n, m, gap = self._shape
        share, extra, _foot = self._groups
        layer, row = divmod(i, n + gap)
        group, rest = divmod(j, share * (m + gap) + extra)
        within, col = divmod(rest, m + gap)
        head = group * share + within
        if row >= n or col >= m or layer >= L or within >= share or head >= H:
            return None
        return layer, head, row, col

    def scene_pos_of_tile(self, layer: int, head: int) -> QtCore.QPointF:
        """The scene position of the middle of tile (layer, head)."""
        return self.grid.mapToScene(self.tile_rect(layer, head).center())

    def tile_words(self, layer: int, head: int) -> str:
        """'layer 3, head 5: 'it' looks most at 'animal' (0.41)' for the selected query."""
        data, i = self._data, self.query
        keys, top = views.most_attended(np.asarray(data.weights)[layer:layer + 1, head:head + 1], i)
        j, w = int(keys[0, 0]), float(top[0, 0])
        text = (f"layer {layer + 1}, head {head + 1}: '{short_token(data.tokens[i])}' looks most at "
                f"'{short_token(data.tokens[j])}' ({style.fmt(w, 2)})")
        if (layer, head) in data.knocked_out:
            text += " (knocked out: its output is set to zero)"
        return text

    def tile_more(self, layer: int, head: int) -> str:
        """What else the tile says: its label, its key/value head, its effect on the pinned word."""
        parts = []
        if self.labels is not None:
            parts.append(f"label: {self.labels.labels[layer][head]}")
        if self.kv_heads() < np.asarray(self._data.weights).shape[1]:
            parts.append(f"reads key/value head {self.kv_head(head) + 1}")
        if self.effects is not None:
            target = self.session.head_effects.target.text
            parts.append(f"knocked out alone, log p('{target}') changes by {style.fmt(self.effects[layer, head], 2)}")
        return "; ".join(parts)

    def linking_words(self) -> str:
        """Which heads give the selected key the most weight from the selected query."""
        data, i = self._data, self.query
        j = self.row_of(self.session.selection.key)
        best = views.strongest_heads(data.weights, i, j)
        where = ", ".join(f"layer {l + 1} head {h + 1} ({style.fmt(w, 2)})" for l, h, w in best)
        return (f"'{short_token(data.tokens[i])}' \u2192 '{short_token(data.tokens[j])}' is strongest in {where}.")

    # ----- names of layers and heads ---------------------------------------------------------------
    def _least_canvas(self) -> None:
        """The canvas at least as large as tiles of MIN_TILE_PX need (with the names beside and above them): in
        a smaller dock it scrolls."""
        rows, cols = self.grid.values.shape
        L, H, n, m, gap = self._shape
        cell = MIN_TILE_PX / max(n, m, 1)
        names_w = self._metrics.horizontalAdvance(f"layer {L}") + 14
        names_h = self._metrics.height() + 10
        least = QtCore.QSize(int(math.ceil(cols * cell + names_w)), int(math.ceil(rows * cell + names_h)))
        if self.canvas.minimumSize() != least:
            self.canvas.setMinimumSize(least)

    def _keep_current_in_view(self) -> None:
        """The tile every panel shows scrolled into sight (a layer chosen in the model box, say layer 20)."""
        if self.canvas.height() <= self.canvasScroll.viewport().height() + 1:
            return
        layer, head = self._current()
        rect = self.vb.mapViewToDevice(self.tile_rect(layer, head)).boundingRect()  # in the canvas' pixels
        self.canvasScroll.ensureVisible(int(rect.center().x()), int(rect.center().y()),
                                        int(rect.width() / 2) + 4, int(rect.height() / 2) + 4)

    def _fit(self) -> None:
        """Square cells, as large as the view allows, the grid in its top left corner (by the names)."""
        if self._shape is None:
            return
        rows, cols = self.grid.values.shape
        w_px, h_px = max(1.0, self.vb.width()), max(1.0, self.vb.height())
        px = min(w_px / cols, h_px / rows)
        self.vb.setRange(xRange=(0, w_px / px), yRange=(0, h_px / px), padding=0)
        self.vb.updateMatrix()  # now, not at the next paint: the names below measure cells in pixels (cell_px)
        self._update_labels()

    def _update_labels(self) -> None:
        if self._shape is None or self._data is None:
            return
        L, H, n, m, gap = self._shape
        px_x, px_y = self.grid.cell_px()
        if px_x <= 0 or px_y <= 0:
            return
        fm = self._metrics
        tile_w, tile_h = (m + gap) * px_x, (n + gap) * px_y
        # the longest names that fit a tile's width (heads) or height (layers), thinned when even the shortest
        # do not
        head_forms = [lambda h: f"head {h}", lambda h: f"h{h}", lambda h: f"{h}"]
        form = next((f for f in head_forms if fm.horizontalAdvance(f(H)) + 4 <= tile_w), head_forms[-1])
        step = label_step((fm.horizontalAdvance(form(H)) + 4) / tile_w)
        self.head_labels = [(h * (m + gap) + m / 2, form(h + 1)) for h in range(0, H, step)]
        layer_step = label_step((fm.height() + 1) / tile_h)
        self.layer_labels = [(l * (n + gap) + n / 2, f"layer {l + 1}") for l in range(0, L, layer_step)]
        set_ticks(self.plot.getAxis("top"), [self.head_labels, []])
        set_ticks(self.plot.getAxis("left"), [self.layer_labels, []])
        self._fit_tags()
        self._fit_brackets()

    # ----- words and the mouse ---------------------------------------------------------------------
    def _show_current(self) -> None:
        layer, head = self._current()
        text = self.tile_words(layer, head)
        linking = self.linking_words()
        more = self.tile_more(layer, head)
        self._tell(f"Shown in every panel: {text} ({more}).\n{linking}", f"{text} ({more})\n{linking}",
                   f"{text}\n{more}")

    def _on_hover(self, i: int, j: int) -> None:
        tile = self.tile_at(i, j)
        if tile is None:
            return
        layer, head = tile[:2]
        self.hover_tile = (layer, head)
        self.hover_text = self.tile_words(layer, head)
        more = self.tile_more(layer, head)
        self._tell(f"Under the mouse: {self.hover_text} ({more}). Click to step into this head.",
                   f"{self.hover_text} ({more})", f"{self.hover_text}\n{more}")

    def _tell(self, wide: str, narrow: str, tip: str) -> None:
        """The line about a head under the tiles (wide and narrow wordings) and the tiles' tooltip."""
        self._info = (wide, narrow)
        set_tooltip(self.canvas, tip)
        self._apply_texts()

    def _on_left(self) -> None:
        self.hover_tile = None
        self.hover_text = ""
        if self._data is not None and not self.showing_hint():
            self._show_current()

    def _on_click(self, i: int, j: int) -> None:
        tile = self.tile_at(i, j)
        if tile is None:
            return
        layer, head = tile[:2]
        self.headClicked.emit(layer, head)
        self.session.select_model_head(layer, head)

    def _on_progress(self) -> None:
        """The labels over sentences came a sentence further: only the legend's words change."""
        if self._data is not None and not self.showing_hint():
            self._show_legend()

    def detach(self) -> None:
        self.sources.stop()
        super().detach()

    def _apply_texts(self) -> None:
        show_texts(self.width(), ((self.note, self._note), (self.info, self._info)))

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._apply_texts()

    def theme_changed(self, theme) -> None:
        self.grid.set_theme_scale(theme.font_scale, theme.line_scale)
        for tag in self.tags:
            font = QtGui.QFont(tag.font())
            font.setPointSizeF(TAG_PT * theme.font_scale)
            tag.setFont(font)
        font = QtGui.QFont()
        font.setPointSizeF(TICK_PT * theme.font_scale)
        self._metrics = QtGui.QFontMetricsF(font)
