"""The model box of the options dock: which trained model is open, and which layer and head to step into.

Shown only in the trained-model mode. Layer and head are counted from 1 on screen (the session counts
from 0). "Knock out this head" sets the head's output to zero (the layers above change, this head's own
weights do not); "Reset to the checkpoint" undoes every what-if edit at once (one undo step).

"Whole words" (not pieces) switches the session's word view (the heatmap and the rollout lab join a word's
pieces; WORD_RULE says how). "Generate" appends the model's next token (greedy at temperature 0, else
sampled at a temperature with a seed, set in the menu of the button beside them that shows them),
"Generate N" that many, one undo step each; both are disabled, with the reason in
their tooltip, for a model that does not read left to right (BERT) or has no output head. A temperature
that is not a number is refused in the line under the buttons, and the typed text is kept to be fixed.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from qkv_engine import MERGE_RULE, WORD_RULE

from ..look import colours
from ..labels.elided_label import ElidedLabel
from ..labels.changed_text import set_text, set_tooltip
from ..labels.folding_row import FoldingRow
from ..labels.kept_focus import set_enabled
from ..state.session import GRID_NAMES, Session, parse_temperature

#: What "Generate" and "Generate N" say about themselves when they can be used.
GENERATE_TIP = ("Append the model's next token to the text: the most likely one at temperature 0 (greedy), "
                "else a draw from the model's probabilities at that temperature, with the seed. "
                "The same seed from the same text always writes the same. One undo step.")
GENERATE_N_TIP = ("Append up to N tokens, one at a time: the heatmap grows a row each time. It stops at the "
                  "end-of-text token. Each token is an undo step of its own (Ctrl+Z takes back one). "
                  "It writes what N presses of Generate would.")
WORDS_TIP = (f"Join each word's pieces (shown in the heatmap and the attention rollout). {MERGE_RULE} "
             f"{WORD_RULE} Clicking a word selects its first piece.")

Qt = QtCore.Qt

#: How many edits the box names one by one before it only counts the rest.
LISTED_EDITS = 3


def describe_model(info) -> str:
    """One line about a model: its name, kind and sizes (and how its heads share key/value heads)."""
    shared = f"; {info.shared_heads}" if info.shared_heads else ""
    return f"{info.name} ({describe_sizes(info)}{shared})"


def describe_sizes(info) -> str:
    """The model's kind and sizes in a few words."""
    return f"{info.kind}, {info.n_layers} layers \u00d7 {info.n_heads} heads, d_model {info.d_model}, d_k {info.d_head}"


def describe_edits(edits) -> str:
    """The what-if edits in a few words ("2 edits: W^Q of layer 1 head 3, head 2.4 knocked out")."""
    parts = []
    for layer, head, name, _row, _col, _value in edits.weights:
        parts.append(f"{GRID_NAMES.get(name, name)} of layer {layer + 1} head {head + 1}")
    for layer, token, _dim, _value in edits.inputs:
        parts.append(f"x of token {token + 1} entering layer {layer + 1}")
    for layer, head in sorted(edits.knocked_out):
        parts.append(f"layer {layer + 1} head {head + 1} knocked out")
    if not parts:
        return "No edits: the checkpoint as it was trained."
    shown = ", ".join(parts[:LISTED_EDITS]) + (f" and {len(parts) - LISTED_EDITS} more" if len(parts) > LISTED_EDITS else "")
    return f"{len(parts)} edit{'s' if len(parts) != 1 else ''}: {shown}."


class ModelBox(QtWidgets.QGroupBox):
    """Model name, layer and head choosers, knock-out, reset and the running hint."""

    def __init__(self, session: Session, parent=None):
        super().__init__("Trained model", parent)
        self.setObjectName("modelBox")
        self.session = session
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        # rows close together (their widgets have room around them), so that the box is no taller for the
        # generation row; along a row the usual room
        layout.setSpacing(2)
        across = self.style().layoutSpacing(QtWidgets.QSizePolicy.ControlType.PushButton,
                                            QtWidgets.QSizePolicy.ControlType.PushButton, Qt.Orientation.Horizontal)
        self._across = across if across >= 0 else 6
        # one line each, shortened with "…" when narrow (the whole text is the tooltip): a wrapped label in
        # a short dock was cut at its top
        self.nameLabel = ElidedLabel("", self)
        self.nameLabel.setObjectName("modelNameLabel")
        self.nameLabel.setStyleSheet("font-weight: bold;")
        layout.addWidget(self.nameLabel)
        self.sizesLabel = ElidedLabel("", self)
        self.sizesLabel.setObjectName("modelSizesLabel")
        layout.addWidget(self.sizesLabel)

        row = QtWidgets.QHBoxLayout()
        row.setSpacing(self._across)
        self.layerSpin = QtWidgets.QSpinBox(self)
        self.layerSpin.setObjectName("layerSpin")
        self.layerSpin.setToolTip("Which layer to step into (1 is the first, nearest the words)")
        self.headSpin = QtWidgets.QSpinBox(self)
        self.headSpin.setObjectName("headSpin")
        self.headSpin.setToolTip("Which head of that layer every panel shows")
        for label, spin in (("Layer", self.layerSpin), ("Head", self.headSpin)):
            spin.setMinimum(1)
            spin.setKeyboardTracking(False)
            row.addWidget(QtWidgets.QLabel(label, self))
            row.addWidget(spin)
        row.addStretch(1)
        layout.addLayout(row)
        self._layer_row = row  # (the words switch goes at its end)

        self.knockOutCheck = QtWidgets.QCheckBox("Knock out this head (its output set to 0)", self)
        self.knockOutCheck.setObjectName("knockOutCheck")
        self.knockOutCheck.setToolTip("What if this head were not there? Its output becomes 0; the layers above "
                                      "change. Its own weights stay as they are.")
        layout.addWidget(self.knockOutCheck)
        self.resetButton = QtWidgets.QPushButton("Reset to the checkpoint", self)
        self.resetButton.setObjectName("resetCheckpointButton")
        self.resetButton.setToolTip("Undo every edit of the model's numbers at once")
        self.backButton = QtWidgets.QPushButton("Back to the hand-made example", self)
        self.backButton.setObjectName("backToHandMadeButton")
        # side by side, or one above the other in a narrow column (side by side they held it at 404 pixels)
        self.resetRow = FoldingRow((self.resetButton, self.backButton), self, spacing=self._across,
                                   name="modelResetRow")
        layout.addWidget(self.resetRow)
        self.editsLabel = QtWidgets.QLabel(self)
        self.editsLabel.setObjectName("modelEditsLabel")
        self.editsLabel.setWordWrap(True)
        layout.addWidget(self.editsLabel)
        self._build_words_and_generation(layout)
        self.busyLabel = QtWidgets.QLabel("Running the model\u2026", self)
        self.busyLabel.setObjectName("modelBusyLabel")
        keep = self.busyLabel.sizePolicy()
        keep.setRetainSizeWhenHidden(True)  # its line is kept: showing it moves nothing (the whole dock was laid out)
        self.busyLabel.setSizePolicy(keep)
        self.busyLabel.setVisible(False)
        layout.addWidget(self.busyLabel)

        self.layerSpin.valueChanged.connect(lambda v: session.select_model_head(v - 1, session.model_head))
        self.headSpin.valueChanged.connect(lambda v: session.select_model_head(session.model_layer, v - 1))
        self.knockOutCheck.toggled.connect(
            lambda on: session.knock_out(session.model_layer, session.model_head, bool(on)))
        self.resetButton.clicked.connect(session.reset_to_checkpoint)
        self.backButton.clicked.connect(session.close_model)
        session.modelChanged.connect(self.follow)
        session.modelViewChanged.connect(self.follow)
        session.busyChanged.connect(self.busyLabel.setVisible)
        self.follow()

    # ----- words and generation ---------------------------------------------------------------------
    def _build_words_and_generation(self, layout) -> None:
        """The words switch at the end of the layer and head row; one row for generation: Generate, Generate N,
        N, and a button that shows the sampling (greedy, or temperature and seed) and opens their fields."""
        session = self.session
        self.wordViewCheck = QtWidgets.QCheckBox("Whole words", self)
        self.wordViewCheck.setObjectName("wordViewCheck")
        self.wordViewCheck.setToolTip(WORDS_TIP)
        self._layer_row.addWidget(self.wordViewCheck)

        row = QtWidgets.QHBoxLayout()
        row.setSpacing(self._across)
        self.generateButton = QtWidgets.QPushButton("Generate", self)
        self.generateButton.setObjectName("generateButton")
        self.generateNButton = QtWidgets.QPushButton("Generate N", self)
        self.generateNButton.setObjectName("generateNButton")
        self.countSpin = QtWidgets.QSpinBox(self)
        self.countSpin.setObjectName("generateCountSpin")
        self.countSpin.setRange(1, session.MAX_GENERATE)
        self.countSpin.setValue(10)
        self.countSpin.setPrefix("N = ")
        self.countSpin.setToolTip("How many tokens \"Generate N\" appends at most")
        self.samplingButton = QtWidgets.QToolButton(self)
        self.samplingButton.setObjectName("samplingButton")
        self.samplingButton.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        self.samplingButton.setToolTip("How the next token is chosen: greedy (temperature 0) or drawn at a "
                                       "temperature with a seed. Click to change them.")
        # why Generate is grey, in the row itself (a model that cannot write text)
        self.generateReason = ElidedLabel("", self)
        self.generateReason.setObjectName("generateReason")
        self.generateReason.setVisible(False)
        for w in (self.generateButton, self.generateNButton, self.countSpin, self.samplingButton):
            row.addWidget(w)
        row.addWidget(self.generateReason, 1)
        row.addStretch(1)
        layout.addLayout(row)

        # the sampling fields, in the button's menu
        fields = QtWidgets.QWidget(self)
        form = QtWidgets.QFormLayout(fields)
        form.setContentsMargins(8, 6, 8, 6)
        self.temperatureEdit = QtWidgets.QLineEdit("0", fields)
        self.temperatureEdit.setObjectName("temperatureEdit")
        self.temperatureEdit.setToolTip("0: always the most likely token (greedy). Higher: more surprising "
                                        "tokens are drawn more often (0.7 and 1 are usual).")
        self.seedSpin = QtWidgets.QSpinBox(fields)
        self.seedSpin.setObjectName("generateSeedSpin")
        self.seedSpin.setRange(0, 2 ** 31 - 1)
        self.seedSpin.setToolTip("The seed of the random draws (used when the temperature is above 0): "
                                 "the same seed from the same text writes the same tokens.")
        form.addRow("Temperature", self.temperatureEdit)
        form.addRow("Seed", self.seedSpin)
        tip = QtWidgets.QLabel("0 = greedy: the most likely token.\nAbove 0: a draw; the same seed\nwrites "
                               "the same text.", fields)
        form.addRow(tip)
        menu = QtWidgets.QMenu(self.samplingButton)
        action = QtWidgets.QWidgetAction(menu)
        action.setDefaultWidget(fields)
        menu.addAction(action)
        self.samplingButton.setMenu(menu)
        self.generateNote = QtWidgets.QLabel(self)
        self.generateNote.setObjectName("generateNote")
        self.generateNote.setWordWrap(True)
        self.generateNote.setVisible(False)
        layout.addWidget(self.generateNote)

        self.wordViewCheck.toggled.connect(session.set_word_view)
        self.generateButton.clicked.connect(lambda: self.generate(1))
        self.generateNButton.clicked.connect(self._on_generate_n)
        self.temperatureEdit.returnPressed.connect(menu.close)
        self.temperatureEdit.textChanged.connect(self._show_sampling)
        self.temperatureEdit.textEdited.connect(lambda _t: self._say(""))
        self.seedSpin.valueChanged.connect(self._show_sampling)
        session.wordViewChanged.connect(self._follow_generation)
        session.generatingChanged.connect(self._follow_generation)
        session.busyChanged.connect(self._follow_generation)
        self._show_sampling()

    def _show_sampling(self, *_) -> None:
        """The sampling button's words: "greedy", "T 0.7, seed 3", or "T ?" for a temperature that is no number."""
        try:
            t = parse_temperature(self.temperatureEdit.text())
        except ValueError:
            text = "T ? \u26a0"
        else:
            text = "greedy" if t == 0.0 else f"T {t:g}, seed {self.seedSpin.value()}"
        self.samplingButton.setText(text)

    def _say(self, text: str, error: bool = False) -> None:
        """A line under the buttons: why nothing was generated (in the warning colour), or nothing."""
        set_text(self.generateNote, text)
        colours.sheet(self.generateNote, "color: $error_ink; font-weight: bold;" if error else "")
        self.generateNote.setVisible(bool(text))

    def generate(self, count: int) -> bool:
        """What "Generate" (count 1) and "Generate N" do: the typed temperature checked first."""
        try:
            temperature = parse_temperature(self.temperatureEdit.text())
        except ValueError as exc:
            self._say(f"Nothing generated: {exc}.", error=True)  # (the T button beside it shows \u26a0)
            return False
        self._say("")
        return self.session.generate(count, temperature, self.seedSpin.value())

    def _on_generate_n(self) -> None:
        if self.session.generating:
            self.session.stop_generating()
        else:
            self.generate(self.countSpin.value())

    def _follow_generation(self, *_) -> None:
        """The switches and buttons as the session has them: Stop while a run goes on; disabled, saying why,
        for a model that cannot write."""
        self.wordViewCheck.blockSignals(True)
        self.wordViewCheck.setChecked(self.session.word_view)
        self.wordViewCheck.blockSignals(False)
        ok, why = self.session.can_generate()
        running = self.session.generating
        set_enabled(self.generateButton, ok and not running, keep=self.generateNButton)  # (Stop while it runs)
        set_enabled(self.generateNButton, ok)
        label = "Stop" if running else "Generate N"
        if self.generateNButton.text() != label:
            self.generateNButton.setText(label)
        set_tooltip(self.generateButton, GENERATE_TIP if ok else why)
        set_tooltip(self.generateNButton, ("Stop writing (the tokens written so far stay)" if running else
                                           GENERATE_N_TIP) if ok else why)
        for w in (self.countSpin, self.samplingButton):
            set_enabled(w, ok and not running, keep=self.generateNButton)
        # why the buttons are grey, in the row a teacher looks at (the tooltip says more)
        doc = self.session.model_doc
        can_choose = ok or doc is None
        self.countSpin.setVisible(can_choose)
        self.samplingButton.setVisible(can_choose)
        self.generateReason.setVisible(not can_choose)
        if not can_choose:
            set_text(self.generateReason, "cannot write text")  # (the tooltip says why)
            set_tooltip(self.generateReason, why)

    def follow(self, *_):
        """Show the session's model, layer, head and edits without sending anything back."""
        doc = self.session.model_doc
        self.setVisible(doc is not None)
        if doc is None:
            return
        info = doc.model.info
        widgets = (self.layerSpin, self.headSpin, self.knockOutCheck)
        for w in widgets:
            w.blockSignals(True)
        try:  # each set only when it changes: a set repaints the box (and a new text lays the dock out)
            set_text(self.nameLabel, info.name)
            set_text(self.sizesLabel, describe_sizes(info))
            set_tooltip(self.nameLabel, f"{describe_model(info)}\n{info.path}")
            for spin, value, count in ((self.layerSpin, self.session.model_layer + 1, info.n_layers),
                                       (self.headSpin, self.session.model_head + 1, info.n_heads)):
                if spin.maximum() != count:
                    spin.setMaximum(count)
                if spin.value() != value:
                    spin.setValue(value)
                if spin.suffix() != f" of {count}":
                    spin.setSuffix(f" of {count}")
            here = (self.session.model_layer, self.session.model_head)
            self.knockOutCheck.setChecked(here in doc.edits.knocked_out)  # (Qt does nothing when it is so)
        finally:
            for w in widgets:
                w.blockSignals(False)
        set_enabled(self.resetButton, not doc.edits.is_empty())  # (its own click greys it out)
        set_text(self.editsLabel, describe_edits(doc.edits))
        self._follow_generation()
