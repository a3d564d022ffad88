"""The export menu, the panels' context menus, Ctrl+E, "Copy figure" and the export options dialog.

    exporter = ExportController(session, main_window, settings, grid, tell_error)   # .menu goes in File

The "Export" submenu:
    Export panel…            Ctrl+E        the focused (shown alone) or last-clicked panel, as PNG, SVG or PDF
    Export all panels…                     every panel into a folder, one file per panel
    Export deck (PDF)…                     one vector PDF: a title page, then one page per panel in lesson order

"All panels" and the deck are the nine lesson panels plus each experiment whose dock is open
(the √d_k lab; Compare A / B only when something is pinned). An experiment panel can also be
exported alone: right-click it, or click it and press Ctrl+E.
    Export data (CSV + JSON)…              every matrix as a CSV file and one JSON file
    Copy figure              Ctrl+Shift+C  the panel as an image on the clipboard
    Export options…                        width or scale, background, slide or screen theme (the colours are
                                           always those on screen: View → Theme)

Right-clicking a panel (its title bar, or anywhere pyqtgraph offers "Export...") offers the same
for that panel. Options are remembered in the window's QSettings under "export/". The drawing
itself is done by ``qkv_gui.export.figures``; every dialog goes through a method of ``ExportController``
that tests replace (``ask_save_path``, ``ask_folder``, ``ask_options``).
"""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import data_export, presets

from ..export import figures as export
from ..look import style

Qt = QtCore.Qt

FORMAT_FILTERS = {
    "png": "PNG image (*.png)",
    "svg": "SVG vector drawing (*.svg)",
    "pdf": "PDF document (*.pdf)",
}


def load_options(settings: QtCore.QSettings) -> tuple:
    """(ExportOptions, default format) as remembered; anything odd falls back to the defaults."""

    def get(key, default, kind):
        value = settings.value(f"export/{key}", default)
        try:
            if kind is bool:
                return value if isinstance(value, bool) else str(value).lower() in ("true", "1", "yes")
            return kind(value)
        except (TypeError, ValueError):
            return default

    mode = get("size_mode", "scale", str)
    width = get("width", 1920, int)
    scale = get("scale", 2.0, float)
    opts = export.ExportOptions(
        width=max(export.MIN_WIDTH, min(export.MAX_WIDTH, width)) if mode == "width" else None,
        scale=max(1.0, min(4.0, scale)),
        transparent=get("transparent", False, bool),
        theme=get("theme", "slide", str) if get("theme", "slide", str) in export.THEMES else "slide",
    )
    fmt = get("format", "png", str)
    return opts, fmt if fmt in export.FIGURE_FORMATS else "png"


def save_options(settings: QtCore.QSettings, options: export.ExportOptions, fmt: str) -> None:
    settings.setValue("export/size_mode", "width" if options.width else "scale")
    if options.width:
        settings.setValue("export/width", int(options.width))
    settings.setValue("export/scale", float(options.scale))
    settings.setValue("export/transparent", bool(options.transparent))
    settings.setValue("export/theme", options.theme)
    settings.setValue("export/format", fmt)
    settings.sync()


class ExportOptionsDialog(QtWidgets.QDialog):
    """Format, size (width in pixels or scale 1x-4x), background and theme; a line says which colours the
    figures get (the palette in use, View → Theme)."""

    def __init__(self, options: export.ExportOptions, fmt: str, parent=None):
        super().__init__(parent)
        self.setObjectName("exportOptionsDialog")
        self.setWindowTitle("Export options")
        form = QtWidgets.QFormLayout(self)
        self.formatCombo = QtWidgets.QComboBox(self)
        self.formatCombo.setObjectName("exportFormat")
        for key, text in FORMAT_FILTERS.items():
            self.formatCombo.addItem(text.split(" (")[0], key)
        self.formatCombo.setCurrentIndex(max(0, self.formatCombo.findData(fmt)))
        form.addRow("Format", self.formatCombo)

        size_row = QtWidgets.QHBoxLayout()
        self.scaleRadio = QtWidgets.QRadioButton("Scale", self)
        self.scaleRadio.setObjectName("exportByScale")
        self.scaleSpin = QtWidgets.QDoubleSpinBox(self)
        self.scaleSpin.setObjectName("exportScale")
        self.scaleSpin.setRange(1.0, 4.0)
        self.scaleSpin.setSingleStep(0.5)
        self.scaleSpin.setSuffix("\u00d7")
        self.scaleSpin.setValue(options.scale)
        self.widthRadio = QtWidgets.QRadioButton("Width", self)
        self.widthRadio.setObjectName("exportByWidth")
        self.widthSpin = QtWidgets.QSpinBox(self)
        self.widthSpin.setObjectName("exportWidth")
        self.widthSpin.setRange(export.MIN_WIDTH, export.MAX_WIDTH)
        self.widthSpin.setSuffix(" px")
        self.widthSpin.setValue(options.width or options.pixel_width())
        for w in (self.scaleRadio, self.scaleSpin, self.widthRadio, self.widthSpin):
            size_row.addWidget(w)
        (self.widthRadio if options.width else self.scaleRadio).setChecked(True)
        form.addRow("Image size", size_row)
        self.sizeNote = QtWidgets.QLabel(self)
        self.sizeNote.setObjectName("exportSizeNote")
        form.addRow("", self.sizeNote)

        self.transparentCheck = QtWidgets.QCheckBox("Transparent background (the slide shows through)", self)
        self.transparentCheck.setObjectName("exportTransparent")
        self.transparentCheck.setChecked(options.transparent)
        form.addRow("Background", self.transparentCheck)
        self.themeCombo = QtWidgets.QComboBox(self)
        self.themeCombo.setObjectName("exportTheme")
        self.themeCombo.addItem("Slide: larger text, thicker lines", "slide")
        self.themeCombo.addItem("Screen: as in the window", "screen")
        self.themeCombo.setCurrentIndex(max(0, self.themeCombo.findData(options.theme)))
        form.addRow("Theme", self.themeCombo)
        palette = style.current()
        self.coloursNote = QtWidgets.QLabel(
            f"The colours on screen: {palette.title}. Change them with View \u2192 Theme.", self)
        self.coloursNote.setObjectName("exportColoursNote")
        self.coloursNote.setWordWrap(True)
        form.addRow("Colours", self.coloursNote)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok | QtWidgets.QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        for signal in (self.scaleSpin.valueChanged, self.widthSpin.valueChanged, self.scaleRadio.toggled):
            signal.connect(self._update_note)
        self._update_note()

    def options(self) -> export.ExportOptions:
        return export.ExportOptions(
            width=self.widthSpin.value() if self.widthRadio.isChecked() else None,
            scale=self.scaleSpin.value(),
            transparent=self.transparentCheck.isChecked(),
            theme=self.themeCombo.currentData(),
        )

    def format(self) -> str:
        return self.formatCombo.currentData()

    def _update_note(self, *_):
        o = self.options()
        self.sizeNote.setText(f"PNG images: {o.pixel_width()} \u00d7 {o.pixel_height()} pixels. "
                              "SVG and PDF are vector drawings: sharp at any size.")


class ExportController(QtCore.QObject):
    """Everything the export menu does, for the panels of ``grid`` in ``main`` (a QMainWindow) and the experiment
    panels it is told of (``adopt_experiment``). ``tell_error(title, line)`` shows what went wrong."""

    def __init__(self, session, main: QtWidgets.QMainWindow, settings, grid, tell_error):
        super().__init__(main)
        self.session = session
        self.main = window = main
        self.settings = settings
        self.grid = grid
        self.tell_error = tell_error
        self._labs: dict = {}  # object name -> experiment panel, as adopted
        self.last_panel: str | None = None
        self.actions: dict[str, QtGui.QAction] = {}
        self._owner: dict = {}  # a frame of the grid, or an experiment panel -> its panel's objectName
        self._windows: dict = {}  # a QWindow watched -> the top-level widget it shows
        self.menu = QtWidgets.QMenu("E&xport", window)  # the main window puts it in its File menu
        self.menu.setObjectName("exportMenu")
        specs = [
            ("panel", "Export &panel\u2026", "Ctrl+E", lambda: self.export_panel()),
            ("all", "Export &all panels\u2026", None, lambda: self.export_all()),
            ("deck", "Export &deck (PDF)\u2026", None, lambda: self.export_deck()),
            ("data", "Export d&ata (CSV + JSON)\u2026", None, lambda: self.export_data()),
            ("copy", "&Copy figure", "Ctrl+Shift+C", lambda: self.copy_figure()),
            ("options", "Export &options\u2026", None, lambda: self.edit_options()),
        ]
        for key, text, shortcut, slot in specs:
            if key in ("copy", "options"):
                self.menu.addSeparator()
            act = QtGui.QAction(text, window)
            act.setObjectName(f"export_{key}")
            if shortcut:
                act.setShortcut(QtGui.QKeySequence(shortcut))
            act.triggered.connect(lambda _=False, s=slot: s())
            self.menu.addAction(act)
            window.addAction(act)  # shortcuts work even with the menu bar hidden (full screen)
            self.actions[key] = act
        self.actions["panel"].setToolTip("Export the panel shown alone, or the one you clicked last")
        for name, frame in grid.frames.items():
            frame.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            frame.customContextMenuRequested.connect(lambda pos, f=frame: self._show_frame_menu(f, pos))
            _replace_pyqtgraph_export(self, name, frame.panel)
        self.watch_clicks()

    # ----- which panel --------------------------------------------------------------------------
    def current_panel(self) -> str:
        """objectName of the panel to export: the one shown alone, else the last clicked, else the first shown."""
        grid = self.grid
        if grid.focused:
            return grid.focused
        if self.last_panel in grid.frames and grid.frames[self.last_panel].isVisible():
            return self.last_panel
        experiment = self._experiment_panels().get(self.last_panel)
        if experiment is not None and experiment.isVisible():
            return self.last_panel
        for name, frame in grid.frames.items():
            if frame.isVisible():
                return name
        return next(iter(grid.frames))

    def _experiment_panels(self) -> dict:
        return self._labs

    def panel(self, object_name: str):
        """The panel on screen: one of the nine, or an experiment (made when its dock was opened)."""
        frame = self.grid.frames.get(object_name)
        panel = frame.panel if frame is not None else None
        return panel if panel is not None else self._experiment_panels()[object_name]

    def panel_class(self, object_name: str):
        return type(self.panel(object_name))

    def open_experiments(self) -> list:
        """Short names of the experiments whose docks are open now (shown, or tabbed behind another dock)."""
        names = []
        for object_name, panel in self._experiment_panels().items():
            dock = panel.parentWidget()
            if isinstance(dock, QtWidgets.QDockWidget) and not dock.isHidden():
                names.append(export.short_name(object_name))
        return names

    def export_names(self) -> list:
        """What "export all" and the deck take: the nine panels, then the open experiments
        (the compare panel only when something is pinned); see ``export.default_names``."""
        return export.default_names(self.session, self.open_experiments())

    def eventFilter(self, obj, event):
        # Installed on the windows (Qt's QWindow of the main window, and of an experiment's dock while it
        # floats): a mouse press reaches the window before the widget under it. The widgets' own events
        # (paints above all) never come here.
        if type(event) is QtGui.QMouseEvent:
            if event.type() == QtCore.QEvent.Type.MouseButtonPress:
                top = self._windows.get(obj)
                if top is not None:
                    name = self._panel_at(top.childAt(top.mapFromGlobal(event.globalPosition().toPoint())))
                    if name is not None:
                        self.last_panel = name
        elif isinstance(obj, QtWidgets.QWidget) and event.type() == QtCore.QEvent.Type.Show:
            obj.removeEventFilter(self)  # (a window shown at last: its QWindow is watched now)
            self._watch_window(obj)
        return False

    def _panel_at(self, widget) -> str | None:
        """objectName of the panel ``widget`` belongs to (its frame in the grid, or an experiment panel)."""
        while widget is not None:
            name = self._owner.get(widget)
            if name is not None:
                return name
            widget = widget.parentWidget()
        return None

    def watch_clicks(self) -> None:
        """Remember the panel clicked last: the window's mouse presses are watched, not each widget."""
        self._owner.update({frame: name for name, frame in self.grid.frames.items()})
        self._watch_window(self.main)

    def _watch_window(self, top: QtWidgets.QWidget) -> None:
        """Watch the presses that reach ``top``'s QWindow; a window not shown yet has none: at its showing."""
        handle = top.windowHandle()
        if handle is None:
            top.installEventFilter(self)  # (installed again, it is still called once)
        elif handle not in self._windows:
            self._windows[handle] = top
            handle.installEventFilter(self)
            handle.destroyed.connect(lambda *_, h=handle: self._windows.pop(h, None))

    # ----- options --------------------------------------------------------------------------------
    def options(self) -> tuple:
        return load_options(self.settings)

    def ask_options(self) -> tuple | None:
        """Show the options dialog; (options, format) when accepted, else None."""
        opts, fmt = self.options()
        dialog = ExportOptionsDialog(opts, fmt, self.main)
        if dialog.exec() != QtWidgets.QDialog.DialogCode.Accepted:
            return None
        return dialog.options(), dialog.format()

    def edit_options(self) -> bool:
        chosen = self.ask_options()
        if chosen is None:
            return False
        save_options(self.settings, *chosen)
        return True

    # ----- where to --------------------------------------------------------------------------------
    def _folder(self) -> str:
        folder = self.settings.value("export/folder", "")
        return folder if isinstance(folder, str) and folder and Path(folder).is_dir() else str(Path.home())

    def _remember_folder(self, path: Path) -> None:
        self.settings.setValue("export/folder", str(path if path.is_dir() else path.parent))

    def ask_save_path(self, suggested: str, filters: list, selected: str) -> str | None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self.main, "Export", str(Path(self._folder()) / suggested),
                                                        ";;".join(filters), selected)
        return path or None

    def ask_folder(self, title: str) -> str | None:
        path = QtWidgets.QFileDialog.getExistingDirectory(self.main, title, self._folder())
        return path or None

    def _fail(self, what: str, exc: Exception) -> None:
        detail = getattr(exc, "strerror", None) or str(exc)
        self.tell_error("Export failed", f"Could not {what}: {detail}")

    def _done(self, text: str) -> None:
        self.main.statusBar().showMessage(text, 8000)

    # ----- the actions --------------------------------------------------------------------------------
    def export_panel(self, object_name: str | None = None, path=None) -> Path | None:
        """Export one panel (default: the current one) to a PNG, SVG or PDF file chosen by the user."""
        name = object_name or self.current_panel()
        opts, fmt = self.options()
        if path is None:
            short = export.short_name(name)
            filters = [FORMAT_FILTERS[f] for f in export.FIGURE_FORMATS]
            path = self.ask_save_path(f"{short}.{fmt}", filters, FORMAT_FILTERS[fmt])
            if path is None:
                return None
        path = Path(path)
        chosen = path.suffix.lower().lstrip(".")
        if chosen not in export.FIGURE_FORMATS:
            chosen = fmt
            path = path.with_name(path.name + "." + fmt)
        try:
            written = export.export_panel(self.panel_class(name), self.session, path, opts, chosen)
        except (OSError, ValueError) as exc:
            self._fail(f"export to {path}", exc)
            return None
        save_options(self.settings, opts, chosen)
        self._remember_folder(written)
        self._done(f"Exported {written.name}")
        return written

    def export_all(self, folder=None) -> list:
        """Every panel into a folder, in the remembered format."""
        opts, fmt = self.options()
        folder = folder or self.ask_folder("Export all panels into a folder")
        if not folder:
            return []
        folder = Path(folder)
        try:
            written = export.export_panels(self.session, folder, (fmt,), self.export_names(), opts)
        except (OSError, ValueError) as exc:
            self._fail(f"export into {folder}", exc)
            return []
        self._remember_folder(folder)
        self._done(f"Exported {len(written)} panels into {folder}")
        return written

    def export_deck(self, path=None) -> Path | None:
        opts, _fmt = self.options()
        if path is None:
            path = self.ask_save_path("attention-deck.pdf", [FORMAT_FILTERS["pdf"]], FORMAT_FILTERS["pdf"])
            if path is None:
                return None
        path = Path(path)
        if path.suffix.lower() != ".pdf":
            path = path.with_name(path.name + ".pdf")
        session = self.session
        preset = session.preset_name
        title = presets.get(preset).title if preset in presets.names() else None
        try:
            written = export.export_deck(session, path, opts, names=self.export_names(), preset_title=title)
        except (OSError, ValueError) as exc:
            self._fail(f"write the deck to {path}", exc)
            return None
        self._remember_folder(written)
        self._done(f"Exported the deck {written.name}")
        return written

    def export_data(self, folder=None) -> list:
        folder = folder or self.ask_folder("Export the numbers (CSV + JSON) into a folder")
        if not folder:
            return []
        folder = Path(folder)
        s = self.session
        try:
            written = data_export.write_data(folder, s.result, s.selection, s.preset_name, s.full_result,
                                             s.model_source())
        except OSError as exc:
            self._fail(f"write the numbers into {folder}", exc)
            return []
        self._remember_folder(folder)
        self._done(f"Exported {len(written)} data files into {folder}")
        return written

    def copy_figure(self, object_name: str | None = None) -> QtGui.QImage:
        name = object_name or self.current_panel()
        opts, _fmt = self.options()
        image = export.render_image(self.panel_class(name), self.session, opts)
        QtWidgets.QApplication.clipboard().setImage(image)
        self._done(f"Copied '{self.panel(name).title}' ({image.width()} \u00d7 {image.height()} px)")
        return image

    # ----- menus ---------------------------------------------------------------------------------------
    def panel_menu(self, object_name: str, parent=None) -> QtWidgets.QMenu:
        """The context menu of one panel."""
        menu = QtWidgets.QMenu(parent or self.main)
        menu.setObjectName("panelExportMenu")
        menu.addAction("Export this panel\u2026", lambda: self.export_panel(object_name))
        menu.addAction("Copy figure", lambda: self.copy_figure(object_name))
        menu.addSeparator()
        menu.addAction("Export all panels\u2026", self.export_all)
        menu.addAction("Export deck (PDF)\u2026", self.export_deck)
        menu.addAction("Export data (CSV + JSON)\u2026", self.export_data)
        menu.addSeparator()
        menu.addAction("Export options\u2026", self.edit_options)
        return menu

    def adopt_experiment(self, object_name: str, panel) -> None:
        """An experiment panel was just made (its dock opened): clicks, context menu and Ctrl+E reach it too."""
        self._labs[object_name] = panel
        self._owner[panel] = object_name
        dock = panel.parentWidget()
        if isinstance(dock, QtWidgets.QDockWidget):  # floating, it is a window of its own
            dock.topLevelChanged.connect(lambda floating, d=dock: floating and self._watch_window(d))
            if dock.isFloating():
                self._watch_window(dock)
        panel.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        panel.customContextMenuRequested.connect(
            lambda pos, n=object_name, p=panel: self._show_panel_menu(n, p, pos))
        _replace_pyqtgraph_export(self, object_name, panel)

    def _show_panel_menu(self, object_name: str, widget, pos) -> None:
        self.last_panel = object_name
        self.panel_menu(object_name, widget).exec(widget.mapToGlobal(pos))

    def _show_frame_menu(self, frame, pos) -> None:
        self.last_panel = frame.panel.object_name
        self.panel_menu(frame.panel.object_name, frame).exec(frame.mapToGlobal(pos))


def _replace_pyqtgraph_export(controller: ExportController, name: str, panel) -> None:
    """pyqtgraph's own right-click "Export..." is broken for SVG with current PySide6: offer ours instead."""
    import pyqtgraph as pg

    for view in panel.findChildren(pg.GraphicsView):
        scene = view.scene()
        if scene is None or not hasattr(scene, "contextMenu"):
            continue
        act = QtGui.QAction("Export this panel\u2026", scene)
        act.triggered.connect(lambda _=False, n=name: controller.export_panel(n))
        copy = QtGui.QAction("Copy figure", scene)
        copy.triggered.connect(lambda _=False, n=name: controller.copy_figure(n))
        scene.contextMenu = [act, copy]
