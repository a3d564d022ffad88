"""The visual language: one colour per role, fonts, and the weights colormap.

    x (token embedding)  butter yellow
    query                lavender blue
    key                  coral
    value                mint
    attention weights    viridis (perceptually uniform)

``FILL`` colours are for bars, arrows and cell backgrounds; ``INK`` colours
are darker versions of the same hue, readable as text on a light background;
``PALE`` colours are light versions, for bands and boxes behind things. Every
colour a panel draws with is named here.

The module-level names (``FILL``, ``INK``, ``BACKGROUND``, ...) are the colours of
the standard look. A ``Palette`` holds every colour role the app uses, for one
look: ``STANDARD`` (those names), ``HIGH_CONTRAST`` (light, every text at least
7:1 where it can be, bars at least 3:1 against the background) and ``DARK``
(light ink on a dark ground, for a dim room). The roles keep their hues in every
palette: x butter, query lavender, key coral, value mint. ``current()`` is the
palette in use; ``use(name)`` changes it (``qkv_gui.look.colours.use`` also tells the
widgets). ``Palette.colour("ink_query")`` names a role by one flat name, as the
style sheet templates and ``colours.paint`` do.
"""
from __future__ import annotations

from qkv_engine import fixed

FILL = {
    "x": "#F2C94C",
    "query": "#8C9EFF",
    "key": "#FF8A65",
    "value": "#5FC9A0",
    "output": "#5FC9A0",
    "weight": "#3B528B",
}
INK = {
    "x": "#7A5C00",
    "query": "#2F3FA8",
    "key": "#B23C12",
    "value": "#146B4C",
    "output": "#146B4C",
    "weight": "#24345E",
}
#: Light versions of the roles' colours: the band behind the selected token (x) or key, the summary's boxes.
PALE = {
    "x": "#FFF3C4",
    "key": "#FFF1EC",
    "weight": "#E8ECF6",
    "output": "#E3F5EE",
}
#: Outlines of bars wide enough to show one.
EDGE = {"x": "#C9A227", "output": "#0B4F37"}
#: Short names of the roles as they appear in labels.
ROLE_LABEL = {"x": "x", "query": "q", "key": "k", "value": "v", "output": "output"}

BACKGROUND = "#FFFFFF"
FOREGROUND = "#222222"
MUTED = "#8A8A8A"  # faint items: other keys, guide lines
GRID = "#D9D9D9"
SELECTED = "#111111"  # outline of the selected token / cell
TARGET = "#C2185B"  # dashed outline of a cell the training target asks for ("Learn the weights")
NEGATIVE_BG = "#FDE8E8"  # table cells holding a negative number
WARN = "#B00020"  # something is wrong or missing: a column-wise softmax, a row with no key left
SOFT_TEXT = "#333333"  # notes under a picture (in italics)
QUIET_TEXT = "#555555"  # second-rank words: a meter's title, a legend's aside
HINT_TEXT = "#666666"  # the message a panel shows instead of its picture
FAINT_TEXT = "#777777"  # a rule written under numbers
DARK_GREY = "#4A4A4A"  # text on the plane (θ), raw scores in the lab
GREY = "#6E6E6E"  # the angle's wedge, words on the flat ends of the softmax curve
CURVE = "#5A5A5A"  # the softmax curve
MID_GREY = "#7A7A7A"  # raw-score bars in the lab
HATCH = "#8C8C8C"  # hatching over masked keys
SHADE = (120, 120, 120, 38)  # the flat ends of the softmax curve
HOVER_BG = "#EDEDED"  # the output coordinate under the mouse
PLAIN_BOX = "#F4F4F4"  # a box with no role (the summary's scaling step)
DIAL = ("#D8D8D8", "#ECECEC")  # the relevance meter: negative half (hatched), positive half
NOTE_INK, NOTE_BG = "#5A4A00", "#FFF6D6"  # a note about the picture (a flat view of many dimensions)
LABEL_BOX = (255, 255, 255, 235)  # nearly opaque white behind a label drawn over lines
COLORMAP = "viridis"

#: Base point size for panel text on screen; the lesson presenter mode scales it.
BASE_POINT_SIZE = 10


def configure_pyqtgraph() -> None:
    """Light background, dark text, antialiasing: readable on screens and projectors."""
    import pyqtgraph as pg

    pg.setConfigOptions(background=BACKGROUND, foreground=FOREGROUND, antialias=True, imageAxisOrder="row-major")


def scaled_font(base, w: int, h: int, scale: float = 1.0):
    """``base`` at the house size in the 3 x 3 grid, growing (up to 1.6x) when a panel of size
    ``w`` x ``h`` is shown large, times the theme's ``scale``."""
    from PySide6 import QtGui

    f = QtGui.QFont(base)
    grow = max(1.0, min(1.6, min(w / 420.0, h / 300.0)))
    f.setPointSizeF(BASE_POINT_SIZE * grow * scale)
    return f


def colormap():
    import pyqtgraph as pg

    return pg.colormap.get(COLORMAP)


def fmt(v: float, decimals: int = 2) -> str:
    """A number as shown in panels: fixed decimals, never '-0.00'."""
    return fixed(float(v), decimals)


from dataclasses import dataclass, field  # noqa: E402


# ----- palettes -----------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Palette:
    """Every colour role of the app, for one look. Colours are '#RRGGBB' or (r, g, b, a) tuples."""

    name: str  # the settings' word for it: "standard", "high-contrast", "dark"
    title: str  # the View menu's word for it
    dark: bool  # light ink on a dark ground
    fill: dict  # bars, arrows, cell backgrounds, by role (x, query, key, value, output, weight)
    ink: dict  # text in the role's colour on ``background``
    pale: dict  # bands and boxes behind things (x, key, weight, output), under ``ink`` text
    edge: dict  # outlines of bars wide enough to show one (x, output)
    on_fill: dict  # words written on a role's ``fill`` (the token names in the matrices' coloured strips)
    background: str  # pictures and panels
    foreground: str  # text and lines with no role
    muted: str  # faint items: other keys, guide lines, a frame
    grid: str  # grid lines
    selected: str  # outline of the selected token or cell
    halo: str  # the line under an outline, so that it reads on any colour of cell
    target: str  # the training target's dashed outline and its words
    warn: str  # something is wrong or missing
    no_keys_ink: str  # a row with no key left: its words and outline ...
    no_keys_fill: str  # ... and the fill of its row-sum cell
    negative_bg: str  # table cells holding a negative number ...
    negative_ink: str  # ... and their number
    error_ink: str  # refused input, a wrong answer, an unknown placeholder
    error_bg: str  # behind a refused entry's note
    soft_text: str  # notes under a picture, info lines
    quiet_text: str  # second-rank words
    hint_text: str  # the message a panel shows instead of its picture
    faint_text: str  # a rule written under numbers
    dark_grey: str  # strong grey words (text on the plane, raw scores, a plain remark)
    grey: str  # the angle's wedge, words on the flat ends of the softmax curve
    curve: str  # the softmax curve
    mid_grey: str  # raw-score bars in the lab
    hatch: str  # hatching over masked keys (bars)
    shade: tuple  # the flat ends of the softmax curve (RGBA)
    hover_bg: str  # the output coordinate under the mouse
    plain_box: str  # a box with no role
    dial: tuple  # the relevance meter: negative half (hatched), positive half
    note_ink: str  # a note about the picture ...
    note_bg: str  # ... and its box
    label_box: tuple  # behind a label drawn over lines (RGBA)
    mask_fill: str  # a masked cell's cover ...
    mask_hatch: str  # ... and its hatch (the hatch names the reason)
    veil: tuple  # over a knocked-out tile (RGBA)
    cross: str  # the cross over it
    light_ink: str  # numbers written on dark cells ...
    dark_ink: str  # ... and on light cells
    up_ink: str  # a change up (B - A > 0), as the diverging map's red end
    down_ink: str  # a change down, as its blue end
    head_bands: tuple  # the alternating bands of the heads' blocks, under ``ink['value']`` names
    token_bg: str  # the token column of the token table
    side_note: tuple  # (background, edge) of a lesson side note
    worked: tuple  # (background, edge) of worked arithmetic
    answer: tuple  # (background, edge) of a revealed answer
    table_edge: str  # lines of the lesson's small tables
    cover: tuple  # (background, edge, ink) of the cover over the panels during an exercise
    example_note: tuple  # (background, edge) of the designed example's note
    weights_map: str  # the attention weights' colour map (pyqtgraph's name)
    signed_map: tuple  # below zero, zero, above zero (RGB): any signed numbers
    diff_map: str  # a change B - A centred on 0 (pyqtgraph's name)
    chrome: dict | None = field(default=None)  # QPalette colours of docks, menus and tables (None: the system's)

    def colour(self, role: str):
        """The colour of a role by its flat name: "foreground", "ink_query", "fill_x", "pale_key", "edge_output",
        "side_note_bg", "cover_ink", ..."""
        value = _roles(self).get(role)
        if value is None:
            raise KeyError(f"no colour role {role!r}")
        return value

    def roles(self) -> dict:
        """Every role's flat name and colour."""
        return dict(_roles(self))


_PAIRS = {"side_note": ("bg", "edge"), "worked": ("bg", "edge"), "answer": ("bg", "edge"),
          "cover": ("bg", "edge", "ink"), "example_note": ("bg", "edge"), "dial": ("negative", "positive"),
          "head_bands": ("0", "1")}
_ROLE_CACHE: dict = {}


def _roles(p: Palette) -> dict:
    roles = _ROLE_CACHE.get(id(p))
    if roles is None or roles[0] is not p:
        flat = {}
        for name in p.__dataclass_fields__:
            value = getattr(p, name)
            if name in ("name", "title", "dark", "chrome", "weights_map", "signed_map", "diff_map"):
                continue
            if isinstance(value, dict):
                flat.update({f"{name}_{k}": v for k, v in value.items()})
            elif name in _PAIRS:
                flat.update({f"{name}_{k}": v for k, v in zip(_PAIRS[name], value)})
            else:
                flat[name] = value
        roles = _ROLE_CACHE[id(p)] = (p, flat)
    return roles[1]


STANDARD = Palette(
    name="standard", title="Standard", dark=False,
    fill=FILL, ink=INK, pale=PALE, edge=EDGE, on_fill=INK,
    background=BACKGROUND, foreground=FOREGROUND, muted=MUTED, grid=GRID, selected=SELECTED, halo="#FFFFFF",
    target=TARGET, warn=WARN, no_keys_ink="#B71C1C", no_keys_fill="#FDE3E3",
    negative_bg=NEGATIVE_BG, negative_ink="#A11D1D", error_ink="#A11D1D", error_bg="#FFF4F4",
    soft_text=SOFT_TEXT, quiet_text=QUIET_TEXT, hint_text=HINT_TEXT, faint_text=FAINT_TEXT,
    dark_grey=DARK_GREY, grey=GREY, curve=CURVE, mid_grey=MID_GREY, hatch=HATCH, shade=SHADE,
    hover_bg=HOVER_BG, plain_box=PLAIN_BOX, dial=DIAL, note_ink=NOTE_INK, note_bg=NOTE_BG, label_box=LABEL_BOX,
    mask_fill="#E2E2E2", mask_hatch="#696969", veil=(255, 255, 255, 170), cross="#555555",
    light_ink="#FFFFFF", dark_ink="#111111", up_ink="#B2182B", down_ink="#2150A8",
    head_bands=(FILL["value"], "#B5E8D3"), token_bg="#FFE698",
    side_note=("#F4F1E8", "#C9BFA3"), worked=("#F5F6FA", "#C5CAE0"), answer=("#EEF8F3", "#A9D8C4"),
    table_edge="#BBBBBB", cover=("#F7F7F2", "#C9BFA3", MUTED), example_note=("#FBF8EE", "#E2D9BC"),
    weights_map=COLORMAP, signed_map=((178, 34, 34), (255, 255, 255), (40, 90, 160)), diff_map="CET-D1",
    chrome=None,
)

#: Light, with the strongest inks: every text at least 7:1 on white where the hue allows, bars and arrows at
#: least 3:1 against the background (the butter yellow turns ochre for that), black outlines.
HIGH_CONTRAST = Palette(
    name="high-contrast", title="High contrast", dark=False,
    fill={"x": "#B08400", "query": "#5B6BF5", "key": "#E0542A", "value": "#1A946A", "output": "#1A946A",
          "weight": "#3B528B"},
    ink={"x": "#5C4300", "query": "#1F2C8F", "key": "#8F2C0A", "value": "#0B5237", "output": "#0B5237",
         "weight": "#1B2749"},
    pale={"x": "#FFF0B3", "key": "#FFE6DC", "weight": "#DDE3F2", "output": "#D9F2E7"},
    edge={"x": "#5C4300", "output": "#0B5237"},
    on_fill={"x": "#1A1400", "query": "#05081F", "key": "#1F0800", "value": "#00140D", "output": "#00140D",
             "weight": "#FFFFFF"},
    background="#FFFFFF", foreground="#000000", muted="#595959", grid="#B0B0B0", selected="#000000",
    halo="#FFFFFF", target="#A0004A", warn="#9A0018", no_keys_ink="#9A0018", no_keys_fill="#FFE0E0",
    negative_bg="#FFE5E5", negative_ink="#8B0000", error_ink="#8B0000", error_bg="#FFF0F0",
    soft_text="#1A1A1A", quiet_text="#333333", hint_text="#3D3D3D", faint_text="#4D4D4D",
    dark_grey="#262626", grey="#4D4D4D", curve="#333333", mid_grey="#5E5E5E", hatch="#3D3D3D",
    shade=(90, 90, 90, 48), hover_bg="#E0E0E0", plain_box="#F0F0F0", dial=("#BDBDBD", "#E6E6E6"),
    note_ink="#3D3000", note_bg="#FFF3C4", label_box=(255, 255, 255, 245),
    mask_fill="#D6D6D6", mask_hatch="#262626", veil=(255, 255, 255, 190), cross="#262626",
    light_ink="#FFFFFF", dark_ink="#000000", up_ink="#9E0F22", down_ink="#12388F",
    head_bands=("#7FD9B5", "#C8F0DE"), token_bg="#FFF0B3",
    side_note=("#FFF8E0", "#7A6A3A"), worked=("#F0F3FF", "#4A5A9A"), answer=("#E8F7EF", "#2E7D5B"),
    table_edge="#555555", cover=("#FFFFFF", "#333333", "#333333"), example_note=("#FFFBEA", "#5A4E2A"),
    weights_map=COLORMAP, signed_map=((178, 34, 34), (255, 255, 255), (40, 90, 160)), diff_map="CET-D1",
    chrome={"window": "#FFFFFF", "window_text": "#000000", "base": "#FFFFFF", "alternate_base": "#F2F2F2",
            "text": "#000000", "button": "#F0F0F0", "button_text": "#000000", "bright_text": "#FFFFFF",
            "highlight": "#0033AA", "highlighted_text": "#FFFFFF", "link": "#0033AA", "link_visited": "#551A8B",
            "tooltip_base": "#FFFFFF", "tooltip_text": "#000000", "placeholder_text": "#595959",
            "disabled_text": "#6E6E6E", "light": "#FFFFFF", "midlight": "#E0E0E0", "mid": "#808080",
            "dark": "#404040", "shadow": "#000000"},
)

#: Light ink on a dark ground, for a dim room: the roles' fills as in the standard look (they read on dark),
#: lighter inks, dark boxes; the weights' colour map stays viridis, which reads on dark too.
DARK = Palette(
    name="dark", title="Dark", dark=True,
    fill={"x": "#F2C94C", "query": "#8C9EFF", "key": "#FF8A65", "value": "#5FC9A0", "output": "#5FC9A0",
          "weight": "#6A8FD8"},
    ink={"x": "#FFD75E", "query": "#A9B5FF", "key": "#FF9F80", "value": "#6FDDB0", "output": "#6FDDB0",
         "weight": "#9CB6F0"},
    pale={"x": "#3B3315", "key": "#3F2219", "weight": "#1E2740", "output": "#15342A"},
    edge={"x": "#FFE28A", "output": "#9BEBC8"},
    on_fill={"x": "#2A1F00", "query": "#0A0F3D", "key": "#3A0F00", "value": "#00261A", "output": "#00261A",
             "weight": "#000000"},
    background="#141414", foreground="#E6E6E6", muted="#9E9E9E", grid="#3C3C3C", selected="#FFFFFF",
    halo="#000000", target="#FF6FA8", warn="#FF6B6B", no_keys_ink="#FF7A7A", no_keys_fill="#4A1C1C",
    negative_bg="#4A1E1E", negative_ink="#FF9E9E", error_ink="#FF8A8A", error_bg="#3A1A1A",
    soft_text="#D6D6D6", quiet_text="#BDBDBD", hint_text="#B3B3B3", faint_text="#A6A6A6",
    dark_grey="#CFCFCF", grey="#A8A8A8", curve="#C4C4C4", mid_grey="#8F8F8F", hatch="#9A9A9A",
    shade=(200, 200, 200, 40), hover_bg="#2C2C2C", plain_box="#242424", dial=("#8A8A8A", "#4A4A4A"),
    note_ink="#F2DC8C", note_bg="#2E2710", label_box=(20, 20, 20, 235),
    mask_fill="#3A3A3A", mask_hatch="#BDBDBD", veil=(20, 20, 20, 170), cross="#CFCFCF",
    light_ink="#FFFFFF", dark_ink="#000000", up_ink="#FF7B8A", down_ink="#82A8FF",
    head_bands=("#1E5C46", "#173F32"), token_bg="#3B3315",
    side_note=("#2A2618", "#6B5F3A"), worked=("#1C2030", "#4A5580"), answer=("#15291F", "#3F7A5E"),
    table_edge="#5A5A5A", cover=("#1E1E1E", "#6B5F3A", "#BDBDBD"), example_note=("#26231A", "#5A4F30"),
    # signed numbers and differences: zero is a dark grey here (a white zero was a bright block on the dark
    # ground: most cells of a hand-made example are 0), the two signs bright red and blue
    weights_map=COLORMAP, signed_map=((235, 95, 95), (44, 44, 44), (95, 155, 245)), diff_map="CET-D4",
    chrome={"window": "#262626", "window_text": "#E6E6E6", "base": "#141414", "alternate_base": "#1C1C1C",
            "text": "#E6E6E6", "button": "#363636", "button_text": "#E6E6E6", "bright_text": "#FFFFFF",
            "highlight": "#3D6FD9", "highlighted_text": "#FFFFFF", "link": "#8AB4FF", "link_visited": "#C5A3FF",
            "tooltip_base": "#363636", "tooltip_text": "#E6E6E6", "placeholder_text": "#999999",
            "disabled_text": "#808080", "light": "#484848", "midlight": "#3C3C3C", "mid": "#2E2E2E",
            "dark": "#101010", "shadow": "#000000"},
)

#: The palettes by their settings' word, in the View menu's order.
PALETTES = {p.name: p for p in (STANDARD, HIGH_CONTRAST, DARK)}
_current = STANDARD


def current() -> Palette:
    """The palette in use now."""
    return _current


def palette(name_or_palette) -> Palette:
    """A palette from its name ("standard", "high-contrast", "dark") or itself; ValueError for anything else."""
    if isinstance(name_or_palette, Palette):
        return name_or_palette
    try:
        return PALETTES[str(name_or_palette)]
    except KeyError:
        raise ValueError(f"palette: expected one of {', '.join(PALETTES)}, got {name_or_palette!r}") from None


def use(name_or_palette) -> Palette:
    """Make a palette the one in use (widgets are told by ``qkv_gui.look.colours.use``, which calls this)."""
    global _current
    _current = palette(name_or_palette)
    return _current




@dataclass(frozen=True)
class Theme:
    """How panels are drawn: on screen, on a slide, or presented to a classroom."""

    name: str = "screen"
    font_scale: float = 1.0  # multiplies every font size
    line_scale: float = 1.0  # multiplies every line width (colours, background too, come from the Palette)
    control_scale: float | None = None  # multiplies the font of buttons and choosers (None: font_scale)

    @property
    def controls(self) -> float:
        """The factor on the font of a panel's controls (buttons, choosers, tabs)."""
        return self.font_scale if self.control_scale is None else self.control_scale


SCREEN = Theme("screen")
#: For exported figures: larger text and thicker lines than on screen.
SLIDE = Theme("slide", font_scale=1.6, line_scale=1.8)


#: In presenter mode a panel's controls grow with the text only up to this factor: a row of buttons at
#: twice the size would make the panel wider than a small projector's screen.
PRESENTER_CONTROLS_MAX = 1.25


def presenter(font_scale: float) -> Theme:
    """The theme of presenter mode at a given text size."""
    return Theme("presenter", font_scale=font_scale, line_scale=max(1.0, font_scale * 0.8),
                 control_scale=min(font_scale, PRESENTER_CONTROLS_MAX))
