"""Prediction: what a trained model says comes next (GPT-2, Llama) or fills a [MASK] (BERT), and what changes it.

For the selected query position the ten most likely tokens (``Model.predict``) are horizontal bars, each with
its text and its percentage. The panel follows every edit (what-if edits, knock-outs, undo, reset): it reads
the session's trace.

Click a token to pin it as the target (``session.pin_target``): from then on the panel says its probability
before (when it was pinned) and after each change, and marks how each of the ten moved (▲ up, ▼ down, ★ new
in the ten, = the same place). "Which heads matter?" runs ``head_effects`` for the target on a worker thread
(a progress bar and Cancel; the window stays usable) and lists the heads, the largest drop in the target's
log-probability first; the model view colours its tiles by the same numbers. Click a head in the list to step
into it; "Keep only" knocks out every other head of their layers, or of the model (one undo step).
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import head_effects

from ...look import colours, style
from ...labels.captions import info_label, note_label, show_texts
from ...labels.folding_row import FoldingRow
from ...labels.kept_focus import set_enabled, set_shown
from ...drawing.token_labels import short_token
from ..base import Panel
from ..worker_job import WorkerJob

Qt = QtCore.Qt
#: How many tokens the panel lists.
TOP_K = 10
#: Point size of the bars' words at theme scale 1.
BAR_PT = 9.5
#: How "Which heads matter?" knocks a head out, unticked and ticked: its output set to 0, or to its mean over
#: the sentence's tokens.
MEAN_TIP = ("Ticked: each head's output is set to its average over the sentence instead of to zero (a gentler "
            "knock-out)")
#: The marks of how a token moved since the target was pinned (never colour alone).
UP, DOWN, SAME, NEW = "\u25b2", "\u25bc", "=", "\u2605"


def percent(p: float) -> str:
    """A probability as shown: '12.3 %' ('<0.1 %' for less than a thousandth, never '0.0 %' for a chance)."""
    if 0.0 < p < 0.0005:
        return "<0.1 %"
    return f"{style.fmt(100.0 * p, 1)} %"


def token_text(tok: str) -> str:
    """A token as shown in the list: quoted, on one line, a leading space kept visible."""
    return short_token(tok, 16)


class ProbabilityBars(QtWidgets.QWidget):
    """Horizontal bars, one a row: a mark, the token's text, the bar (0 to 100 %) and its percentage.
    ``rowClicked(row)`` on a click, or on Return or Space at the keyboard's row (Up and Down move it, a frame
    shows it while the bars have the focus); the pinned row is framed and says "pinned"."""

    rowClicked = QtCore.Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("predictionBars")
        self.rows: list = []  # [(text, probability, mark, pinned)]
        self.colours = style.STANDARD
        self.hovered = -1
        self.current = 0  # the keyboard's row
        self.setMouseTracking(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.set_font_scale(1.0)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)

    def set_font_scale(self, scale: float) -> None:
        font = QtGui.QFont(self.font())
        font.setPointSizeF(BAR_PT * scale)
        self.setFont(font)
        self._fm = QtGui.QFontMetricsF(font)
        self.updateGeometry()
        self.update()

    def row_height(self) -> float:
        return self._fm.height() * 1.45

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        return QtCore.QSize(320, int(self.row_height() * max(len(self.rows), 1) + 4))

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        return QtCore.QSize(240, self.sizeHint().height())

    def set_rows(self, rows: list) -> None:
        if rows != self.rows:
            grows = len(rows) != len(self.rows)
            self.rows = list(rows)
            self.current = min(self.current, max(len(rows) - 1, 0))
            if grows:
                self.updateGeometry()
            self.update()

    def columns(self) -> tuple:
        """(mark, text, bar, percent) column left edges and the bar's width, in pixels."""
        fm = self._fm
        mark_w = fm.horizontalAdvance(f"{UP}10") + 6
        text_w = min(max((fm.horizontalAdvance(f"'{t}'") for t, *_ in self.rows), default=40) + 10,
                     fm.horizontalAdvance("M" * 12))
        pct_w = fm.horizontalAdvance("100.0 %") + 8
        bar_x = mark_w + text_w
        bar_w = max(20.0, self.width() - bar_x - pct_w - 4)
        return 2.0, mark_w, bar_x, bar_w

    def row_at(self, y: float) -> int:
        row = int(y // self.row_height())
        return row if 0 <= row < len(self.rows) else -1

    def paintEvent(self, event):  # noqa: N802 (Qt naming)
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        c = self.colours
        fm, h = self._fm, self.row_height()
        mark_x, text_x, bar_x, bar_w = self.columns()
        fill = colours.qcolor(c.fill["output"])
        edge = colours.qcolor(c.edge["output"])
        ink = colours.qcolor(c.foreground)
        for row, (text, prob, mark, pinned) in enumerate(self.rows):
            top = row * h
            if row == self.hovered:
                p.fillRect(QtCore.QRectF(0, top, self.width(), h), colours.qcolor(c.hover_bg))
            if mark:
                up = mark.startswith(UP) or mark == NEW
                down = mark.startswith(DOWN)
                p.setPen(colours.qcolor(c.up_ink if up else c.down_ink if down else c.quiet_text))
                p.drawText(QtCore.QRectF(mark_x, top, text_x - mark_x, h), int(Qt.AlignmentFlag.AlignVCenter), mark)
            p.setPen(ink)
            label = fm.elidedText(f"'{text}'", Qt.TextElideMode.ElideRight, bar_x - text_x - 6)
            p.drawText(QtCore.QRectF(text_x, top, bar_x - text_x - 6, h),
                       int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight), label)
            bar = QtCore.QRectF(bar_x, top + h * 0.2, max(1.0, bar_w * float(prob)), h * 0.6)
            p.fillRect(bar, fill)
            p.setPen(QtGui.QPen(edge, 1.0))
            p.drawRect(bar)
            p.setPen(ink)
            p.drawText(QtCore.QRectF(bar.right() + 4, top, self.width() - bar.right() - 4, h),
                       int(Qt.AlignmentFlag.AlignVCenter), percent(prob))
            if pinned:
                pen = QtGui.QPen(colours.qcolor(c.target), 2.0)
                pen.setStyle(Qt.PenStyle.DashLine)
                p.setPen(pen)
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRoundedRect(QtCore.QRectF(1, top + 1, self.width() - 2, h - 2), 3, 3)
            if row == self.current and self.hasFocus():
                p.setPen(QtGui.QPen(ink, 1.0, Qt.PenStyle.DotLine))
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.drawRect(QtCore.QRectF(3.5, top + 3.5, self.width() - 7, h - 7))
        p.end()

    def row_rect(self, row: int) -> QtCore.QRect:
        h = self.row_height()
        return QtCore.QRect(0, int(row * h), self.width(), int(h) + 1)

    def inputMethodQuery(self, query):  # noqa: N802 (Qt naming)
        """The keyboard's row as the place to keep in view: a scroll area given the bars the focus by Tab then
        shows that row, not the middle of the list."""
        if query == Qt.InputMethodQuery.ImCursorRectangle:
            return self.row_rect(self.current)
        return super().inputMethodQuery(query)

    def keyPressEvent(self, event):  # noqa: N802
        key, last = event.key(), len(self.rows) - 1
        moves = {Qt.Key.Key_Up: self.current - 1, Qt.Key.Key_Down: self.current + 1,
                 Qt.Key.Key_Home: 0, Qt.Key.Key_End: last}
        if key in moves and self.rows:
            self.current = max(0, min(last, moves[key]))
            self.update()
            self._keep_in_view()
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self.rows:
            self.rowClicked.emit(self.current)
        else:
            super().keyPressEvent(event)

    def _keep_in_view(self) -> None:
        scroll = self.parentWidget()
        while scroll is not None and not isinstance(scroll, QtWidgets.QScrollArea):
            scroll = scroll.parentWidget()
        if scroll is not None:
            scroll.ensureWidgetVisible(self, 0, 0)  # the keyboard's row (inputMethodQuery), not the whole list

    def focusInEvent(self, event):  # noqa: N802
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event):  # noqa: N802
        super().focusOutEvent(event)
        self.update()

    def mouseMoveEvent(self, event):  # noqa: N802
        row = self.row_at(event.position().y())
        if row != self.hovered:
            self.hovered = row
            self.update()

    def leaveEvent(self, event):  # noqa: N802
        self.hovered = -1
        self.update()

    def mousePressEvent(self, event):  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            row = self.row_at(event.position().y())
            if row >= 0:
                self.current = row
                self.rowClicked.emit(row)


def effects_job(model, trace, position: int, target_id: int, mode: str, parent=None) -> WorkerJob:
    """``head_effects`` on a worker thread: ``progressed(done, total)`` while it runs, then ``done(deltas or
    None when cancelled, error text or "")``, both on the GUI thread. ``cancel()`` stops it after the head it is
    on."""
    return WorkerJob(lambda progress: head_effects(model, trace, position, target_id, mode=mode, progress=progress),
                     "the heads could not be worked out", "qkv-head-effects", parent)


class PredictionPanel(Panel):
    object_name = "predictionPanel"
    title = "Prediction: the next word"
    follows_colours = True
    empty_hint = "Open a trained model (File → Open model…) to see which word it expects next."
    no_head_hint = ("This model ({name}) has no output head, so it cannot predict a word: its file holds only "
                    "the layers.")
    dock_size = (420, 560)

    # ----- building ---------------------------------------------------------------------------------
    def build(self, body):
        self.predictions: list = []  # what is listed now: [(text, id, probability)] from Model.predict
        self.position = 0
        self.job: WorkerJob | None = None
        self._cancelled = False  # the last run of "Which heads matter?" was cancelled
        self._note = None
        self._target_words = None
        outer = QtWidgets.QVBoxLayout(body)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll = QtWidgets.QScrollArea(body)  # a dock lower than the panel needs scrolls, never squeezes it
        self.scroll.setObjectName("predictionScroll")
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.scroll.setWidgetResizable(True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll)
        inner = QtWidgets.QWidget(self.scroll)
        inner.setObjectName("predictionInner")
        self.scroll.setWidget(inner)
        self.scroll.viewport().setAutoFillBackground(False)
        inner.setAutoFillBackground(False)
        body = inner
        layout = QtWidgets.QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        top = QtWidgets.QHBoxLayout()
        self.note = note_label(body, "predictionNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # a token such as <s> is text, not a tag
        top.addWidget(self.note, 1)
        self.lastButton = QtWidgets.QPushButton("Last token", body)
        self.lastButton.setObjectName("predictionLastToken")
        self.lastButton.setToolTip("Choose the sentence's last token: what the model would write next")
        self.lastButton.clicked.connect(self.go_to_last)
        top.addWidget(self.lastButton, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(top)
        self.bars = ProbabilityBars(body)
        self.bars.rowClicked.connect(self._on_row)
        layout.addWidget(self.bars)

        target_row = QtWidgets.QHBoxLayout()
        self.targetLabel = note_label(body, "predictionTarget")
        self.targetLabel.setTextFormat(Qt.TextFormat.PlainText)
        target_row.addWidget(self.targetLabel, 1)
        self.unpinButton = QtWidgets.QPushButton("Unpin", body)
        self.unpinButton.setObjectName("predictionUnpin")
        self.unpinButton.setToolTip("Stop following the pinned word")
        self.unpinButton.clicked.connect(self.session.unpin_target)
        target_row.addWidget(self.unpinButton, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(target_row)

        self.effectsButton = QtWidgets.QPushButton("Which heads matter?", body)
        self.effectsButton.setObjectName("predictionWhichHeads")
        self.effectsButton.setToolTip("Knock out each head alone and see how much the pinned word's chance drops")
        self.effectsButton.clicked.connect(self.run_effects)
        self.meanBox = QtWidgets.QCheckBox("average, not zero", body)
        self.meanBox.setObjectName("predictionMean")
        # each row of buttons side by side, or one above the other when the panel is narrow (FoldingRow)
        self.headsRow = FoldingRow((self.effectsButton, self.meanBox), body, name="predictionHeadsRow")
        layout.addWidget(self.headsRow)
        running = QtWidgets.QHBoxLayout()
        self.progress = QtWidgets.QProgressBar(body)
        self.progress.setObjectName("predictionProgress")
        self.progress.setFormat("head %v of %m")
        running.addWidget(self.progress, 1)
        self.cancelButton = QtWidgets.QPushButton("Cancel", body)
        self.cancelButton.setObjectName("predictionCancel")
        self.cancelButton.clicked.connect(self.cancel_effects)
        running.addWidget(self.cancelButton)
        self.runningRow = QtWidgets.QWidget(body)
        self.runningRow.setLayout(running)
        running.setContentsMargins(0, 0, 0, 0)
        self.runningRow.hide()
        layout.addWidget(self.runningRow)

        self.headsList = QtWidgets.QListWidget(body)
        self.headsList.setObjectName("predictionHeads")
        self.headsList.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.headsList.itemClicked.connect(self._on_head_item)
        self.headsList.itemActivated.connect(self._on_head_item)  # Return on a head steps into it too
        self.headsList.setMinimumHeight(60)
        # the room that is left, never more: the panel scrolls only when even the least does not fit
        self.headsList.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Ignored)
        layout.addWidget(self.headsList, 1)
        self.keepLayerButton = QtWidgets.QPushButton("Keep only these in their layer", body)
        self.keepLayerButton.setObjectName("predictionKeepLayer")
        self.keepLayerButton.setToolTip("Knock out every other head of the chosen heads' layers (one undo step)")
        self.keepLayerButton.clicked.connect(lambda: self.keep_only("layer"))
        self.keepModelButton = QtWidgets.QPushButton("… in the whole model", body)
        self.keepModelButton.setObjectName("predictionKeepModel")
        self.keepModelButton.setToolTip("Knock out every other head of the model (one undo step)")
        self.keepModelButton.clicked.connect(lambda: self.keep_only("model"))
        self.keepRow = FoldingRow((self.keepLayerButton, self.keepModelButton), body, name="predictionKeepRow")
        layout.addWidget(self.keepRow)
        self.info = info_label(body, "predictionInfo", self.colours)
        self.info.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.info)
        layout.addStretch(0)  # the room left when no heads are listed

        self.listen(self.session.targetChanged, self._on_target)
        self.listen(self.session.headEffectsChanged, self._on_change)
        self.listen(self.session.modelViewChanged, self._on_change)
        self.bars.colours = self.colours

    def colours_changed(self, palette) -> None:
        self.bars.colours = self.colours
        colours.sheet(self.info, "color: $soft_text; padding: 0 4px;", self.colours)
        self.bars.update()

    def theme_changed(self, theme) -> None:
        self.bars.set_font_scale(theme.font_scale)

    # ----- what is shown ----------------------------------------------------------------------------
    def hint_for(self, result) -> str | None:
        doc, trace = self.session.model_doc, self.session.model_trace
        if doc is None:
            return self.empty_hint
        if trace is None:
            return "The model is reading the sentence…"
        if trace.output_head is None:
            return self.no_head_hint.format(name=doc.model.info.name)
        if trace.n == 0:
            return "Type a sentence: the model needs at least one token to go on from."
        return None

    def show_result(self, result, selection) -> None:
        doc, trace = self.session.model_doc, self.session.model_trace
        info = doc.model.info
        self.position = position = min(selection.query, trace.n - 1)
        self.predictions = doc.model.predict(trace, position, TOP_K)
        set_shown(self.lastButton, info.causal and position != trace.n - 1, keep=self.bars)  # (its own click hides it)
        tok = token_text(trace.tokens[position])
        where = f"token {position + 1} of {trace.n}"
        if info.causal:
            self._note = (f"After '{tok}' ({where}), the model's {len(self.predictions)} most likely next tokens. "
                          "Click one to pin it.",
                          f"Next after '{tok}' ({where}). Click to pin.")
        elif trace.tokens[position] == "[MASK]":
            self._note = (f"The {len(self.predictions)} most likely tokens to fill '[MASK]' ({where}). "
                          "Click one to pin it.", f"Fillers of [MASK] ({where}). Click to pin.")
        else:
            self._note = (f"At '{tok}' ({where}): the tokens the model would put there. Type [MASK] in the "
                          "sentence to hide a word from it. Click one to pin it.",
                          f"At '{tok}' ({where}); type [MASK] to hide a word. Click to pin.")
        target = self.session.target
        now = self.session.target_now()
        before = target.before if target is not None and target.position == position else None
        rows = []
        for rank, (text, token_id, prob) in enumerate(self.predictions):
            mark = ""
            if before is not None:
                then = int(np.count_nonzero(before > before[token_id])) + 1  # its place when pinned
                mark = NEW if then > TOP_K else SAME if then == rank + 1 else \
                    f"{UP}{then - rank - 1}" if then > rank + 1 else f"{DOWN}{rank + 1 - then}"
            pinned = target is not None and target.position == position and target.token_id == token_id
            rows.append((token_text(text), prob, mark, pinned))
        self.bars.set_rows(rows)
        self._show_target(target, now, trace)
        self._show_effects()
        self._apply_texts()

    def _show_target(self, target, now, trace) -> None:
        set_shown(self.unpinButton, target is not None, keep=self.bars)
        if target is None:
            self._target_words = ("No word pinned. Click a word above to pin it: every edit, knock-out, undo and "
                                  "reset then shows its chance before → after.",
                                  "Click a word to pin it and follow its chance.")
            return
        before, after = float(target.before[target.token_id]), float(now[target.token_id])
        at = f"after '{token_text(trace.tokens[target.position])}'" if trace.info.causal else \
            f"at token {target.position + 1}"
        self.target_numbers = (before, after)
        line = f"Pinned: '{token_text(target.text)}' {at}: {percent(before)} → {percent(after)}"
        if target.position == self.position and all(i != target.token_id for _t, i, _p in self.predictions):
            line += " (not in the ten now)"
        self._target_words = (f"{line}\n(before: when you pinned it; after: with the edits now. "
                              f"{UP} up, {DOWN} down, {NEW} new in the ten, = same place.)",
                              f"{line}\n(before: when pinned)")

    def _show_effects(self) -> None:
        target, effects = self.session.target, self.session.head_effects
        running = self.job is not None
        set_enabled(self.effectsButton, target is not None and not running, keep=self.bars)
        set_enabled(self.meanBox, not running)
        self.meanBox.setToolTip(MEAN_TIP)
        self.headsList.clear()
        self.effect_rows = []
        self.headsList.setVisible(effects is not None)  # an empty box says nothing (and a figure shows it)
        if effects is None:
            if self._cancelled:
                self.info.setText("Cancelled: no heads were listed.")
            elif target is not None:
                self.info.setText("Press \"Which heads matter?\": each head is knocked out alone and the change in "
                                  "the pinned word's log-probability is listed here.")
            else:
                self.info.setText("")
            self._set_keep_enabled()
            return
        deltas = effects.deltas
        order = sorted(((float(deltas[l, h]), l, h) for l in range(deltas.shape[0]) for h in range(deltas.shape[1])))
        for delta, layer, head in order:
            off = (layer, head) in self.session.model_doc.edits.knocked_out
            text = f"layer {layer + 1} head {head + 1}: {style.fmt(delta, 2)}"
            if off and effects.key == self.session.model_doc.key:
                text += " (already knocked out)"
            item = QtWidgets.QListWidgetItem(text, self.headsList)
            item.setData(Qt.ItemDataRole.UserRole, (layer, head))
            item.setToolTip(f"Knocking out layer {layer + 1} head {head + 1} changes log p('{effects.target.text}') "
                            f"by {style.fmt(delta, 2)}. Click to step into this head.")
            self.effect_rows.append((layer, head, delta))
        rows = min(len(order), 3)  # at least three heads in sight (more when there is room: it stretches)
        self.headsList.setMinimumHeight(int(rows * self.headsList.sizeHintForRow(0) + 2 * self.headsList.frameWidth()))
        stale = "" if self.session.effects_are_current() else " Worked out before the last change: press again."
        how = "set to zero" if effects.mode == "zero" else "set to its average"
        self.info.setText(f"Change in log p('{effects.target.text}') with each head alone {how}: negative means "
                          f"the head helped; largest drop first.{stale}")
        self._set_keep_enabled()

    def _set_keep_enabled(self) -> None:
        ok = self.session.model_doc is not None and self.job is None
        set_enabled(self.keepLayerButton, ok)
        set_enabled(self.keepModelButton, ok)

    def _apply_texts(self) -> None:
        show_texts(self.width(), ((self.note, self._note), (self.targetLabel, self._target_words)))

    def resizeEvent(self, event):  # noqa: N802
        super().resizeEvent(event)
        self._apply_texts()

    # ----- the user's clicks ------------------------------------------------------------------------
    def _on_row(self, row: int) -> None:
        if not 0 <= row < len(self.predictions):
            return
        text, token_id, _p = self.predictions[row]
        target = self.session.target
        if target is not None and (target.position, target.token_id) == (self.position, token_id):
            self.session.unpin_target()
        else:
            self.session.pin_target(self.position, token_id, text)

    def go_to_last(self) -> None:
        """Select the last token of the sentence (GPT-2, Llama: the guess for the word after the sentence)."""
        trace = self.session.model_trace
        if trace is not None and trace.n:
            self.session.select(query=trace.n - 1)

    def _on_target(self, *_):
        if self.job is not None:
            self.cancel_effects()
        self._on_change()

    def _on_head_item(self, item) -> None:
        layer, head = item.data(Qt.ItemDataRole.UserRole)
        self.session.select_model_head(layer, head)

    def chosen_heads(self) -> list:
        """The heads selected in the list, or (none selected) the head every panel shows."""
        picked = [tuple(i.data(Qt.ItemDataRole.UserRole)) for i in self.headsList.selectedItems()]
        return picked or [(self.session.model_layer, self.session.model_head)]

    def keep_only(self, scope: str) -> bool:
        return self.session.keep_only(self.chosen_heads(), scope)

    # ----- which heads matter ----------------------------------------------------------------------
    def run_effects(self) -> bool:
        """Start head_effects for the pinned target on a worker thread (False: nothing pinned, or busy)."""
        doc, trace, target = self.session.model_doc, self.session.model_trace, self.session.target
        if self.job is not None or doc is None or trace is None or target is None or trace.tokens != target.tokens:
            return False
        mode = "mean" if self.meanBox.isChecked() else "zero"
        job = effects_job(doc.model, trace, target.position, target.token_id, mode, self)
        key, pinned = doc.key, target
        job.progressed.connect(self._on_progress)
        job.done.connect(lambda deltas, error: self._on_done(job, deltas, error, mode, key, pinned))
        self.job = job
        self._cancelled = False
        total = trace.n_layers * trace.n_heads
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        self.runningRow.show()
        set_enabled(self.effectsButton, False, keep=self.cancelButton)  # the keyboard on Cancel while it runs
        set_enabled(self.meanBox, False)
        self._set_keep_enabled()
        job.start()
        return True

    def cancel_effects(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.info.setText("Cancelling…")

    def _on_progress(self, done: int, total: int) -> None:
        self.progress.setMaximum(total)
        self.progress.setValue(done)

    def _on_done(self, job, deltas, error: str, mode: str, key, pinned) -> None:
        if job is not self.job:
            return
        self.job = None
        set_shown(self.runningRow, False, keep=self.bars)
        if error:
            self.session.message.emit(f"Which heads matter: {error}")
        elif deltas is not None and self.session.target is pinned:
            self.session.set_head_effects(deltas, mode, key)
        self._cancelled = deltas is None and not error
        self._on_change()

    def detach(self) -> None:
        if self.job is not None:
            self.job.cancel()
        super().detach()
