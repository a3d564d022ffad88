"""The lesson pane: the step text, next / previous, the exercise page and the text-size control.

It only shows things and forwards clicks; the LessonController decides what
to show (see controller.py). The pane stays narrow at every text size: its
controls grow only a little with the text (``CONTROL_MAX_SCALE``), the step
chooser and the exercise's choice shorten their texts, and the text-size
controls move to a row of their own when one row would not fit
(``TWO_ROWS``), so a larger text never pushes the step's panel aside.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from ...look import colours

Qt = QtCore.Qt

#: Text-size choices (a factor on every font: lesson text and, in presenter mode, every panel).
SCALES = (1.0, 1.25, 1.5, 1.75, 2.0)
#: Lesson body text in pixels at scale 1 (so 32 px at the largest setting).
BODY_PX = 16
CONTROL_PX = 13
#: The controls (buttons, choosers) grow with the text size only up to this factor.
CONTROL_MAX_SCALE = 1.25
KIND_CHOICES = [
    ("q", "a query coordinate"),
    ("score", "a score"),
    ("weight", "a softmax weight"),
    ("output", "an output coordinate"),
]


class ExercisePage(QtWidgets.QWidget):
    """One hidden number: the question, the numbers to work from, an answer box, the verdict."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("exercisePage")
        # The page scrolls: at a large text size in a short pane (presenter mode below the panel) it
        # would otherwise hold the pane taller than it can be.
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll = QtWidgets.QScrollArea(self)
        self.scroll.setObjectName("exerciseScroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll)
        inner = QtWidgets.QWidget(self.scroll)
        inner.setObjectName("exerciseInner")
        self.scroll.setWidget(inner)
        lay = QtWidgets.QVBoxLayout(inner)
        lay.setContentsMargins(8, 8, 8, 8)
        top = QtWidgets.QHBoxLayout()
        self.title = QtWidgets.QLabel("<b>Your turn</b>", self)
        top.addWidget(self.title)
        top.addStretch(1)
        self.newButton = QtWidgets.QPushButton("New question", self)
        self.newButton.setObjectName("exerciseNew")
        top.addWidget(self.newButton)
        lay.addLayout(top)
        hide = QtWidgets.QHBoxLayout()  # a row of its own: the pane stays narrow
        hide.addWidget(QtWidgets.QLabel("Hide", self))
        self.kindCombo = QtWidgets.QComboBox(self)
        self.kindCombo.setObjectName("exerciseKind")
        self.kindCombo.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.kindCombo.setMinimumContentsLength(10)
        for key, text in KIND_CHOICES:
            self.kindCombo.addItem(text, key)
        hide.addWidget(self.kindCombo, 1)
        lay.addLayout(hide)

        self.question = self._label("exerciseQuestion")
        self.given = self._label("exerciseGiven")
        self.given.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.question)
        lay.addWidget(self.given)
        row = QtWidgets.QHBoxLayout()
        self.answerLabel = QtWidgets.QLabel("Your answer:", self)
        row.addWidget(self.answerLabel)
        self.answer = QtWidgets.QLineEdit(self)
        self.answer.setObjectName("exerciseAnswer")
        self.answer.setPlaceholderText("type a number, e.g. -0.13")
        row.addWidget(self.answer, 1)
        self.checkButton = QtWidgets.QPushButton("Check", self)
        self.checkButton.setObjectName("exerciseCheck")
        row.addWidget(self.checkButton)
        lay.addLayout(row)
        self.feedback = self._label("exerciseFeedback")
        lay.addWidget(self.feedback)
        self.showButton = QtWidgets.QPushButton("Show answer", self)
        self.showButton.setObjectName("exerciseShow")
        self.showButton.setToolTip("Show the hidden number and how it is worked out")
        lay.addWidget(self.showButton, 0, Qt.AlignmentFlag.AlignLeft)
        self.worked = self._label("exerciseWorked")
        self.worked.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.worked)
        lay.addStretch(1)
        self.closeButton = QtWidgets.QPushButton("Back to the lesson text", self)
        self.closeButton.setObjectName("exerciseClose")
        lay.addWidget(self.closeButton, 0, Qt.AlignmentFlag.AlignLeft)
        self.answer.returnPressed.connect(self.checkButton.click)
        self._px = 16
        self._feedback_role = "foreground"

    def _label(self, name: str) -> QtWidgets.QLabel:
        label = QtWidgets.QLabel(self)
        label.setObjectName(name)
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    def set_px(self, px: int) -> None:
        """Text sizes in pixels (colours from the palette in use, following a new one)."""
        mono = "DejaVu Sans Mono, Consolas, Menlo, monospace"
        self._px = px
        colours.sheet(self.question, f"font-size: {round(px * 1.1)}px; font-weight: bold;")
        colours.sheet(self.given, f"font-size: {px}px; color: $foreground;")
        self._style_feedback()
        colours.sheet(self.worked, f"font-size: {round(px * 0.9)}px; font-family: {mono}; background: $worked_bg; "
                                   f"border: 1px solid $worked_edge; padding: {max(4, px // 3)}px;")
        self.answer.setStyleSheet(f"font-size: {px}px;")

    def set_feedback(self, text: str, ok: bool | None) -> None:
        """The verdict: right (in the value's ink), wrong (in the error ink) or neither."""
        self._feedback_role = {True: "ink_value", False: "error_ink", None: "foreground"}[ok]
        self.feedback.setText(text)
        self._style_feedback()

    def _style_feedback(self) -> None:
        colours.sheet(self.feedback, f"font-size: {self._px}px; font-weight: bold; color: ${self._feedback_role};")


class LessonPane(QtWidgets.QWidget):
    """The widget inside the Lesson dock (objectName ``lessonPane``)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("lessonPane")
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 6)
        lay.setSpacing(4)

        head = QtWidgets.QHBoxLayout()
        self.stepLabel = QtWidgets.QLabel(self)
        self.stepLabel.setObjectName("lessonStepLabel")
        head.addWidget(self.stepLabel)
        self.stepCombo = QtWidgets.QComboBox(self)
        self.stepCombo.setObjectName("lessonStepCombo")
        self.stepCombo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # as wide as the pane allows: a long step title never widens the pane
        self.stepCombo.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.stepCombo.setMinimumContentsLength(8)
        head.addWidget(self.stepCombo, 1)
        lay.addLayout(head)

        self.stack = QtWidgets.QStackedWidget(self)
        self.text = QtWidgets.QTextBrowser(self)
        self.text.setObjectName("lessonText")
        self.text.setOpenLinks(False)
        self.text.setOpenExternalLinks(False)
        self.text.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.text.document().setDocumentMargin(10)
        self.exercise = ExercisePage(self)
        self.stack.addWidget(self.text)
        self.stack.addWidget(self.exercise)
        lay.addWidget(self.stack, 1)

        nav = QtWidgets.QHBoxLayout()
        self.previousButton = QtWidgets.QPushButton("\u25c0 Previous", self)
        self.previousButton.setObjectName("lessonPrevious")
        self.previousButton.setToolTip("Previous step (\u2190, Page Up)")
        self.nextButton = QtWidgets.QPushButton("Next \u25b6", self)
        self.nextButton.setObjectName("lessonNext")
        self.nextButton.setToolTip("Next step (\u2192, Space, Page Down)")
        nav.addWidget(self.previousButton)
        nav.addStretch(1)
        nav.addWidget(self.nextButton)
        lay.addLayout(nav)

        tools = QtWidgets.QHBoxLayout()
        sizes = QtWidgets.QHBoxLayout()  # the text size: at the end of the tools, or a row of its own

        def tool(text, name, tip, checkable=False, row=tools):
            b = QtWidgets.QToolButton(self)
            b.setText(text)
            b.setObjectName(name)
            b.setToolTip(tip)
            b.setCheckable(checkable)
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
            row.addWidget(b)
            return b

        self.aloneButton = tool("Panel alone", "lessonPanelAlone",
                                "Show only the panel of this step (off: all panels, this one outlined)", True)
        self.aloneButton.setChecked(True)
        self.exerciseButton = tool("Exercise", "lessonExercise",
                                   "Hide one number and work it out yourself", True)
        self.presenterButton = tool("Presenter", "lessonPresenter",
                                    "Full screen for the classroom: this pane and the step's panel, large (Esc leaves)",
                                    True)
        tools.addStretch(1)
        sizes.addStretch(1)
        self.smallerButton = tool("A\u2212", "lessonSmaller", "Smaller text (-)", row=sizes)
        self.sizeCombo = QtWidgets.QComboBox(self)
        self.sizeCombo.setObjectName("lessonTextSize")
        self.sizeCombo.setToolTip("Text size of the lesson (and of every panel in presenter mode)")
        self.sizeCombo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for s in SCALES:
            self.sizeCombo.addItem(f"{round(s * 100)}%", s)
        sizes.addWidget(self.sizeCombo)
        self.largerButton = tool("A+", "lessonLarger", "Larger text (+)", row=sizes)
        self.toolsBox = QtWidgets.QBoxLayout(QtWidgets.QBoxLayout.Direction.LeftToRight)
        self.toolsBox.setSpacing(4)
        self.toolsBox.addLayout(tools, 1)
        self.toolsBox.addLayout(sizes)
        lay.addLayout(self.toolsBox)
        for b in (self.previousButton, self.nextButton, self.aloneButton, self.exerciseButton,
                  self.presenterButton, self.smallerButton, self.largerButton):
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys go to the lesson, not to a focused button
        self._tools, self._sizes = tools, sizes

    def two_rows(self) -> bool:
        """True when the text-size controls stand on a row of their own (a narrow pane)."""
        return self.toolsBox.direction() == QtWidgets.QBoxLayout.Direction.TopToBottom

    def _fit_tools(self) -> None:
        """One row of tools when they fit the pane's width, else the text size on a row of its own."""
        margins = self.layout().contentsMargins()
        one_row = (self._tools.minimumSize().width() + self.toolsBox.spacing() + self._sizes.minimumSize().width()
                   + margins.left() + margins.right())
        direction = (QtWidgets.QBoxLayout.Direction.LeftToRight if self.width() >= one_row
                     else QtWidgets.QBoxLayout.Direction.TopToBottom)
        if self.toolsBox.direction() != direction:
            self.toolsBox.setDirection(direction)

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt naming)
        """As narrow as the widest row with the text size on a row of its own (where the pane puts it
        when it is given less than one row of tools needs)."""
        hint = super().minimumSizeHint()
        lay = self.layout()
        widest = max(self._tools.minimumSize().width(), self._sizes.minimumSize().width())
        for k in range(lay.count()):
            item = lay.itemAt(k)
            if item.layout() is not self.toolsBox:
                widest = max(widest, item.minimumSize().width())
        margins = lay.contentsMargins()
        hint.setWidth(widest + margins.left() + margins.right())
        return hint

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_tools()

    def set_scale(self, scale: float) -> None:
        """Scale the controls (a little) and the exercise page (the text browser gets sizes in its HTML)."""
        px = control_px(scale)
        self.setStyleSheet(
            f"#lessonPane QPushButton, #lessonPane QToolButton, #lessonPane QComboBox, "
            f"#lessonPane QLabel, #lessonPane QLineEdit {{ font-size: {px}px; }}"
        )
        self.exercise.set_px(round(BODY_PX * scale))
        idx = self.sizeCombo.findData(scale)
        if idx >= 0 and idx != self.sizeCombo.currentIndex():
            self.sizeCombo.blockSignals(True)
            self.sizeCombo.setCurrentIndex(idx)
            self.sizeCombo.blockSignals(False)
        self._fit_tools()


def control_px(scale: float) -> int:
    """The size of the controls' text (pixels) at text size ``scale``."""
    return round(CONTROL_PX * min(scale, CONTROL_MAX_SCALE))
