"""Lesson mode: walks the steps, fills their text with the live numbers, brings each step's panel
forward, runs exercises, and switches presenter mode on and off.

    lesson = window.lesson
    lesson.enter(); lesson.next(); lesson.go(4)
    lesson.enter_presenter(); lesson.set_scale(2.0); lesson.exit_presenter()
    lesson.set_exercise(True); lesson.new_exercise("score", i=0, j=1); lesson.check("0.93"); lesson.show_answer()

Keys while the lesson is on (not while typing in a box or editing a table):
→, Space, Page Down: next step; ←, Page Up: previous; +/-: text size; Esc: leave presenter mode.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import ScenarioError, fixed, lesson_numbers, parse_number, training, training_text

from ...labels.kept_focus import set_enabled
from ...look import colours, style
from . import markdown
from .demo import softmax_direction_html
from .notes import example_note_html, model_examples_html, open_experiment_html
from .pane import BODY_PX, CONTROL_PX, SCALES, LessonPane
from .steps import Step, load_steps
from ...panels import catalog

Qt = QtCore.Qt
NEXT_KEYS = {Qt.Key.Key_Right, Qt.Key.Key_Space, Qt.Key.Key_PageDown}
PREVIOUS_KEYS = {Qt.Key.Key_Left, Qt.Key.Key_PageUp}
LARGER_KEYS = {Qt.Key.Key_Plus, Qt.Key.Key_Equal}
SMALLER_KEYS = {Qt.Key.Key_Minus}
PRESENTER_SCALE = 1.5
#: In presenter mode the lesson pane takes this share of the screen, beside the step's panel (or below it
#: on a screen that is not wide enough: narrower than BESIDE_RATIO times its height) ...
PANE_SHARE = 0.36
BESIDE_RATIO = 1.15
#: ... but never less or more than these (pixels): the panel keeps most of the screen at every text size.
PANE_WIDTH = (300, 560)
PANE_HEIGHT = (200, 420)


def _is_editing(widget) -> bool:
    """True for widgets where arrows, space and page keys mean typing or moving in a table."""
    if widget is None:
        return False
    if isinstance(widget, (QtWidgets.QLineEdit, QtWidgets.QAbstractSpinBox, QtWidgets.QPlainTextEdit,
                           QtWidgets.QComboBox, QtWidgets.QAbstractItemView)):
        return True
    if isinstance(widget, QtWidgets.QTextEdit) and not widget.isReadOnly():
        return True
    parent = widget.parentWidget()
    while parent is not None:  # an editor opened inside a table
        if isinstance(parent, QtWidgets.QAbstractItemView):
            return True
        parent = parent.parentWidget()
    return False


def _in_table(widget) -> bool:
    while widget is not None:
        if isinstance(widget, QtWidgets.QAbstractItemView):
            return True
        widget = widget.parentWidget()
    return False


class _KeyFilter(QtCore.QObject):
    """Application-wide key handling for the lesson (installed only while the lesson is on)."""

    def __init__(self, controller: "LessonController"):
        super().__init__(controller)
        self.controller = controller

    def eventFilter(self, obj, event):
        if event.type() != QtCore.QEvent.Type.KeyPress or not isinstance(obj, QtWidgets.QWidget):
            return False
        c = self.controller
        if obj.window() is not c.window:
            return False
        focus = QtWidgets.QApplication.focusWidget()
        # The widget typed in: the receiver, or the focus widget when the event is travelling up from it.
        typing_in = focus if (focus is not None and obj.isAncestorOf(focus)) else obj
        key = event.key()
        if key == Qt.Key.Key_Escape and c.presenter:
            if _in_table(typing_in):
                return False  # Esc cancels the table edit first
            c.exit_presenter()
            return True
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if mods not in (Qt.KeyboardModifier.NoModifier, Qt.KeyboardModifier.ShiftModifier):
            return False
        if _is_editing(typing_in):
            return False
        if key in NEXT_KEYS and mods == Qt.KeyboardModifier.NoModifier:
            c.next()
            return True
        if key in PREVIOUS_KEYS or (key == Qt.Key.Key_Space and mods == Qt.KeyboardModifier.ShiftModifier):
            c.previous()
            return True
        if key in LARGER_KEYS:
            c.step_scale(+1)
            return True
        if key in SMALLER_KEYS:
            c.step_scale(-1)
            return True
        return False


class _ResizeWatch(QtCore.QObject):
    """Calls ``then()`` after ``widget`` is resized."""

    def __init__(self, widget: QtWidgets.QWidget, then):
        super().__init__(widget)
        self.then = then
        widget.installEventFilter(self)

    def eventFilter(self, obj, event):
        if isinstance(event, QtGui.QResizeEvent):  # (cheaper than asking every event its type)
            self.then()
        return False


def fit_to_screen(window: QtWidgets.QWidget) -> None:
    """Move and shrink a normal (not full-screen, not maximised) window so that it lies inside the room its
    screen has: after presenter mode every edge, Next and A−/A+ included, is on the screen."""
    screen = window.screen()
    if screen is None or window.windowState() & (Qt.WindowState.WindowFullScreen | Qt.WindowState.WindowMaximized):
        return
    room = screen.availableGeometry()
    frame = window.frameGeometry()
    extra_w, extra_h = frame.width() - window.width(), frame.height() - window.height()
    width = min(window.width(), room.width() - extra_w)
    height = min(window.height(), room.height() - extra_h)
    if (width, height) != (window.width(), window.height()):
        window.resize(width, height)
        frame = window.frameGeometry()
    x = min(max(frame.x(), room.left()), room.right() + 1 - frame.width())
    y = min(max(frame.y(), room.top()), room.bottom() + 1 - frame.height())
    if (x, y) != (frame.x(), frame.y()):
        window.move(x, y)


class _Cover(QtWidgets.QLabel):
    """Covers the panels while an exercise question is open, so the answer stays hidden.

    It is a child of the window laid over the panel grid (a child of the grid itself would
    become one more splitter section).
    """

    def __init__(self, window: QtWidgets.QWidget, target: QtWidgets.QWidget):
        super().__init__(window)
        self.target = target
        self.setObjectName("exerciseCover")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        self.setText("The panels are covered while you work out the hidden number.\n"
                     "Give the right answer, or press Show answer, to see them again.")
        colours.sheet(self, "background: $cover_bg; color: $cover_ink; font-size: 18px; "
                            "border: 2px dashed $cover_edge;")
        self.setAutoFillBackground(True)
        target.installEventFilter(self)
        self.hide()

    def eventFilter(self, obj, event):
        if obj is self.target and event.type() in (QtCore.QEvent.Type.Resize, QtCore.QEvent.Type.Move):
            self._place()
        return False

    def _place(self) -> None:
        top_left = self.target.mapTo(self.parentWidget(), QtCore.QPoint(0, 0))
        self.setGeometry(QtCore.QRect(top_left, self.target.size()))

    def cover(self, on: bool) -> None:
        if on:
            self._place()
            self.raise_()
        self.setVisible(on)


class LessonController(QtCore.QObject):
    """The lesson's state and behaviour, its dock and its menu, in the window of ``host`` (a DockHost): it brings
    forward the panels of ``grid`` (shown in ``grid_scroll``), ticks their ``panel_actions`` (the View menu's),
    and opens an experiment's dock through ``experiments``. Presenter mode takes the whole QMainWindow."""

    stepChanged = QtCore.Signal(int)  # 0-based index
    modeChanged = QtCore.Signal(bool)  # lesson on / off
    presenterChanged = QtCore.Signal(bool)

    def __init__(self, session, host, grid, grid_scroll: QtWidgets.QWidget, panel_actions: dict, experiments,
                 open_example=None):
        super().__init__(host.main)
        self.window = window = host.main  # (Qt's QMainWindow: docks, geometry, full screen)
        self.host = host
        self.grid = grid
        self.panel_actions = panel_actions
        self.experiments = experiments
        self.open_example = open_example  # opens a model example by name (the appendix's links); None: no links
        self.session = session
        self.steps: list[Step] = load_steps()
        self.index = 0
        self.active = False
        self.presenter = False
        self.scale = 1.0  # text size outside presenter mode
        self.presenter_scale = PRESENTER_SCALE
        self.revealed: set[int] = set()
        self.exercise: lesson_numbers.Exercise | None = None
        self.exercise_checked = False  # the answer is shown (right, or Show answer pressed)
        self.wrong_tries = 0
        self._exercise_seed = 0
        self._saved_layout: dict | None = None
        self._before_lesson_focus: str | None = None
        self._key_filter = _KeyFilter(self)
        self.render_count = 0  # how many times the pane's text was written
        self._shown = None  # (html, text pixel size) the pane was last written with, at ``_laid_out_width``
        self._laid_out_width = -1

        self.pane = LessonPane()
        self.dock = QtWidgets.QDockWidget("Lesson", window)
        self.dock.setObjectName("dockLesson")
        self.dock.setWidget(self.pane)
        self.dock.setFeatures(QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetMovable
                              | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetFloatable
                              | QtWidgets.QDockWidget.DockWidgetFeature.DockWidgetClosable)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.hide()
        self.dock.visibilityChanged.connect(self._dock_visibility)
        # over what shows of the panels: the scroll area, not the grid inside it (which can be
        # taller than the window on a small screen)
        self.cover = _Cover(window, grid_scroll)

        p = self.pane
        self.numbered = sum(1 for st in self.steps if not st.appendix)
        for st in self.steps:
            p.stepCombo.addItem(f"Appendix: {st.title}" if st.appendix else f"{st.number}. {st.title}")
        p.stepCombo.currentIndexChanged.connect(self.go)
        p.nextButton.clicked.connect(self.next)
        p.previousButton.clicked.connect(self.previous)
        p.aloneButton.toggled.connect(lambda _on: self._show_step_panel())
        p.exerciseButton.toggled.connect(self.set_exercise)
        p.presenterButton.toggled.connect(lambda on: self.enter_presenter() if on else self.exit_presenter())
        p.smallerButton.clicked.connect(lambda: self.step_scale(-1))
        p.largerButton.clicked.connect(lambda: self.step_scale(+1))
        p.sizeCombo.currentIndexChanged.connect(lambda i: self.set_scale(p.sizeCombo.itemData(i)))
        p.text.anchorClicked.connect(self._anchor)
        self._relayout = QtCore.QTimer(self)
        self._relayout.setSingleShot(True)
        self._relayout.setInterval(0)
        self._relayout.timeout.connect(self._relayout_now)
        self._resize_watch = _ResizeWatch(p.text.viewport(), self._pane_resized)
        # presenter mode: the pane's share follows the window (full screen arriving late, another screen)
        self._refit = QtCore.QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.setInterval(0)
        self._refit.timeout.connect(self._fit_presenter)
        self._window_watch = _ResizeWatch(window, self._window_resized)
        ex = p.exercise
        ex.newButton.clicked.connect(lambda: self.new_exercise())
        ex.kindCombo.activated.connect(lambda _i: self.new_exercise())
        ex.checkButton.clicked.connect(lambda: self.check())
        ex.showButton.clicked.connect(lambda: self.show_answer())
        ex.closeButton.clicked.connect(lambda: self.set_exercise(False))
        self.session.resultChanged.connect(self._live_update)
        self.session.selectionChanged.connect(self._live_update)
        self.session.trainTargetChanged.connect(self._live_update)
        colours.hub().changed.connect(self._palette_changed)
        p.set_scale(self.scale)
        self.menu = self._build_menu()

    def _build_menu(self) -> QtWidgets.QMenu:
        """The Lesson menu (the main window adds it to its menu bar)."""
        menu = QtWidgets.QMenu("&Lesson", self.window)
        menu.setObjectName("lessonMenu")

        def action(text, slot, shortcut=None, checkable=False, name=None):
            act = menu.addAction(text)
            if shortcut:
                act.setShortcut(QtGui.QKeySequence(shortcut))
            act.setCheckable(checkable)
            if name:
                act.setObjectName(name)
            act.triggered.connect(slot)
            return act

        self.lessonAction = action("&Lesson mode", lambda on: self.enter() if on else self.leave(),
                                   "Ctrl+L", True, "lessonModeAction")
        self.modeChanged.connect(self.lessonAction.setChecked)
        menu.addSeparator()
        # The arrow / space / page keys are handled by the lesson itself (only when no box is being typed
        # in), so these items show them without taking them as shortcuts.
        action("&Next step\t\u2192  Space  PgDn", lambda: (self.enter(), self.next()), name="lessonNextAction")
        action("&Previous step\t\u2190  PgUp", lambda: (self.enter(), self.previous()),
               name="lessonPreviousAction")
        menu.addSeparator()
        self.exerciseAction = action("&Exercise: hide a number", lambda on: self.set_exercise(on), "Ctrl+Shift+E",
                                     True, "lessonExerciseAction")
        self.pane.exerciseButton.toggled.connect(self.exerciseAction.setChecked)
        self.presenterAction = action("&Presenter mode (Esc leaves)",
                                      lambda on: self.enter_presenter() if on else self.exit_presenter(),
                                      "F5", True, "lessonPresenterAction")
        self.presenterChanged.connect(self.presenterAction.setChecked)
        menu.addSeparator()
        action("&Larger text\t+", lambda: self.step_scale(+1), name="lessonLargerAction")
        action("&Smaller text\t\u2212", lambda: self.step_scale(-1), name="lessonSmallerAction")
        return menu

    # ----- lesson on / off ------------------------------------------------------------------
    @property
    def step(self) -> Step:
        return self.steps[self.index]

    def enter(self) -> None:
        """Show the lesson pane at the current step and take the lesson keys."""
        if self.active:
            return
        self.active = True
        self._before_lesson_focus = self.grid.focused
        self.host.tab_on_a_short_screen(self.dock)  # beside an experiment, as a tab on a short screen
        self.dock.show()
        self.dock.raise_()
        total = self.window.width()
        # A small screen (a projector): the editing docks give up their spare width, so that the step's
        # panel keeps room next to the lesson text, which then takes a little less too.
        pane = max(300, int(total * 0.3)) if self.host.make_room() else max(380, int(total * 0.3))
        self.window.resizeDocks([self.dock], [pane], Qt.Orientation.Horizontal)
        QtWidgets.QApplication.instance().installEventFilter(self._key_filter)
        self.go(self.index, force=True)
        self.pane.text.setFocus()  # Up / Down scroll the text; the lesson keys work from here
        self.modeChanged.emit(True)

    def leave(self) -> None:
        """Hide the lesson pane and give the keys back."""
        if not self.active:
            return
        if self.presenter:
            self.exit_presenter()
        self.set_exercise(False)
        self.active = False
        QtWidgets.QApplication.instance().removeEventFilter(self._key_filter)
        self._set_highlight(None)
        self.grid.focus(self._before_lesson_focus)
        self.dock.hide()
        self.modeChanged.emit(False)

    def toggle(self) -> None:
        self.leave() if self.active else self.enter()

    def _dock_visibility(self, visible: bool) -> None:
        # Closing the dock with its own button ends the lesson (but a hidden, tabbed dock does not).
        try:
            closed = not visible and self.active and not self._busy_layout and not self.dock.isVisibleTo(self.window)
        except RuntimeError:  # the window is being destroyed
            return
        if closed:
            self.leave()

    _busy_layout = False

    # ----- moving through the steps -----------------------------------------------------------
    def go(self, index: int, force: bool = False) -> None:
        index = max(0, min(int(index), len(self.steps) - 1))
        if index == self.index and not force:
            return
        self.index = index
        self.revealed.clear()
        p = self.pane
        p.stepCombo.blockSignals(True)
        p.stepCombo.setCurrentIndex(index)
        p.stepCombo.blockSignals(False)
        p.stepLabel.setText("Appendix" if self.step.appendix else f"Step {index + 1} of {self.numbered}")
        set_enabled(p.previousButton, index > 0, keep=p.nextButton)  # (at the first or last step: the other one)
        set_enabled(p.nextButton, index < len(self.steps) - 1, keep=p.previousButton)
        self.pane.text.verticalScrollBar().setValue(0)
        self.render(keep_scroll=False)
        self._show_step_panel()
        if self.exercise is not None:
            kind = self.step.exercise
            self._set_kind(kind)
            self.new_exercise(kind)
        self.stepChanged.emit(index)

    def next(self) -> None:
        self.go(self.index + 1)

    def previous(self) -> None:
        self.go(self.index - 1)

    def _show_step_panel(self) -> None:
        if not self.active:
            return
        # A step about an experiment opens it in its dock (not in presenter mode, which keeps to the lesson
        # and one panel: there the text's link opens it), and brings forward the panel that shows its work.
        if self.step.panel not in self.grid.panels and not self.presenter:
            self._open_experiment(self.step.panel, keep_text=True)
        if self.step.panel == "trainPanel":
            self._default_target()
        name = self.grid_panel()
        grid = self.grid
        if name is not None and not grid.wanted.get(name, True):
            self.panel_actions[name].setChecked(True)  # the View menu's tick follows
        if self.presenter or self.pane.aloneButton.isChecked():
            grid.focus(name)
        else:
            grid.focus(None)
        self._set_highlight(name)
        if self.presenter:
            self._refit.start()  # this step's panel may need another share of the screen

    def grid_panel(self, step: Step | None = None) -> str | None:
        """The panel of the grid that ``step`` (default: the current one) brings forward: its own, or for a
        step about an experiment, the one that shows what the experiment changes."""
        step = step or self.step
        if step.panel in self.grid.panels:
            return step.panel
        entry = catalog.by_object_name(step.panel) if step.panel else None
        return entry.lesson_beside if entry is not None else None  # a step about an experiment

    def _open_experiment(self, panel: str | None, keep_text: bool = False) -> bool:
        """Open the experiment dock whose panel is ``panel`` (e.g. "trainPanel"); False if none is.
        Sharing a tab with the lesson (a short screen), the lesson's text stays in front if ``keep_text``."""
        entry = catalog.by_object_name(panel) if panel else None
        if entry is None or entry not in catalog.EXPERIMENTS:
            return False
        w = self.window
        dock = self.experiments.open(entry.dock)  # stacked beside the lesson, or a tab with it (the window says)
        if keep_text and self.dock in w.tabifiedDockWidgets(dock):
            self.dock.raise_()
        return True

    def _default_target(self) -> None:
        """No training target yet: the selected pair becomes one (the appendix then has live numbers)."""
        session = self.session
        if session.train_target is not None or session.model_doc is not None:
            return
        sel = session.selection
        try:
            session.set_train_target(training.target_from_cells(session.scenario, [(sel.query, sel.key)]))
        except ScenarioError:  # a masked pair: the teacher chooses one in the experiment
            pass
        self.render()

    def _set_highlight(self, name: str | None) -> None:
        p = style.current()
        self.grid.highlight(name, p.ink.get(self.step.role or "", p.selected))

    def highlighted_panel(self) -> str | None:
        return self.grid.highlighted

    def _palette_changed(self, _palette) -> None:
        """A new palette (View → Theme): the step's text and the outline of its panel in its colours."""
        if self.active and self.highlighted_panel() is not None:
            self._set_highlight(self.highlighted_panel())
        self.render()

    # ----- the text -----------------------------------------------------------------------------
    def values(self) -> dict:
        sel = self.session.selection
        values = lesson_numbers.placeholder_values(self.session.result, sel.query, sel.key)
        if self.step.appendix:
            values.update(self.training_values())
        return values

    def training_values(self) -> dict:
        """The appendix's live numbers: the experiment's target (``Session.train_target``) and its last
        run (kept by the experiment in ``session.lab_state["train"]``)."""
        from ...panels.labs.train_panel import DEFAULT_LR, LAB_STATE_KEY

        state = self.session.lab_state.get(LAB_STATE_KEY) or {}
        steps, lr, start = state.get("steps"), state.get("lr", DEFAULT_LR), state.get("loss_start")
        try:
            return training_text.placeholder_values(self.session.result, self.session.train_target,
                                                    steps=steps, lr=lr, loss_start=start)
        except ScenarioError:  # a target the scenario no longer allows (a mask came): as if none
            return training_text.placeholder_values(self.session.result, None, steps=steps, lr=lr)

    def body_px(self) -> int:
        return round(BODY_PX * self.current_scale())

    def current_scale(self) -> float:
        return self.presenter_scale if self.presenter else self.scale

    def html(self) -> str:
        st = self.step
        px = self.body_px()
        pal = style.current()
        opts = markdown.RenderOptions(px=px, role=st.role, revealed=frozenset(self.revealed), colours=pal)
        blocks = {"softmax-direction": lambda: softmax_direction_html(self.session.scenario, px, self._text_room(),
                                                                      pal),
                  "open-experiment": lambda: open_experiment_html(st.panel, px),
                  "example-note": lambda: example_note_html(self.session, px, pal),
                  "model-examples": lambda: model_examples_html(px) if self.open_example is not None else ""}
        return markdown.render(st.body, self.values(), opts, blocks)

    def _text_room(self) -> int:
        """The width the lesson text has (pixels), inside the page's margins."""
        text = self.pane.text
        return max(120, text.viewport().width() - 2 * round(text.document().documentMargin()) - 4)

    def _pane_resized(self) -> None:
        """The pane changed width: lay the step out again (once the event loop turns: a scroll bar that
        comes or goes with the new text resizes the pane while it is being filled) if its tables chose
        a layout for the old width."""
        if "::: " in self.step.body and not self._relayout.isActive():
            self._relayout.start()

    def _relayout_now(self) -> None:
        if self.pane.text.viewport().width() != self._laid_out_width:
            self.render()

    def render(self, keep_scroll: bool = True) -> None:
        if not self.active:
            return
        html, px, width = self.html(), self.body_px(), self.pane.text.viewport().width()
        if keep_scroll and (html, px) == self._shown and width == self._laid_out_width:
            return  # the pane shows this already (an edit that changes no number of this step)
        bar = self.pane.text.verticalScrollBar()
        pos = bar.value()
        font = self.pane.text.font()
        font.setPixelSize(px)
        self.pane.text.document().setDefaultFont(font)
        self._laid_out_width = width
        self.pane.text.setHtml(html)
        self._shown = (html, px)
        if keep_scroll:
            bar.setValue(pos)
        self.render_count += 1

    def text(self) -> str:
        """What the student reads now (plain text of the lesson pane)."""
        return self.pane.text.toPlainText()

    def _live_update(self, *_):
        if not self.active:
            return
        self.render()
        if self.exercise is not None:
            self._refresh_exercise()

    def _anchor(self, url: QtCore.QUrl) -> None:
        kind, _, num = url.toString().partition(":")
        if kind == "open":
            self._open_experiment(num)
            return
        if kind == "example" and self.open_example is not None:
            self.open_example(num)
            self.render()
            return
        try:
            k = int(num)
        except ValueError:
            return
        if kind == "reveal":
            self.reveal(k)
        elif kind == "hide":
            self.revealed.discard(k)
            self.render()

    def reveal(self, k: int) -> None:
        """Show the answer of quick check ``k`` (0-based) of the current step."""
        self.revealed.add(int(k))
        self.render()

    # ----- text size and presenter mode -----------------------------------------------------------
    def set_scale(self, scale: float) -> None:
        scale = float(scale)
        if self.presenter:
            self.presenter_scale = scale
            self._apply_presenter_theme(scale)
            self._refit.start()  # the panel's text grew or shrank: the pane keeps its share, or gives way
        else:
            self.scale = scale
        self.pane.set_scale(scale)
        self.render()

    def step_scale(self, direction: int) -> None:
        cur = self.current_scale()
        options = list(SCALES)
        idx = min(range(len(options)), key=lambda n: abs(options[n] - cur))
        idx = max(0, min(len(options) - 1, idx + direction))
        self.set_scale(options[idx])

    def enter_presenter(self) -> None:
        """Full screen: the step's panel large, the lesson pane beside it (or below it); every text scaled;
        everything else hidden."""
        if self.presenter:
            return
        if not self.active:
            self.enter()
        w = self.window
        grid = self.grid
        self._busy_layout = True
        self._saved_layout = {
            "state": w.saveState(),
            "geometry": w.saveGeometry(),
            "window_state": w.windowState(),
            "focused": grid.focused,
            "menu": w.menuBar().isVisible(),
            "status": w.statusBar().isVisible(),
            "dock_floating": self.dock.isFloating(),
        }
        self.presenter = True
        self.dock.setFloating(False)
        for dock in w.findChildren(QtWidgets.QDockWidget):
            if dock is not self.dock:
                dock.hide()
        for bar in w.findChildren(QtWidgets.QToolBar):
            bar.hide()
        w.menuBar().hide()
        w.statusBar().hide()
        self.dock.show()
        self._apply_presenter_theme(self.presenter_scale)
        self._sync_button(self.pane.presenterButton, True)
        w.showFullScreen()
        self._fit_presenter()
        QtCore.QTimer.singleShot(0, self, lambda: self._fit_presenter(cover_screen=True))
        self._busy_layout = False
        self._show_step_panel()
        self.render()
        self.presenterChanged.emit(True)

    def _apply_presenter_theme(self, scale: float | None) -> None:
        """Every panel (and its frame title) drawn at ``scale``; None: back to the screen theme."""
        theme = style.SCREEN if scale is None else style.presenter(scale)
        for panel in self.grid.panels.values():
            panel.set_theme(theme)
        self.grid.set_title_px(None if scale is None else round(CONTROL_PX * scale))
        if scale is not None:
            self.pane.set_scale(scale)

    def presenter_side(self) -> Qt.DockWidgetArea:
        """Where the lesson pane goes in presenter mode: beside the panel on a wide screen, else below it."""
        w = self.window
        wide = w.width() >= BESIDE_RATIO * w.height()
        return Qt.DockWidgetArea.RightDockWidgetArea if wide else Qt.DockWidgetArea.BottomDockWidgetArea

    def _fit_presenter(self, cover_screen: bool = False) -> None:
        """Give the lesson pane its share of the screen, beside or below the step's panel, whatever the text
        size. ``cover_screen``: a window that full screen did not make as large as its screen (a desktop
        with no window manager) is made so."""
        if not self.presenter:
            return
        w = self.window
        if cover_screen and w.screen() is not None and w.geometry() != w.screen().geometry():
            w.setGeometry(w.screen().geometry())
        area = self.presenter_side()
        self._busy_layout = True
        if w.dockWidgetArea(self.dock) != area:
            w.addDockWidget(area, self.dock)
        self._busy_layout = False
        frame = self.grid.frames.get(self.grid.focused) if self.grid.focused else None
        # what the panel's own layout needs (buttons, numbers), at least what it asks the grid for
        panel = (frame.layout().totalMinimumSize().expandedTo(frame.minimumSizeHint()) if frame is not None
                 else QtCore.QSize(0, 0))
        room = 12  # the separator beside the dock and the scroll area's edges
        if area == Qt.DockWidgetArea.RightDockWidgetArea:
            size = max(PANE_WIDTH[0], min(PANE_WIDTH[1], round(w.width() * PANE_SHARE)))
            size = min(size, w.width() - panel.width() - room)  # a panel that needs more: the pane gives way
            size = max(size, self.dock.minimumSizeHint().width())
            w.resizeDocks([self.dock], [size], Qt.Orientation.Horizontal)
        else:
            size = max(PANE_HEIGHT[0], min(PANE_HEIGHT[1], round(w.height() * PANE_SHARE)))
            size = max(min(size, w.height() - panel.height() - room), self.dock.minimumSizeHint().height())
            w.resizeDocks([self.dock], [size], Qt.Orientation.Vertical)

    def _window_resized(self) -> None:
        if self.presenter and not self._refit.isActive():
            self._refit.start()

    def exit_presenter(self) -> None:
        """Leave presenter mode and put the window back as it was, inside its screen."""
        if not self.presenter:
            return
        w = self.window
        saved = self._saved_layout or {}
        self._busy_layout = True
        self.presenter = False
        # back to the screen's text sizes first: the pane and panels shrink before the layout is put back,
        # so their presenter sizes cannot hold the window wider than the screen
        self._apply_presenter_theme(None)
        self.pane.set_scale(self.scale)
        w.setWindowState(saved.get("window_state", Qt.WindowState.WindowNoState))
        if "geometry" in saved:
            w.restoreGeometry(saved["geometry"])
        if "state" in saved:
            w.restoreState(saved["state"])
        w.menuBar().setVisible(saved.get("menu", True))
        w.statusBar().setVisible(saved.get("status", True))
        self.dock.setFloating(saved.get("dock_floating", False))
        self.dock.show()
        self._busy_layout = False
        self._sync_button(self.pane.presenterButton, False)
        self.grid.focus(saved.get("focused"))
        self._show_step_panel()
        self.render()
        fit_to_screen(w)
        QtCore.QTimer.singleShot(0, w, lambda: fit_to_screen(w))  # once the layout has settled
        self.presenterChanged.emit(False)

    @staticmethod
    def _sync_button(button, on: bool) -> None:
        button.blockSignals(True)
        button.setChecked(on)
        button.blockSignals(False)

    # ----- exercises ----------------------------------------------------------------------------
    def set_exercise(self, on: bool) -> None:
        """Exercise mode on: hide one number and ask for it; off: back to the lesson text."""
        on = bool(on)
        self._sync_button(self.pane.exerciseButton, on)
        if not on:
            self.exercise = None
            self.cover.cover(False)
            self.pane.stack.setCurrentWidget(self.pane.text)
            return
        if not self.active:
            self.enter()
        self.pane.stack.setCurrentWidget(self.pane.exercise)
        self._set_kind(self.step.exercise)
        self.new_exercise()

    def _set_kind(self, kind: str) -> None:
        combo = self.pane.exercise.kindCombo
        idx = combo.findData(kind)
        if idx >= 0:
            combo.setCurrentIndex(idx)

    def new_exercise(self, kind: str | None = None, i: int | None = None, j: int | None = None,
                     c: int | None = None) -> None:
        """Ask for one hidden number. Without indices, a token pair and coordinate are drawn at random."""
        ex_page = self.pane.exercise
        if kind is not None:
            self._set_kind(kind)
        kind = ex_page.kindCombo.currentData()
        result = self.session.result
        try:
            if i is None:
                self._exercise_seed += 1
                ex = lesson_numbers.pick_exercise(result, kind, self._exercise_seed)
            else:
                ex = lesson_numbers.make_exercise(result, kind, i, 0 if j is None else j, 0 if c is None else c)
        except ScenarioError as exc:
            self.exercise = None
            ex_page.question.setText(str(exc))
            ex_page.given.setText("")
            ex_page.feedback.setText("")
            ex_page.worked.setText("")
            self.cover.cover(False)
            return
        self.exercise = ex
        self.exercise_checked = False
        self.wrong_tries = 0
        ex_page.showButton.setEnabled(True)
        self.pane.stack.setCurrentWidget(ex_page)
        self._sync_button(self.pane.exerciseButton, True)
        ex_page.question.setText(ex.question)
        ex_page.given.setText(f"Work from: {ex.given}\nGive your answer to {ex.decimals} decimals.")
        ex_page.answer.clear()
        ex_page.feedback.setText("")
        ex_page.worked.setText("")
        ex_page.worked.hide()
        self.cover.cover(True)
        ex_page.answer.setFocus()

    def _refresh_exercise(self) -> None:
        """The scenario changed: ask about the same number again, with the new inputs."""
        ex = self.exercise
        try:
            self.exercise = lesson_numbers.make_exercise(self.session.result, ex.kind, ex.i, ex.j, ex.c)
        except ScenarioError:
            self.new_exercise()
            return
        page = self.pane.exercise
        page.question.setText(self.exercise.question)
        page.given.setText(f"Work from: {self.exercise.given}\nGive your answer to {self.exercise.decimals} decimals.")
        if self.exercise_checked:
            page.worked.setText("How it is worked out:\n" + self.exercise.worked)

    def check(self, text: str | None = None) -> bool:
        """Check the typed answer (or ``text``). Right: say so and show the arithmetic. Not a number: say
        only that. Wrong: a hint and another try (as many as wanted); **Show answer** gives the number."""
        page = self.pane.exercise
        if text is not None:
            page.answer.setText(text)
        if self.exercise is None:
            return False
        if self.exercise_checked:  # the answer is on screen already
            return False
        try:
            answer = parse_number(page.answer.text())
        except ValueError:
            self._feedback("That is not a number.", ok=False)
            return False
        ok, message = lesson_numbers.check_answer(page.answer.text(), self.exercise.value, self.exercise.decimals)
        if not ok:
            self.wrong_tries += 1
            self._feedback("\u2718 " + lesson_numbers.exercise_hint(self.exercise, answer, self.wrong_tries), ok=False)
            page.answer.selectAll()
            page.answer.setFocus()
            return False
        self._feedback("\u2714 " + message, ok=True)
        self._reveal()
        return True

    def show_answer(self) -> None:
        """Give up on the hidden number: show it, how it is worked out, and the panels again."""
        ex = self.exercise
        if ex is None or self.exercise_checked:
            return
        self._feedback(f"The number is {fixed(ex.value, ex.decimals)} "
                       f"(to {ex.decimals} decimals).", ok=None)
        self._reveal()

    def _feedback(self, text: str, ok: bool | None) -> None:
        self.pane.exercise.set_feedback(text, ok)

    def _reveal(self) -> None:
        page = self.pane.exercise
        page.worked.setText("How it is worked out:\n" + self.exercise.worked)
        page.worked.show()
        set_enabled(page.showButton, False)
        self.exercise_checked = True
        self.cover.cover(False)
        self.session.select(self.exercise.i, self.exercise.j)  # the panels show the same pair

    # ----- for the session file -------------------------------------------------------------------
    def view_state(self) -> dict:
        return {"lesson_step": self.index + 1 if self.active else None}

    def restore_view(self, view: dict) -> None:
        """A session file opened: back at the lesson step it was saved at (if the lesson was on)."""
        step = view.get("lesson_step")
        if isinstance(step, int) and not isinstance(step, bool) and step >= 1:
            self.enter()
            self.go(step - 1)
