"""The editor widgets: sentence and options, the token table, the weight grids.

They write every change to the Session and follow it back (with their own
signals blocked, so nothing echoes). Under the sentence box: what newly typed
words got in a designed example ("'dog' took the features of 'animal'") and
the example's note ("About this example"). The token table's feature names are
renamed in place (double-click a column header); with many dials (a trained
model's 384) its columns keep a fixed width, each row names its token, and the
selected token's row is scrolled into view.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import MAX_HEADS, MAX_TEMPERATURE, MIN_TEMPERATURE, ScenarioError, rope_lab

from ..look import colours
from ..labels.changed_text import set_tooltip
from ..state.session import Session
from .example_note import ExampleNoteBox
from .grid_models import TokenTableModel, x_caption
from .header_names import HeaderNameEditor
from .model_box import ModelBox
from .number_table import NumberTableView
from .rows import left_row
from .weight_grids import WeightGridsWidget

__all__ = ["InputsWidget", "NumberTableView", "SentenceOptionsWidget", "TokenTableWidget", "WeightGridsWidget"]

Qt = QtCore.Qt
MAX_GUI_DIM = 64
#: How long that note stays (ms).
NOTE_MS = 15000
#: A token table with this many dials or more keeps its columns this wide (pixels).
WIDE_COLUMN_PX = 52
SOFTMAX_CHOICES = [
    ("keys", "Each row, over the keys (correct)"),
    ("queries", "Each column, over the queries (a classic bug)"),
]


class SentenceEdit(QtWidgets.QLineEdit):
    """The sentence box. Undo and redo go to the session's history, not the box's own."""

    def event(self, event):
        if event.type() == QtCore.QEvent.Type.ShortcutOverride and (
            event.matches(QtGui.QKeySequence.StandardKey.Undo) or event.matches(QtGui.QKeySequence.StandardKey.Redo)
            or event.keyCombination() == QtGui.QKeySequence("Ctrl+Shift+Z")[0]
        ):
            event.ignore()  # let the window's Undo / Redo actions take it
            return True
        return super().event(event)


class SentenceOptionsWidget(QtWidgets.QWidget):
    """The sentence box, the dimensions, the seed and the attention options."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.sentenceEdit = SentenceEdit(self)
        self.sentenceEdit.setObjectName("sentenceEdit")
        self.sentenceEdit.setPlaceholderText("Type a sentence, e.g. The cat sat")
        self.sentenceEdit.setClearButtonEnabled(True)
        self.sentenceEdit.setMaxLength(2_000_000)  # a long paste is kept whole; the engine keeps 512 tokens
        self._editing = False  # True while an edit made here runs: its messages are shown under the box
        self.sentenceEdit.textEdited.connect(self._own(session.set_text))
        layout.addWidget(QtWidgets.QLabel("Sentence", self))
        layout.addWidget(self.sentenceEdit)
        self.messageLabel = QtWidgets.QLabel(self)
        self.messageLabel.setObjectName("messageLabel")
        self.messageLabel.setWordWrap(True)
        colours.sheet(self.messageLabel, "color: $error_ink;")
        self.messageLabel.hide()
        layout.addWidget(self.messageLabel)
        # What newly typed words got, in a designed example (after the typist pauses).
        self.newWordsLabel = QtWidgets.QLabel(self)
        self.newWordsLabel.setObjectName("newWordsLabel")
        self.newWordsLabel.setWordWrap(True)
        # what newly typed words got: a plain remark, not an error
        colours.sheet(self.newWordsLabel, "color: $dark_grey; font-style: italic;")
        self.newWordsLabel.hide()
        layout.addWidget(self.newWordsLabel)
        self._note_timer = QtCore.QTimer(self)
        self._note_timer.setSingleShot(True)
        self._note_timer.timeout.connect(self.newWordsLabel.hide)
        session.newWordsNoted.connect(self.show_new_words)
        # A designed example: why each of its numbers is there.
        self.exampleNote = ExampleNoteBox(session, self)
        layout.addWidget(self.exampleNote)
        # In the trained-model mode: the model, its layer and head. The hand-made options hide then, before
        # the model box shows (told first): both shown for a moment would make the dock, and with it the
        # window, taller than a small screen, and a window never shrinks back by itself.
        session.modelChanged.connect(lambda doc: doc is not None and self.handMadeBox.hide())
        self.modelBox = ModelBox(session, self)
        layout.addWidget(self.modelBox)
        self.handMadeBox = QtWidgets.QWidget(self)
        self.handMadeBox.setObjectName("handMadeOptions")
        hand = QtWidgets.QVBoxLayout(self.handMadeBox)
        hand.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.handMadeBox)

        form = QtWidgets.QGridLayout()
        form.setHorizontalSpacing(8)
        hand.addLayout(form)

        def spin(name, lo, hi, tip):
            s = QtWidgets.QSpinBox(self)
            s.setObjectName(name)
            s.setRange(lo, hi)
            s.setToolTip(tip)
            s.setKeyboardTracking(False)
            return s

        self.dModelSpin = spin("dModelSpin", 1, MAX_GUI_DIM, "d_model: how many numbers (dials) each token has")
        self.dKSpin = spin("dKSpin", 1, MAX_GUI_DIM, "d_k: length of each query and key")
        self.dVSpin = spin("dVSpin", 1, MAX_GUI_DIM, "d_v: length of each value")
        self.seedSpin = spin("seedSpin", 0, 99999, "Seed for new embeddings and grids (same seed, same numbers)")
        self.temperatureSpin = QtWidgets.QDoubleSpinBox(self)
        self.temperatureSpin.setObjectName("temperatureSpin")
        self.temperatureSpin.setDecimals(2)
        self.temperatureSpin.setRange(max(0.05, MIN_TEMPERATURE), min(20.0, MAX_TEMPERATURE))
        self.temperatureSpin.setSingleStep(0.1)
        self.temperatureSpin.setKeyboardTracking(False)
        self.temperatureSpin.setToolTip("Temperature T: scores are divided by T. Below 1 sharpens, above 1 flattens.")
        for r, (label, w) in enumerate(
            [("d_model", self.dModelSpin), ("d_k", self.dKSpin), ("d_v", self.dVSpin)]
        ):
            form.addWidget(QtWidgets.QLabel(label, self), 0, 2 * r)
            form.addWidget(w, 0, 2 * r + 1)
        form.addWidget(QtWidgets.QLabel("seed", self), 1, 0)
        form.addWidget(self.seedSpin, 1, 1)
        form.addWidget(QtWidgets.QLabel("T", self), 1, 2)
        form.addWidget(self.temperatureSpin, 1, 3)

        self.scaleCheck = QtWidgets.QCheckBox("Divide scores by √d_k", self)
        self.scaleCheck.setObjectName("scaleCheck")
        self.causalCheck = QtWidgets.QCheckBox("Causal mask: no looking ahead", self)
        self.causalCheck.setObjectName("causalCheck")
        # one per line: side by side they made the dock too wide for a 1024-pixel projector
        hand.addWidget(self.scaleCheck)
        # rotary positions (RoPE, as Llama and Qwen2 use): q and k turned by their positions, at speeds set by
        # θ. The box shares the causal mask's line and θ the seed's row: no taller, no wider a dock
        self.rotaryCheck = QtWidgets.QCheckBox("RoPE", self)
        self.rotaryCheck.setObjectName("rotaryCheck")
        self.rotaryCheck.setToolTip("Rotary positions (RoPE): turn each query and key by its position before they "
                                    "meet, as Llama and Qwen2 do. The same two words then score differently at "
                                    "different distances. θ (beside the seed) sets the speeds.")
        hand.addLayout(left_row(self.causalCheck, self.rotaryCheck))  # the masks
        self.ropeThetaEdit = QtWidgets.QLineEdit(self)
        self.ropeThetaEdit.setObjectName("ropeThetaEdit")
        self.ropeThetaEdit.setToolTip("θ (theta) of rotary positions (RoPE): pair i of q and k turns "
                                      "1 / θ^(2i / d_k) radians per position. Above 1; Llama uses 10000 or "
                                      "500000. Press Enter to take it.")
        self.ropeThetaEdit.setMaximumWidth(self.dVSpin.sizeHint().width())
        theta_label = QtWidgets.QLabel("θ", self)
        theta_label.setToolTip(self.ropeThetaEdit.toolTip())
        form.addWidget(theta_label, 1, 4)
        form.addWidget(self.ropeThetaEdit, 1, 5)
        self.ropeThetaMessage = QtWidgets.QLabel(self)  # what is wrong with a typed θ, right under the options
        self.ropeThetaMessage.setObjectName("ropeThetaMessage")
        self.ropeThetaMessage.setWordWrap(True)
        colours.sheet(self.ropeThetaMessage, "color: $error_ink;")
        self.ropeThetaMessage.hide()
        hand.addWidget(self.ropeThetaMessage)
        hand.addWidget(QtWidgets.QLabel("Softmax runs along", self))  # above its choice: narrower dock
        self.softmaxOverCombo = QtWidgets.QComboBox(self)
        self.softmaxOverCombo.setObjectName("softmaxOverCombo")
        for key, text in SOFTMAX_CHOICES:
            self.softmaxOverCombo.addItem(text, key)
        hand.addWidget(self.softmaxOverCombo)

        # heads: how many, and which one every panel shows
        heads = QtWidgets.QHBoxLayout()
        heads.addWidget(QtWidgets.QLabel("Heads", self))
        self.headsSpin = spin("headsSpin", 1, MAX_HEADS,
                              "How many attention heads: each has its own W^Q, W^K, W^V, "
                              "and W^O mixes their outputs")
        heads.addWidget(self.headsSpin)
        self.headLabel = QtWidgets.QLabel("Show head", self)
        heads.addWidget(self.headLabel)
        self.headCombo = QtWidgets.QComboBox(self)
        self.headCombo.setObjectName("headCombo")
        self.headCombo.setToolTip("Every panel shows this head")
        heads.addWidget(self.headCombo, 1)
        hand.addLayout(heads)

        # cross-attention: a second sentence gives keys and values
        self.crossCheck = QtWidgets.QCheckBox("Cross-attention from a source sentence", self)
        self.crossCheck.setObjectName("crossCheck")
        self.crossCheck.setToolTip("Keys and values come from a second sentence, the source. Like a translation "
                                   "model: the sentence above asks (queries); the source answers (keys and values)")
        hand.addWidget(self.crossCheck)
        self.sourceEdit = SentenceEdit(self)
        self.sourceEdit.setObjectName("sourceEdit")
        self.sourceEdit.setPlaceholderText("Source sentence, e.g. le chat noir")
        self.sourceEdit.setMaxLength(2_000_000)
        self.sourceEdit.setToolTip("The source sentence: its tokens give the keys and values")
        hand.addWidget(self.sourceEdit)
        # Never taller than it needs: with a dock below it hidden, the room goes to the token table, and
        # any height it must still take stays under the last box instead of between the boxes.
        layout.addStretch(1)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum)

        own = self._own
        self.dModelSpin.valueChanged.connect(own(lambda v: session.set_dims(d_model=v)))
        self.dKSpin.valueChanged.connect(own(lambda v: session.set_dims(d_k=v)))
        self.dVSpin.valueChanged.connect(own(lambda v: session.set_dims(d_v=v)))
        self.seedSpin.valueChanged.connect(own(session.set_seed))
        self.temperatureSpin.valueChanged.connect(own(lambda v: session.set_option(temperature=float(v))))
        self.scaleCheck.toggled.connect(own(lambda on: session.set_option(scale=bool(on))))
        self.causalCheck.toggled.connect(own(lambda on: session.set_option(causal=bool(on))))
        self.softmaxOverCombo.currentIndexChanged.connect(
            own(lambda i: session.set_option(softmax_over=self.softmaxOverCombo.itemData(i)))
        )
        self.rotaryCheck.toggled.connect(own(lambda on: session.set_rotary(on=bool(on))))
        self.ropeThetaEdit.editingFinished.connect(self._theta_typed)
        self.headsSpin.valueChanged.connect(own(session.set_heads))
        self.headCombo.currentIndexChanged.connect(own(lambda i: session.set_head(max(0, i))))
        self.crossCheck.toggled.connect(own(self._cross_toggled))
        self.sourceEdit.textEdited.connect(own(session.set_source))
        session.headChanged.connect(lambda _h: self.follow(session.scenario))
        session.scenarioChanged.connect(self.follow)
        session.modelChanged.connect(lambda _doc: self.follow(session.scenario))
        session.message.connect(self.show_message)
        self.follow(session.scenario)

    def _theta_typed(self) -> None:
        """θ as typed: taken when it is a number above 1 and not too big; else the box keeps what was typed and
        the line under it says what is wrong (the scenario keeps its θ)."""
        text = self.ropeThetaEdit.text()
        try:
            theta = rope_lab.parse_theta(text)
        except ScenarioError as exc:
            self.ropeThetaMessage.setText(str(exc))
            self.ropeThetaMessage.show()
            return
        self.ropeThetaMessage.hide()
        if theta != self.session.scenario.rope_theta:
            self._own(lambda: self.session.set_rotary(theta=theta))()

    def _cross_toggled(self, on: bool) -> None:
        if not on:
            self.session.set_source(None)
            return
        # Start from the sentence itself: cross-attention with itself is self-attention,
        # so nothing changes until the source is edited.
        text = self.sourceEdit.text() or self.session.scenario.text or " ".join(self.session.scenario.tokens)
        self.session.set_source(text)

    def _own(self, edit):
        """``edit`` as a slot whose messages (a token limit, a refused size) show under the sentence box.
        Messages from elsewhere (a table cell, a file) are shown where they happen and on the status line."""
        def run(*args):
            self._editing = True
            try:
                edit(*args)
            finally:
                self._editing = False
        return run

    def show_new_words(self, text: str) -> None:
        """Say what newly typed words got (``Session.newWordsNoted``) for a while."""
        self.newWordsLabel.setText(text)
        self.newWordsLabel.setVisible(bool(text))
        self._note_timer.start(NOTE_MS)

    def show_message(self, text: str) -> None:
        if not self._editing:
            return
        self.messageLabel.setText(text)
        self.messageLabel.setVisible(bool(text))
        QtCore.QTimer.singleShot(8000, self.messageLabel, self.messageLabel.hide)

    def follow(self, s) -> None:
        """Show the Session's scenario without sending anything back."""
        model_mode = self.session.model_doc is not None
        self.handMadeBox.setVisible(not model_mode)
        if model_mode:  # only the sentence: sizes and options belong to the model
            if self.sentenceEdit.text() != self.session.model_doc.text:
                self.sentenceEdit.blockSignals(True)
                self.sentenceEdit.setText(self.session.model_doc.text)
                self.sentenceEdit.blockSignals(False)
            return
        widgets = [self.sentenceEdit, self.dModelSpin, self.dKSpin, self.dVSpin, self.seedSpin,
                   self.temperatureSpin, self.scaleCheck, self.causalCheck, self.softmaxOverCombo,
                   self.headsSpin, self.headCombo, self.crossCheck, self.sourceEdit, self.rotaryCheck,
                   self.ropeThetaEdit]
        for w in widgets:
            w.blockSignals(True)
        try:
            text = s.text if s.text is not None else " ".join(s.tokens)
            if self.sentenceEdit.text() != text:
                self.sentenceEdit.setText(text)
            for spin, value in ((self.dModelSpin, s.d_model), (self.dKSpin, s.d_k), (self.dVSpin, s.d_v),
                                (self.seedSpin, s.seed), (self.temperatureSpin, s.temperature),
                                (self.headsSpin, s.n_heads)):
                if spin.value() != value:  # setValue repaints the box even when the value is the same
                    spin.setValue(value)
            self.scaleCheck.setChecked(s.scale)
            self.causalCheck.setChecked(s.causal)
            self.rotaryCheck.setChecked(s.rotary)
            if self.ropeThetaMessage.isHidden():  # (a refused θ stays in the box until it is typed again)
                theta = f"{s.rope_theta:.10g}"
                if self.ropeThetaEdit.text() != theta:
                    self.ropeThetaEdit.setText(theta)
            self.softmaxOverCombo.setCurrentIndex([k for k, _ in SOFTMAX_CHOICES].index(s.softmax_over))
            if self.headCombo.count() != s.n_heads:
                self.headCombo.clear()
                self.headCombo.addItems([f"head {h + 1} of {s.n_heads}" for h in range(s.n_heads)])
            self.headCombo.setCurrentIndex(self.session.head)
            self.headCombo.setEnabled(s.n_heads > 1)
            self.headLabel.setEnabled(s.n_heads > 1)
            set_tooltip(self.dKSpin, "d_k: length of each query and key" + (" (per head)" if s.n_heads > 1 else ""))
            set_tooltip(self.dVSpin, "d_v: length of each value" + (" (per head)" if s.n_heads > 1 else ""))
            self.crossCheck.setChecked(s.is_cross)
            self.sourceEdit.setVisible(s.is_cross)
            if s.is_cross:
                source = s.source_text if s.source_text is not None else " ".join(s.source_tokens)
                if self.sourceEdit.text() != source:
                    self.sourceEdit.setText(source)
            self.causalCheck.setEnabled(not s.is_cross)
            set_tooltip(
                self.causalCheck, "Two different sentences have no shared order, so the causal mask does not apply "
                "to cross-attention" if s.is_cross else "Each token may look only at itself and earlier tokens")
        finally:
            for w in widgets:
                w.blockSignals(False)


class TokenTableWidget(QtWidgets.QWidget):
    """The token table: clicking a row selects that token as the query."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 6)
        self.xCaption = QtWidgets.QLabel(self)  # a Llama-family model: what x is (the RMSNorm output)
        self.xCaption.setObjectName("xCaption")
        self.xCaption.setWordWrap(True)
        colours.sheet(self.xCaption, "color: $ink_x; font-style: italic;")
        self.xCaption.hide()
        layout.addWidget(self.xCaption)
        self.model = TokenTableModel(session, self)
        self.view = NumberTableView(self.model, "tokenTable", self)
        self.view.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.namer = HeaderNameEditor(self.view)
        layout.addWidget(self.view)
        self.view.clicked.connect(lambda index: session.select(query=index.row()))
        session.selectionChanged.connect(self._follow_selection)
        # a sentence of another length resets the table, and its highlighted row with it: the query's again
        self.model.modelReset.connect(lambda: self._follow_selection(session.selection))
        self.sourceLabel = QtWidgets.QLabel("Source tokens (they give the keys and values):", self)
        layout.addWidget(self.sourceLabel)
        self.sourceModel = TokenTableModel(session, self, source=True)
        self.sourceView = NumberTableView(self.sourceModel, "sourceTable", self)
        self.sourceView.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.sourceView.clicked.connect(lambda index: session.select(key=index.row()))
        self.sourceNamer = HeaderNameEditor(self.sourceView)
        layout.addWidget(self.sourceView)
        for view, role in ((self.view, "query"), (self.sourceView, "key")):  # the arrow keys choose a row too
            view.selectionModel().currentRowChanged.connect(
                lambda current, _before, view=view, role=role: self._moved_to(view, role, current.row()))
        self._wide = None
        for view in (self.view, self.sourceView):  # the token column always; the dials unless there are many
            model = view.model()
            view.fit_sections(lambda model=model: ("first" if self.wide(model.scenario) else "all", False))
        session.scenarioChanged.connect(self._follow_source)
        session.modelViewChanged.connect(lambda _data: self._follow_caption())
        session.modelChanged.connect(lambda _doc: self._follow_caption())
        self._follow_source(session.scenario)

    def _moved_to(self, view, role: str, row: int) -> None:
        """The current row moved by the keyboard (the view has the focus): its token becomes the query (the
        source table: the key), as a click makes it, so the highlighted row is always the one the panels show."""
        if view.hasFocus() and 0 <= row and getattr(self.session.selection, role) != row:
            self.session.select(**{role: row})

    def _follow_caption(self) -> None:
        text = x_caption(self.session)
        if text != self.xCaption.text():
            self.xCaption.setText(text)
        self.xCaption.setVisible(bool(text))

    @staticmethod
    def wide(s) -> bool:
        """Many dials: narrow number columns of one width, and the rows name their tokens."""
        return s.d_model >= TokenTableModel.WIDE

    def _follow_source(self, s) -> None:
        self.sourceLabel.setVisible(s.is_cross)
        self.sourceView.setVisible(s.is_cross)
        wide = self.wide(s)
        if wide != self._wide:
            self._wide = wide
            for view in (self.view, self.sourceView):
                self._set_wide(view, wide)

    @staticmethod
    def _set_wide(view: QtWidgets.QTableView, wide: bool) -> None:
        """Many dials: every number column keeps one narrow width (the table scrolls sideways); the
        row headers name the tokens. Few dials: the columns fit their names ("x3 · animate")."""
        header = view.horizontalHeader()
        Mode = QtWidgets.QHeaderView.ResizeMode
        header.setSectionResizeMode(Mode.Interactive if wide else Mode.Fixed)  # fitted by the view's fitter
        if wide:
            header.setDefaultSectionSize(WIDE_COLUMN_PX)  # the fitter gives it to every number column
        view.fitter.refit()

    def showEvent(self, event):  # noqa: N802 (Qt naming)
        super().showEvent(event)
        # laid out now: the selected row (chosen before the table was shown) can be scrolled into view
        QtCore.QTimer.singleShot(0, self, lambda: self._follow_selection(self.session.selection))

    def resizeEvent(self, event):  # noqa: N802 (Qt naming)
        """A lower table (its dock made smaller to give the model's tabs room) keeps the query's row in view."""
        super().resizeEvent(event)
        if event.size().height() < event.oldSize().height():
            self._follow_selection(self.session.selection)

    def _follow_selection(self, sel) -> None:
        if self.model.rowCount() > sel.query:
            self.view.blockSignals(True)
            self.view.selectRow(sel.query)
            self.view.blockSignals(False)
            # keep the row in view, without scrolling sideways away from the dials being read
            column = max(0, self.view.columnAt(0))
            self.view.scrollTo(self.model.index(sel.query, column))


class InputsWidget(QtWidgets.QWidget):
    """All editors in one column (used when docks are not wanted, e.g. tests)."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        layout = QtWidgets.QVBoxLayout(self)
        self.options = SentenceOptionsWidget(session, self)
        self.tokens = TokenTableWidget(session, self)
        self.grids = WeightGridsWidget(session, self)
        for w in (self.options, self.tokens, self.grids):
            layout.addWidget(w)
