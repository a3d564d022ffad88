"""Figures for slides: any panel as PNG, SVG or PDF, and a PDF deck.

No menus here (see ``export_actions``), no argument parsing (see ``headless``), and no numbers
(the CSV + JSON data export needs no Qt: ``qkv_engine.data_export``).

    opts = ExportOptions(width=1920, theme="slide")
    data = render_panel(HeatmapPanel, session, "svg", opts)      # bytes of the file
    files = render_formats(HeatmapPanel, session, ["png", "svg"], opts)   # one staging, several formats
    export_panel(HeatmapPanel, session, "heatmap.svg", opts)     # written atomically
    export_deck(session, "deck.pdf", opts)                       # title page + one page per panel
    all_panel_classes()                    # the nine lesson panels, then 'scaling-lab' and 'compare'
    default_names(session, open_experiments={"scaling-lab"})    # what "export all" and the deck take

How a figure is made: a FRESH instance of the panel class is bound to the
same session (the panel on screen is left untouched), given the export size
and theme, shown with ``WA_DontShowOnScreen``, and rendered with
``QWidget.render`` onto a QImage (PNG), a QSvgGenerator (SVG) or a QPdfWriter
(PDF). Qt's own SVG and PDF engines write text as text and shapes as paths;
pyqtgraph's SVGExporter is not used (it is broken with current PySide6).
An SVG is made to open the same in every reader (LibreOffice, librsvg, web
browsers, not only Qt's): see ``_svg_bytes`` and ``svg_strokes``.

With a trained model open, the files' metadata (SVG title and description, PDF
title, PNG text) and the deck's title page and page titles name the model, the
layer and the head.

Colours: figures are drawn in the palette in use (View → Theme), as on screen: a
fresh panel takes it when it is made, and its background is the palette's (a
panel that does not follow palettes yet keeps the standard one, background too).
The deck's title page is in the palette in use.

Two things would otherwise turn a vector export into a picture of pixels:
pyqtgraph views cache their background as a pixmap (``CacheBackground``) and
scene items may cache themselves; both caches are switched off on the fresh
instance. Image items (the heatmap's cells, colour bars) stay images, as
they are on screen.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from qkv_engine import data_export, session_format

from ..look import colours, style
from . import svg_strokes
from ..panels import catalog

Qt = QtCore.Qt

FIGURE_FORMATS = ("png", "svg", "pdf")
#: The size a panel is laid out at for export, in logical pixels (16:10). Scale 2 gives a 1920 px slide image.
LOGICAL_SIZE = (960, 600)
MIN_WIDTH, MAX_WIDTH = 64, 16384
THEMES = {"slide": style.SLIDE, "screen": style.SCREEN}
#: A deck page's title (points, at theme scale 1).
PAGE_TITLE_PT = 14.0


short_name = catalog.short_name  # 'heatmapPanel' -> 'heatmap': a panel's file name


def panel_classes() -> dict:
    """Short name -> panel class of the nine lesson panels, in lesson order."""
    return {e.short_name: e.cls for e in catalog.STEPS}


def experiment_classes() -> dict:
    """Short name -> panel class of the Experiments menu's panels ('scaling-lab', 'compare').

    A fresh copy of one shows what the one on screen shows: the lab reads its d_k and seed from
    ``session.lab_state``, the compare panel reads ``session.pinned``.
    """
    return {e.short_name: e.cls for e in catalog.EXPERIMENTS}


def all_panel_classes() -> dict:
    """The lesson panels, then the experiments: every panel that can be exported."""
    return {**panel_classes(), **experiment_classes()}


def model_panel_classes() -> dict:
    """Short name -> panel class of the panels that show a trained model ('model-view', 'prediction'): exported
    when named, with a model open."""
    return {e.short_name: e.cls for e in catalog.MODEL_PANELS}


def known_panel_classes() -> dict:
    """Every panel a file or a deck page can be made of: the lesson panels, the experiments, the model panels."""
    return {**all_panel_classes(), **model_panel_classes()}


def default_names(session, open_experiments=()) -> list:
    """What "export all" and the deck take: the nine lesson panels, then each experiment in
    ``open_experiments`` (short names) — the compare panel only when something is pinned, since
    without A it is only a hint. Experiments are not taken when closed: a figure of a lab nobody
    opened would surprise the slide-maker."""
    names = list(panel_classes())
    for name in experiment_classes():
        if name not in open_experiments:
            continue
        if name == "compare" and session.pinned is None:
            continue
        names.append(name)
    return names


@dataclass(frozen=True)
class ExportOptions:
    """What a slide-maker chooses. ``width`` (pixels) wins over ``scale`` when both are given."""

    width: int | None = None  # PNG width in pixels
    scale: float = 2.0  # PNG width = LOGICAL_SIZE width x scale (1 to 4)
    transparent: bool = False  # no background: the slide shows through
    theme: str = "slide"  # "slide" (bigger text, thicker lines) or "screen" (as in the window)
    size: tuple = LOGICAL_SIZE  # layout size in logical pixels (also the SVG/PDF page size)

    def pixel_width(self) -> int:
        w = self.width if self.width else round(self.size[0] * self.scale)
        return int(max(MIN_WIDTH, min(MAX_WIDTH, w)))

    def pixel_height(self) -> int:
        return max(1, round(self.size[1] * self.pixel_width() / self.size[0]))

    def style_theme(self) -> style.Theme:
        theme = THEMES.get(self.theme, style.SLIDE)
        return theme

    def background(self, palette: style.Palette | None = None) -> QtGui.QColor:
        """The figure's background: none when transparent, else the background of ``palette`` (default: the
        palette in use)."""
        if self.transparent:
            return QtGui.QColor(0, 0, 0, 0)
        return QtGui.QColor((palette or style.current()).background)


def _colours_of(widget: QtWidgets.QWidget) -> style.Palette:
    """The palette a staged panel (or its page) is drawn in."""
    return getattr(widget, "colours", None) or style.current()


# ----- staging a fresh panel ------------------------------------------------------------------------
def _settle(rounds: int = 4) -> None:
    app = QtWidgets.QApplication.instance()
    for _ in range(rounds):
        app.processEvents()


def _prepare_for_vectors(panel: QtWidgets.QWidget, options: ExportOptions) -> None:
    """Switch off the pixmap caches, and set the backgrounds the options ask for (and Qt's palette of the
    panel's own palette: its words in its inks)."""
    bg = options.background(_colours_of(panel))
    pal = colours.qt_palette(_colours_of(panel))
    pal.setColor(QtGui.QPalette.ColorRole.Window, bg)
    pal.setColor(QtGui.QPalette.ColorRole.Base, bg)
    panel.setPalette(pal)
    panel.setAutoFillBackground(not options.transparent)
    for view in panel.findChildren(QtWidgets.QGraphicsView):
        view.setCacheMode(QtWidgets.QGraphicsView.CacheModeFlag.CacheNone)
        # Views set their own hints on the painter: ask them for lossless images (the PDF writer
        # would otherwise store the heatmap's cells as JPEG, with smudged colours).
        view.setRenderHint(QtGui.QPainter.RenderHint.LosslessImageRendering, True)
        view.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        if options.transparent:
            view.setBackgroundBrush(QtGui.QBrush(Qt.BrushStyle.NoBrush))
            view.setStyleSheet("background: transparent; border: none;")
            view.viewport().setAutoFillBackground(False)
            view.setAutoFillBackground(False)
        scene = view.scene()
        if scene is not None:
            for item in scene.items():
                if item.cacheMode() != QtWidgets.QGraphicsItem.CacheMode.NoCache:
                    item.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.NoCache)
    if options.transparent:
        import pyqtgraph as pg

        for view in panel.findChildren(pg.GraphicsView):
            view.setBackground(None)
    for button in panel.findChildren(QtWidgets.QAbstractButton):
        # Buttons (reset view, zoom) are for the screen, not for a slide.
        button.setVisible(False)
    for bar in panel.findChildren(QtWidgets.QScrollBar):
        bar.setVisible(False)
    for tabs in panel.findChildren(QtWidgets.QTabBar):
        tabs.setVisible(False)  # a switch between pictures is for the screen (the mixing panel's grids)
    for slider in panel.findChildren(QtWidgets.QSlider):
        slider.setVisible(False)  # a handle to drag is for the screen; the number beside it says where it is
    for spin in panel.findChildren(QtWidgets.QAbstractSpinBox):
        # a number to type into reads as plain text on a slide: "d_k: 64", not a box with arrows
        spin.setButtonSymbols(QtWidgets.QAbstractSpinBox.ButtonSymbols.NoButtons)
        spin.setFrame(False)


class StagedPanel:
    """A fresh, offscreen panel bound to ``session``; use as a context manager (it gives the panel).

    With ``title`` the panel stands on a page under that title (the deck's pages); ``widget`` is
    what is drawn: the page, or the panel alone."""

    def __init__(self, panel_class, session, options: ExportOptions, title: str | None = None):
        self.panel_class = panel_class
        self.session = session
        self.options = options
        self.title = title
        self.panel = None
        self.widget = None
        self.title_label: QtWidgets.QLabel | None = None

    def _page(self, panel) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        page.setObjectName("exportPage")
        layout = QtWidgets.QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        label = QtWidgets.QLabel(self.title, page)
        label.setObjectName("pageTitle")
        font = label.font()
        font.setPointSizeF(PAGE_TITLE_PT * min(self.options.style_theme().font_scale, 1.3))
        font.setBold(True)
        label.setFont(font)
        label.setContentsMargins(12, 8, 12, 4)
        layout.addWidget(label)
        layout.addWidget(panel, 1)
        self.title_label = label
        return page

    def __enter__(self):
        style.configure_pyqtgraph()
        panel = self.panel_class(self.session)
        widget = panel if self.title is None else self._page(panel)
        widget.colours = panel.colours  # the page's palette: the panel's
        widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
        widget.resize(*self.options.size)
        theme = self.options.style_theme()
        if theme != style.SCREEN:
            panel.set_theme(theme)
        _prepare_for_vectors(widget, self.options)
        widget.show()
        _settle()
        if widget.size() != QtCore.QSize(*self.options.size):
            # A top-level widget with word-wrapped labels can grow to its layout's height-for-width
            # before it has arranged itself for the export size (the lab puts its words beside the
            # charts only once it is wide); set the size again, or the bottom is cut off.
            widget.resize(*self.options.size)
            _settle()
        panel.refresh()  # once more at its final size (labels thinned for the real width)
        _prepare_for_vectors(widget, self.options)  # items made by the refresh
        _settle(2)
        self.panel, self.widget = panel, widget
        return panel

    def __exit__(self, *exc):
        panel, widget, self.panel, self.widget = self.panel, self.widget, None, None
        if panel is not None:
            panel.detach()  # deaf to the session from now on, whatever signals it followed
            widget.hide()
            widget.deleteLater()
            QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
        return False


def model_line(session) -> str | None:
    """'MODEL · layer L, head H' when the session shows a head of a trained model, else None."""
    doc = session.model_doc
    if doc is None:
        return None
    return f"{doc.model.info.name} \u00b7 layer {session.model_layer + 1}, head {session.model_head + 1}"


def page_title(panel_class, session) -> str:
    """A deck page's title: the panel's title, and which head it shows when there are several (with a
    trained model: which layer and head)."""
    lesson_panel = panel_class in panel_classes().values()
    if session.model_doc is not None and lesson_panel:
        return f"{panel_class.title} \u00b7 layer {session.model_layer + 1}, head {session.model_head + 1}"
    heads = session.scenario.n_heads
    if heads > 1 and lesson_panel:
        return f"{panel_class.title} \u00b7 head {session.head + 1} of {heads}"
    return panel_class.title


def figure_title(panel_class, session) -> str:
    """The title written into a figure's file (SVG <title>, PDF and PNG metadata)."""
    model = model_line(session)
    name = f"{panel_class.title} \u00b7 {model}" if model else panel_class.title
    return f"{name} \u2014 QKV Visualizer"


def figure_description(session) -> str:
    """What a figure shows, for the file's metadata: the sentence, and the trained model when there is one."""
    s = session.scenario
    sentence = s.text if s.text is not None else " ".join(s.tokens)
    parts = [f"Attention in the sentence \u201c{sentence}\u201d."]
    model = model_line(session)
    if model:
        parts.append(f"Trained model {model}.")
    parts.append("Made with QKV Visualizer.")
    return " ".join(parts)


def _render_flags(options: ExportOptions):
    flags = QtWidgets.QWidget.RenderFlag.DrawChildren
    if not options.transparent:
        flags |= QtWidgets.QWidget.RenderFlag.DrawWindowBackground
    return flags


def _set_export_mode(panel, on: bool, pixel_scale: float = 1.0) -> None:
    """Tell pyqtgraph items they are being exported: scatter symbols are then drawn as shapes, not
    stamped from a cached pixmap (``resolutionScale`` keeps their size right on a scaled image)."""
    import pyqtgraph as pg

    for view in panel.findChildren(QtWidgets.QGraphicsView):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            if isinstance(item, pg.GraphicsItem):
                item.setExportMode(on, {"antialias": True, "resolutionScale": pixel_scale} if on else None)


def _paint_panel(panel, painter: QtGui.QPainter, options: ExportOptions, pixel_scale: float = 1.0) -> None:
    w, h = options.size
    _set_export_mode(panel, True, pixel_scale)
    if not options.transparent:
        painter.fillRect(QtCore.QRectF(0, 0, w, h), options.background(_colours_of(panel)))
    try:
        panel.render(painter, QtCore.QPoint(), QtGui.QRegion(), _render_flags(options))
    finally:
        _set_export_mode(panel, False)


def _hints() -> QtGui.QPainter.RenderHint:
    H = QtGui.QPainter.RenderHint
    return H.Antialiasing | H.TextAntialiasing | H.SmoothPixmapTransform | H.LosslessImageRendering


def screen_dpi() -> float:
    screen = QtGui.QGuiApplication.primaryScreen()
    return float(screen.logicalDotsPerInchY()) if screen is not None else 96.0


def image_of(panel, options: ExportOptions) -> QtGui.QImage:
    """The staged panel as an image of the requested width."""
    width, height = options.pixel_width(), options.pixel_height()
    image = QtGui.QImage(width, height, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(options.background(_colours_of(panel)))
    dpm = round(screen_dpi() / 0.0254 * width / options.size[0])
    image.setDotsPerMeterX(dpm)
    image.setDotsPerMeterY(dpm)
    painter = QtGui.QPainter(image)
    painter.setRenderHints(_hints())
    painter.scale(width / options.size[0], height / options.size[1])
    _paint_panel(panel, painter, options, width / options.size[0])
    painter.end()
    return image


def _png_bytes(image: QtGui.QImage, title: str | None = None, description: str | None = None) -> bytes:
    if title:
        image.setText("Title", title)
    if description:
        image.setText("Description", description)
    image.setText("Software", "QKV Visualizer")
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise OSError("the PNG encoder failed")
    return bytes(buf.data().data())


def _svg_bytes(panel, options: ExportOptions, title: str, description: str = "Made with QKV Visualizer") -> bytes:
    """The panel as SVG 1.1 that reads the same in every renderer.

    The panel is first recorded in a QPicture and then played onto the SVG generator: painted
    straight from ``QWidget.render``, Qt writes each child widget's clipping without the child's
    offset (a plot clipped to the wrong place loses its labels), while a replay sets every clip in
    page coordinates. SVG 1.1 (not Tiny) so that the clipping is written at all: a plot's lines end
    at its frame, as on screen. Then ``svg_strokes.device_strokes`` writes the thin lines in page
    units (readers other than Qt's ignore ``vector-effect``)."""
    from PySide6 import QtSvg

    w, h = options.size
    picture = QtGui.QPicture()
    recorder = QtGui.QPainter(picture)
    recorder.setRenderHints(_hints())
    _paint_panel(panel, recorder, options)
    recorder.end()
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    gen = QtSvg.QSvgGenerator(QtSvg.QSvgGenerator.SvgVersion.Svg11)
    gen.setOutputDevice(buf)
    gen.setSize(QtCore.QSize(w, h))
    gen.setViewBox(QtCore.QRect(0, 0, w, h))
    gen.setResolution(round(screen_dpi()))
    gen.setTitle(title)
    gen.setDescription(description)
    painter = QtGui.QPainter(gen)
    painter.setRenderHints(_hints())
    picture.play(painter)
    painter.end()
    return svg_strokes.device_strokes(bytes(buf.data().data()))


def _pdf_writer(device, options: ExportOptions, title: str) -> QtGui.QPdfWriter:
    writer = QtGui.QPdfWriter(device)
    dpi = round(screen_dpi())
    writer.setResolution(dpi)
    w, h = options.size
    size = QtGui.QPageSize(QtCore.QSizeF(w * 72.0 / dpi, h * 72.0 / dpi), QtGui.QPageSize.Unit.Point, title,
                           QtGui.QPageSize.SizeMatchPolicy.ExactMatch)
    writer.setPageLayout(QtGui.QPageLayout(size, QtGui.QPageLayout.Orientation.Portrait, QtCore.QMarginsF(0, 0, 0, 0)))
    writer.setTitle(title)
    writer.setCreator("QKV Visualizer")
    return writer


def _fit(painter: QtGui.QPainter, device, options: ExportOptions) -> None:
    """Map the logical export size onto the whole page, whatever the device rounding."""
    w, h = options.size
    painter.scale(device.width() / w, device.height() / h)


def _pdf_bytes(panel, options: ExportOptions, title: str) -> bytes:
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    writer = _pdf_writer(buf, options, title)
    painter = QtGui.QPainter(writer)
    painter.setRenderHints(_hints())
    _fit(painter, writer, options)
    _paint_panel(panel, painter, options)
    painter.end()
    del writer
    return bytes(buf.data().data())


def render_formats(panel_class, session, formats, options: ExportOptions | None = None) -> dict:
    """Format -> file contents of one panel, for each of ``formats`` ('png', 'svg', 'pdf'), all drawn
    from one staged copy of the panel."""
    options = options or ExportOptions()
    formats = [f.lower() for f in formats]
    for fmt in formats:
        if fmt not in FIGURE_FORMATS:
            raise ValueError(f"unknown figure format '{fmt}' (known: {', '.join(FIGURE_FORMATS)})")
    title, description = figure_title(panel_class, session), figure_description(session)
    files = {}
    with StagedPanel(panel_class, session, options) as panel:
        for fmt in formats:
            if fmt == "png":
                files[fmt] = _png_bytes(image_of(panel, options), title, description)
            elif fmt == "svg":
                files[fmt] = _svg_bytes(panel, options, title, description)
            else:
                files[fmt] = _pdf_bytes(panel, options, title)
    return files


def render_panel(panel_class, session, fmt: str, options: ExportOptions | None = None) -> bytes:
    """The file contents of one panel as ``fmt`` ('png', 'svg' or 'pdf')."""
    return render_formats(panel_class, session, [fmt], options)[fmt.lower()]


def render_image(panel_class, session, options: ExportOptions | None = None) -> QtGui.QImage:
    """One panel as a QImage (for the clipboard)."""
    options = options or ExportOptions()
    with StagedPanel(panel_class, session, options) as panel:
        return image_of(panel, options)


# ----- writing files safely ---------------------------------------------------------------------------
def write_atomic(path, data: bytes) -> Path:
    """Write ``data`` beside ``path`` first, then rename it over ``path``."""
    session_format.write_atomic(path, data)
    return Path(path)


def export_panel(panel_class, session, path, options: ExportOptions | None = None, fmt: str | None = None) -> Path:
    """Write one panel to ``path``; the format comes from the suffix unless ``fmt`` is given."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    return write_atomic(path, render_panel(panel_class, session, fmt, options))


def export_panels(session, folder, formats=("png",), names=None, options: ExportOptions | None = None) -> list:
    """Write ``<short name>.<format>`` for each panel (default: the nine lesson panels) into ``folder``;
    returns the paths. ``names`` may include experiments ('scaling-lab', 'compare')."""
    folder = Path(folder)
    classes = known_panel_classes()
    written = []
    for name in names or list(panel_classes()):
        for fmt in formats:
            written.append(export_panel(classes[name], session, folder / f"{name}.{fmt}", options, fmt))
    return written


# ----- the deck ----------------------------------------------------------------------------------------
def _paint_title_page(painter: QtGui.QPainter, result, selection, options: ExportOptions, titles: list,
                      preset_title: str | None, model: str | None = None, source=None) -> None:
    w, h = options.size
    pal = style.current()
    if not options.transparent:
        painter.fillRect(QtCore.QRectF(0, 0, w, h), options.background(pal))
    fs = options.style_theme().font_scale
    margin = 48.0
    y = margin
    ink = QtGui.QColor(pal.foreground)

    def block(text, point, bold=False, color=ink, gap=10.0):
        nonlocal y
        font = QtGui.QFont()
        font.setPointSizeF(point)
        font.setBold(bold)
        painter.setFont(font)
        painter.setPen(color)
        rect = QtCore.QRectF(margin, y, w - 2 * margin, h - y - margin)
        flags = int(Qt.TextFlag.TextWordWrap) | int(Qt.AlignmentFlag.AlignLeft) | int(Qt.AlignmentFlag.AlignTop)
        used = painter.boundingRect(rect, flags, text)
        painter.drawText(rect, flags, text)
        y += used.height() + gap

    s = result.scenario
    block("How attention reads a sentence", 20 * min(fs, 1.3), bold=True, gap=6)
    if model:
        block(f"Trained model: {model}", 10 * min(fs, 1.3), color=QtGui.QColor(pal.muted), gap=14)
    elif preset_title:
        block(f"Example: {preset_title}", 10 * min(fs, 1.3), color=QtGui.QColor(pal.muted), gap=14)
    sentence = s.text if s.text is not None else " ".join(s.tokens)
    block("\u201c" + (sentence if sentence.strip() else "(empty sentence)") + "\u201d", 16 * min(fs, 1.3),
          color=QtGui.QColor(pal.ink["x"]), gap=16)
    block("\n".join(data_export.settings_lines(result, selection, source)), 10 * min(fs, 1.3), gap=16)
    block("\n".join(f"page {n + 2}:  {t}" for n, t in enumerate(titles)), 8.5 * min(fs, 1.2),
          color=QtGui.QColor(pal.muted))


def deck_bytes(session, options: ExportOptions | None = None, names=None, preset_title: str | None = None) -> bytes:
    """One vector PDF: a title page (sentence, settings), then one page per panel in lesson order, each
    under the panel's title."""
    options = options or ExportOptions()
    classes = known_panel_classes()
    chosen = [classes[n] for n in (names or list(panel_classes()))]
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    model = model_line(session)
    writer = _pdf_writer(buf, options, "QKV Visualizer \u2014 attention, step by step"
                         + (f" \u2014 {model}" if model else ""))
    painter = QtGui.QPainter(writer)
    painter.setRenderHints(_hints())
    _fit(painter, writer, options)
    _paint_title_page(painter, session.result, session.selection, options, [page_title(c, session) for c in chosen],
                      preset_title, model, session.model_source())
    for cls in chosen:
        staged = StagedPanel(cls, session, options, title=page_title(cls, session))
        with staged:
            writer.newPage()
            _paint_panel(staged.widget, painter, options)
    painter.end()
    del writer
    return bytes(buf.data().data())


def export_deck(session, path, options: ExportOptions | None = None, names=None,
                preset_title: str | None = None) -> Path:
    return write_atomic(path, deck_bytes(session, options, names, preset_title))


def with_options(options: ExportOptions, **changes) -> ExportOptions:
    return replace(options, **changes)


#: The file the data export adds with a trained model open (headless ``--format csv``).
ROLLOUT_CSV = "rollout.csv"
ROLLOUT_HEADER = ("query", "query token", "key", "key token", "weight")


def rollout_csv(trace, residual: bool = True) -> bytes:
    """The attention rollout through every layer of ``trace`` (``qkv_engine.rollout(...)[-1]``, the residual
    mixed in as Abnar and Zuidema do) as CSV: one line per (query, key) pair, tokens counted from 1, the
    weight at full precision."""
    import csv
    import io

    from qkv_engine import rollout

    last = rollout(trace.weights, residual=residual)[-1]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(ROLLOUT_HEADER)
    for i, query in enumerate(trace.tokens):
        for j, key in enumerate(trace.tokens):
            w.writerow((i + 1, query, j + 1, key, repr(float(last[i, j]))))
    return out.getvalue().encode("utf-8")
