"""The palette at run time: switching it, and what follows it (Qt's palette, style sheets, plot items).

    colours.use("dark")                  # the app in the dark palette: every widget is told
    colours.hub().changed.connect(slot)  # slot(palette) after each switch
    colours.sheet(label, "color: $soft_text; padding: 0 4px;", palette)   # a style sheet that follows
    colours.paint(axis, palette, text="ink_key", label="ink_key")        # a plot item that follows

``use`` sets ``style.current()``, gives the application a QPalette made from the palette (docks, menus,
tables, dialogs follow it; the standard palette gives back the system's own), sets every style sheet
made with ``sheet`` again, and emits ``hub().changed``. Panels follow the signal (``Panel.set_colours``):
they recolour the items they made with ``paint`` and their pictures' chrome (``recolour_views``), then
draw again. A style sheet template names roles with ``$``: ``$foreground``, ``$ink_query``,
``$side_note_bg`` (see ``style.Palette.colour``).
"""
from __future__ import annotations

import gc
from string import Template

from PySide6 import QtCore, QtGui, QtWidgets

from . import style

#: QGraphicsItem.data key: the roles an item was painted with (``paint``).
ROLES_KEY = 0x5150
#: Widget property: the style sheet template of a widget (``sheet``).
SHEET_PROPERTY = "qkvSheetTemplate"

_original_qpalette: QtGui.QPalette | None = None
_applied = style.STANDARD  # the palette the application's widgets have now
_hub = None


class PaletteHub(QtCore.QObject):
    """Tells of a new palette: ``changed(palette)``."""

    changed = QtCore.Signal(object)


def hub() -> PaletteHub:
    """The one hub of the application."""
    global _hub
    if _hub is None:
        _hub = PaletteHub()
    return _hub


# ----- colours as Qt takes them -----------------------------------------------------------------------
def qcolor(value) -> QtGui.QColor:
    """A QColor of '#RRGGBB' or an (r, g, b[, a]) tuple."""
    if isinstance(value, QtGui.QColor):
        return QtGui.QColor(value)
    if isinstance(value, (tuple, list)):
        return QtGui.QColor(*[int(v) for v in value])
    return QtGui.QColor(value)


def css(value) -> str:
    """A colour as a style sheet writes it: '#RRGGBB', or rgba(r, g, b, a) for a tuple with alpha."""
    if isinstance(value, (tuple, list)):
        r, g, b, *a = (int(v) for v in value)
        return f"rgba({r}, {g}, {b}, {a[0] if a else 255})"
    return value


def _app_palette_now() -> QtGui.QPalette:
    global _original_qpalette
    if _original_qpalette is None:
        _original_qpalette = QtGui.QPalette(QtWidgets.QApplication.palette())
    return _original_qpalette


_CHROME_ROLES = {
    "window": "Window", "window_text": "WindowText", "base": "Base", "alternate_base": "AlternateBase",
    "text": "Text", "button": "Button", "button_text": "ButtonText", "bright_text": "BrightText",
    "highlight": "Highlight", "highlighted_text": "HighlightedText", "link": "Link", "link_visited": "LinkVisited",
    "tooltip_base": "ToolTipBase", "tooltip_text": "ToolTipText", "placeholder_text": "PlaceholderText",
    "light": "Light", "midlight": "Midlight", "mid": "Mid", "dark": "Dark", "shadow": "Shadow",
}


def qt_palette(p: style.Palette) -> QtGui.QPalette:
    """The QPalette of a palette: the system's own for the standard look, else one made from ``p.chrome``.
    Every role is set, so that a widget given it keeps it (a default palette would be inherited instead)."""
    original = _app_palette_now()
    Role, Group = QtGui.QPalette.ColorRole, QtGui.QPalette.ColorGroup
    qp = QtGui.QPalette()
    for group in (Group.Active, Group.Inactive, Group.Disabled):
        for role in range(Role.NColorRoles.value):
            if role == Role.NoRole.value:
                continue
            qp.setBrush(group, Role(role), original.brush(group, Role(role)))
    if p.chrome is None:
        return qp
    for key, role_name in _CHROME_ROLES.items():
        colour = qcolor(p.chrome[key])
        for group in (Group.Active, Group.Inactive, Group.Disabled):
            qp.setColor(group, getattr(Role, role_name), colour)
    disabled = qcolor(p.chrome["disabled_text"])
    for role in (Role.WindowText, Role.Text, Role.ButtonText, Role.PlaceholderText):
        qp.setColor(Group.Disabled, role, disabled)
    return qp


# ----- switching ---------------------------------------------------------------------------------------
def _windows(app: QtWidgets.QApplication) -> list:
    """The app's top-level widgets, listed with Python's garbage collector held back.

    Qt hands PySide the list of windows as it is, and PySide then makes a Python list of them. Making it
    allocates memory, which can start a collection. pyqtgraph's plots leave windows without a parent to
    the collector: their menus. A collection at that moment deletes some of them while they are still in
    Qt's list, and PySide then reads freed memory. The test suite crashed there at times, inside
    ``topLevelWidgets``."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return app.topLevelWidgets()
    finally:
        if enabled:
            gc.enable()


def use(name_or_palette) -> style.Palette:
    """Make ``name_or_palette`` the palette of the app: Qt's palette, the style sheets, and every listener of
    ``hub().changed``. Nothing happens when it is the palette in use already."""
    global _applied
    new = style.palette(name_or_palette)
    app = QtWidgets.QApplication.instance()
    if new is style.current() and _applied is new:
        return new
    style.use(new)
    if app is not None:
        qp = qt_palette(new)  # (the system's palette is kept before the first change)
        app.setPalette(qp)
        QtWidgets.QToolTip.setPalette(qp)
        _applied = new
        for top in _windows(app):
            restyle(top, new)
    hub().changed.emit(new)
    if app is not None:
        for top in _windows(app):
            repolish_sheeted(top)
    return new


def repolish_sheeted(root: QtWidgets.QWidget) -> None:
    """Polish again the widgets that a style sheet governs (theirs or an ancestor's): Qt gives them their
    palette when they are polished and does not follow a new application palette (a text box in the lesson
    pane kept a white ground in the dark palette)."""
    todo = [(root, False)]
    while todo:
        w, sheeted = todo.pop()
        sheeted = sheeted or bool(w.styleSheet())
        if sheeted:
            w.style().unpolish(w)
            w.style().polish(w)
            w.update()
        children = w.findChildren(QtWidgets.QWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly)
        todo.extend((c, sheeted) for c in children)


# ----- a part of the window that keeps the standard palette ---------------------------------------------------
class _PaletteKeeper(QtCore.QObject):
    """Keeps a palette on the widgets it watches: when a style sheet's polish gives one of them the
    application's colours (Qt does so to a widget with a style sheet of its own, or under one), the roles that
    came from the application go back to the kept palette; the roles the style sheet set stay."""

    def __init__(self, kept: QtGui.QPalette):
        super().__init__()
        self.kept = kept
        self._busy = False

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt naming)
        if event.type() == QtCore.QEvent.Type.PaletteChange and not self._busy and isinstance(obj, QtWidgets.QWidget):
            app, now = QtWidgets.QApplication.palette(), obj.palette()
            fixed, changed = QtGui.QPalette(now), False
            Group = QtGui.QPalette.ColorGroup
            for role_name in _CHROME_ROLES.values():
                role = getattr(QtGui.QPalette.ColorRole, role_name)
                for group in (Group.Active, Group.Inactive, Group.Disabled):
                    if now.color(group, role) == app.color(group, role) != self.kept.color(group, role):
                        fixed.setColor(group, role, self.kept.color(group, role))
                        changed = True
            if changed:
                self._busy = True
                try:
                    obj.setPalette(fixed)
                finally:
                    self._busy = False
        return False


def keep_palette(widgets, p: style.Palette) -> QtCore.QObject:
    """Give ``widgets`` the QPalette of ``p`` and keep it on them whatever the application's palette and style
    sheets do (``release_palette`` ends it). Returns the keeper."""
    qp = qt_palette(p)
    keeper = _PaletteKeeper(qp)
    for w in widgets:
        w.setPalette(qp)
        w.installEventFilter(keeper)
    return keeper


def release_palette(widgets, keeper: QtCore.QObject) -> None:
    """The application's palette again for ``widgets`` kept by ``keeper``."""
    for w in widgets:
        w.removeEventFilter(keeper)
        w.setPalette(QtGui.QPalette())
    keeper.deleteLater()


# ----- style sheets --------------------------------------------------------------------------------------
def _sheet_values(p: style.Palette) -> dict:
    return {name: css(value) for name, value in p.roles().items()}


def fill_template(template: str, p: style.Palette) -> str:
    """A style sheet or HTML template with its ``$role`` names replaced by the palette's colours."""
    return Template(template).substitute(_sheet_values(p))


def sheet(widget: QtWidgets.QWidget, template: str, p: style.Palette | None = None) -> None:
    """Give ``widget`` the style sheet ``template`` in palette ``p`` (default: the one in use), and keep the
    template so that a new palette sets it again."""
    widget.setProperty(SHEET_PROPERTY, template)
    text = fill_template(template, p or style.current())
    if widget.styleSheet() != text:
        widget.setStyleSheet(text)


#: Widget property: the widget keeps its own palette for itself and its children (a panel: ``Panel.colours``);
#: ``restyle`` from above leaves them to it.
OWN_COLOURS_PROPERTY = "qkvOwnColours"


def restyle(root: QtWidgets.QWidget, p: style.Palette) -> None:
    """Set again, in palette ``p``, the style sheets made with ``sheet`` in ``root`` and its children, but not
    in a child that keeps its own palette (a panel) nor in that child's children."""
    todo = [root]
    while todo:
        w = todo.pop()
        template = w.property(SHEET_PROPERTY)
        if template:
            text = fill_template(template, p)
            if w.styleSheet() != text:
                w.setStyleSheet(text)
        children = w.findChildren(QtWidgets.QWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly)
        todo.extend(c for c in children if not c.property(OWN_COLOURS_PROPERTY))


# ----- plot items ------------------------------------------------------------------------------------------
def _role_colour(p: style.Palette, spec) -> QtGui.QColor:
    """The colour of a role spec: "ink_query", or ("fill_weight", alpha)."""
    if isinstance(spec, tuple):
        role, alpha = spec
        c = qcolor(p.colour(role))
        c.setAlpha(int(alpha))
        return c
    return qcolor(p.colour(spec))


def recoloured_pen(pen: QtGui.QPen, colour: QtGui.QColor) -> QtGui.QPen:
    pen = QtGui.QPen(pen)
    pen.setColor(colour)
    return pen


def recoloured_brush(brush: QtGui.QBrush, colour: QtGui.QColor) -> QtGui.QBrush:
    style_ = brush.style()
    if style_ == QtCore.Qt.BrushStyle.NoBrush:
        style_ = QtCore.Qt.BrushStyle.SolidPattern
    return QtGui.QBrush(colour, style_)


def paint(item, p: style.Palette, **roles) -> None:
    """Colour ``item`` from palette roles, and remember the roles: a new palette colours it again
    (``recolour_scene``). Widths, dashes and hatch patterns stay as they are; only colours change.

    The roles an item takes:
        AxisItem        pen (line and ticks), text (tick labels), label (its title)
        LabelItem       text
        TextLabel       text, fill, border (its box)
        a Qt shape      pen, brush          (rectangles, paths, ellipses; a line item: pen)
        Bars            pen, brush          (a bar chart, ``drawing.plot_marks``)
        PlotDataItem    pen, symbol_pen, symbol_brush
        ColorBarItem    table (a colour table's name: "weights", "signed", "diff")
    A role is a flat role name ("ink_query") or (name, alpha)."""
    kept = dict(roles_of(item) or {})
    kept.update(roles)
    QtWidgets.QGraphicsItem.setData(item, ROLES_KEY, kept)  # (pyqtgraph's data items have a setData of their own)
    _apply(item, p, roles)


def roles_of(item) -> dict | None:
    """The roles ``paint`` gave ``item``, or None."""
    return QtWidgets.QGraphicsItem.data(item, ROLES_KEY)


def repaint(item, p: style.Palette) -> bool:
    """Colour ``item`` again from the roles ``paint`` gave it; False when it has none."""
    roles = roles_of(item)
    if not roles:
        return False
    _apply(item, p, roles)
    return True


def _apply(item, p: style.Palette, roles: dict) -> None:
    import pyqtgraph as pg

    c = {k: (v if k == "table" else _role_colour(p, v)) for k, v in roles.items()}
    own = getattr(item, "apply_colours", None)
    if callable(own):  # an item of ours colours itself (a text label, bars)
        own(c)
    elif isinstance(item, pg.AxisItem):
        label = roles.get("label", roles.get("text"))
        label = p.colour(label) if isinstance(label, str) else None  # as the palette writes it ('#B23C12')
        _axis_colours(item, c.get("pen"), c.get("text"), label)
    elif isinstance(item, pg.ColorBarItem):
        if "table" in c:
            from .colour_tables import colour_map, spec

            made = (c["table"], spec(c["table"], p))
            if getattr(item, "_qkv_table", None) != made:  # (a new map redraws the whole bar)
                item.setColorMap(colour_map(c["table"], p))
                item._qkv_table = made
    elif isinstance(item, pg.LabelItem):
        if "text" in c and qcolor(item.opts.get("color") or "#000000") != c["text"]:
            # as the palette writes it ('#24345E'); a see-through one as a QColor (pyqtgraph reads '#RRGGBBAA'
            # where Qt writes '#AARRGGBB')
            spec = roles["text"]
            item.setText(item.text, color=p.colour(spec) if isinstance(spec, str) else c["text"])
    elif isinstance(item, pg.PlotDataItem):
        if "pen" in c:
            item.setPen(recoloured_pen(pg.mkPen(item.opts.get("pen")), c["pen"]))
        if "symbol_pen" in c:
            item.setSymbolPen(recoloured_pen(pg.mkPen(item.opts.get("symbolPen")), c["symbol_pen"]))
        if "symbol_brush" in c:
            item.setSymbolBrush(recoloured_brush(pg.mkBrush(item.opts.get("symbolBrush")), c["symbol_brush"]))
    elif isinstance(item, (QtWidgets.QAbstractGraphicsShapeItem, QtWidgets.QGraphicsLineItem)):
        if "pen" in c:
            item.setPen(recoloured_pen(item.pen(), c["pen"]))
        if "brush" in c and isinstance(item, QtWidgets.QAbstractGraphicsShapeItem):
            item.setBrush(recoloured_brush(item.brush(), c["brush"]))
    else:
        raise TypeError(f"paint: cannot colour a {type(item).__name__}")


def _axis_colours(axis, pen: QtGui.QColor | None, text: QtGui.QColor | None, label: str | None) -> None:
    """An axis' line, tick labels and title (a '#RRGGBB' colour) in these colours (None: leave that part as it
    is). Setting the pens sets pyqtgraph's title colour too: the title's is set last."""
    title = axis.labelStyle.get("color")
    if pen is not None and axis.pen().color() != pen:
        axis.setPen(recoloured_pen(axis.pen(), pen))
    if text is not None and axis.textPen().color() != text:
        axis.setTextPen(recoloured_pen(axis.textPen(), text))
    label = label or title
    if label is not None and axis.labelStyle.get("color") != label:
        axis.labelStyle = {**axis.labelStyle, "color": label}
        axis._updateLabel()


def recolour_scene(scene: QtWidgets.QGraphicsScene, p: style.Palette) -> None:
    """Every item of a picture in palette ``p``: the items ``paint`` coloured, grids of cells, and the chrome
    pyqtgraph made in the standard colours (axes, titles): in ``p``'s foreground."""
    import pyqtgraph as pg

    scene.qkv_colours = p  # labels added later take it (TextLabel)
    fg = qcolor(p.foreground)
    for item in scene.items():
        if callable(getattr(item, "set_colours", None)):
            item.set_colours(p)
        if repaint(item, p):
            continue
        if isinstance(item, pg.AxisItem):
            _axis_colours(item, fg, fg, p.foreground)
        elif isinstance(item, pg.LabelItem):
            want = None if p is style.STANDARD else fg.name()  # None: pyqtgraph's own, the standard foreground
            if item.opts.get("color") != want:
                item.opts["color"] = want
                item.setText(item.text)


def recolour_views(widget: QtWidgets.QWidget, p: style.Palette) -> None:
    """The backgrounds and items of every picture in ``widget`` in palette ``p`` (a view with no background of
    its own keeps none)."""
    import pyqtgraph as pg

    for view in widget.findChildren(QtWidgets.QGraphicsView):
        if isinstance(view, pg.GraphicsView):
            view.setBackground(qcolor(p.background))
        elif view.backgroundBrush().style() != QtCore.Qt.BrushStyle.NoBrush:
            view.setBackgroundBrush(QtGui.QBrush(qcolor(p.background)))
        scene = view.scene()
        if scene is not None:
            recolour_scene(scene, p)
