"""The welcome: three ways in, shown once at the first start and again from Help → Welcome.

    maybe_welcome(window)     # at start-up: shows it the first time only (remembered in the settings)
    show_welcome(window)      # Help → Welcome: always

A small window beside the main one, not a modal wall: the app stays usable behind it, Esc or
any of its buttons closes it. Its three buttons:

    Start the lesson           window.enter_lesson_mode()
    Try your own sentence      the sentence box, shown and ready to type in
    Open a trained model       window.models.choose() (disabled, with the reason, when the window
                               has no trained-model actions)

Under them, a line on the projector themes (View → Theme). The window follows the palette in use.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

Qt = QtCore.Qt

#: The settings key that says the welcome was shown once already.
SEEN_KEY = "welcome/seen"

INTRO = ("See how attention turns each word of a sentence into a query, a key and a value, "
         "and mixes the values. Every number is on screen, and you can change any of them.")
CHOICES = [
    ("welcomeLesson", "Start the lesson",
     "Nine short steps, from one word as numbers to the whole picture, worked out with the numbers on screen."),
    ("welcomeSentence", "Try your own sentence",
     "Type a sentence in the Sentence box: every picture follows as you type."),
    ("welcomeModel", "Open a trained model",
     "Look inside a small trained model that comes with the app (or another one on this computer): every "
     "layer and head, with real numbers."),
]
NO_MODELS = "Trained models cannot be opened in this window."
THEMES = "On a projector, View \u2192 Theme \u2192 High contrast or Dark may read better."


class WelcomeDialog(QtWidgets.QDialog):
    """The welcome window of ``window``: an intro line and three big buttons, each with one line under it."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.setObjectName("welcomeDialog")
        self.setWindowTitle("Welcome to QKV Visualizer")
        self.setModal(False)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setSpacing(10)
        heading = QtWidgets.QLabel("Welcome to QKV Visualizer", self)
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setBold(True)
        heading.setFont(font)
        layout.addWidget(heading)
        intro = QtWidgets.QLabel(INTRO, self)
        intro.setObjectName("welcomeIntro")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.buttons: dict[str, QtWidgets.QPushButton] = {}
        actions = {"welcomeLesson": self.start_lesson, "welcomeSentence": self.try_sentence,
                   "welcomeModel": self.open_model}
        for name, text, line in CHOICES:
            button = QtWidgets.QPushButton(text, self)
            button.setObjectName(name)
            bold = button.font()
            bold.setBold(True)
            bold.setPointSizeF(bold.pointSizeF() * 1.15)
            button.setFont(bold)
            button.setMinimumHeight(int(button.sizeHint().height() * 1.4))
            button.clicked.connect(actions[name])
            note = QtWidgets.QLabel(line, self)
            note.setWordWrap(True)
            note.setContentsMargins(4, 0, 4, 6)
            layout.addWidget(button)
            layout.addWidget(note)
            self.buttons[name] = button
        if window.models is None:  # a window that opens no trained models
            self.buttons["welcomeModel"].setEnabled(False)
            self.buttons["welcomeModel"].setToolTip(NO_MODELS)
        themes = QtWidgets.QLabel(THEMES, self)
        themes.setObjectName("welcomeThemes")
        themes.setWordWrap(True)
        layout.addWidget(themes)
        later = QtWidgets.QLabel("You can open this again from Help \u2192 Welcome.", self)
        later.setObjectName("welcomeLater")
        layout.addWidget(later)
        close = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close, self)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        self.setMinimumWidth(420)
        self.setMaximumWidth(560)
        self.buttons["welcomeLesson"].setDefault(True)
        self.buttons["welcomeLesson"].setFocus()

    # ----- the three ways in -----------------------------------------------------------------------
    def start_lesson(self) -> None:
        self.accept()
        self.window.enter_lesson_mode()

    def try_sentence(self) -> None:
        self.accept()
        window = self.window
        dock = window.docks.get("dockSentence")
        if dock is not None:
            dock.show()
            dock.raise_()
        edit = window.options.sentenceEdit
        edit.setFocus(Qt.FocusReason.OtherFocusReason)
        edit.selectAll()
        window.statusBar().showMessage("Type a sentence: every picture follows as you type.", 8000)

    def open_model(self) -> None:
        self.accept()
        self.window.models.open_a_model()


def show_welcome(window) -> WelcomeDialog:
    """Show the welcome of ``window`` (made once, raised when already open) and remember it was seen."""
    dialog = window.welcome_dialog(WelcomeDialog)
    window.settings.setValue(SEEN_KEY, True)
    dialog.show()
    dialog.raise_()
    dialog.activateWindow()
    return dialog


def seen(settings: QtCore.QSettings) -> bool:
    """True when the welcome was shown once already (an INI file gives the word 'true' back)."""
    value = settings.value(SEEN_KEY, False)
    return value is True or str(value).strip().lower() in ("true", "1", "yes")


def maybe_welcome(window) -> WelcomeDialog | None:
    """At start-up: the welcome, the first time only."""
    if seen(window.settings):
        return None
    return show_welcome(window)
