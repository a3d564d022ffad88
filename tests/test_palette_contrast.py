"""The palettes (View → Theme) read: WCAG AA contrast of every text role against the background it is drawn
on, and of the marks that carry meaning (bars, arrows, outlines, hatches) against theirs, in each palette.

Plain pytest, no Qt: ``qkv_gui.look.contrast`` is pure Python, and ``qkv_gui.look.style`` imports Qt only inside
functions. The standard palette keeps today's colours; where they fall short of AA the test names each
shortfall (so that a change to them, or a new one, shows).
"""
import colorsys

import numpy as np
import pytest

from qkv_gui.look import style
from qkv_gui.look.contrast import AA_GRAPHICS, AA_LARGE, AA_TEXT, contrast_ratio, luminance, over, relative_luminance

ROLES = ("x", "query", "key", "value", "output", "weight")

#: (text role, background role): words drawn in that colour on that ground, at normal size (4.5:1).
TEXT = [
    *[(r, "background") for r in ("foreground", "soft_text", "quiet_text", "hint_text", "faint_text", "dark_grey",
                                  "grey", "muted", "selected", "target", "warn", "no_keys_ink", "error_ink",
                                  "up_ink", "down_ink")],
    *[(f"ink_{r}", "background") for r in ROLES],
    ("no_keys_ink", "no_keys_fill"),  # the red 0 of a row with no key left, in its row-sum cell
    ("no_keys_ink", "label_box"),  # "no key left" in its box across the row
    ("foreground", "label_box"),
    ("negative_ink", "negative_bg"),  # a negative number in the tables
    ("error_ink", "error_bg"),  # a refused entry's note
    ("error_ink", "negative_bg"),  # an unknown placeholder in the lesson
    ("note_ink", "note_bg"),
    ("ink_x", "pale_x"), ("ink_key", "pale_key"), ("ink_weight", "pale_weight"), ("ink_output", "pale_output"),
    ("ink_value", "head_bands_0"), ("ink_value", "head_bands_1"),  # the heads' names on their bands
    ("foreground", "token_bg"),  # the token column of the token table
    ("foreground", "hover_bg"), ("foreground", "plain_box"),
    *[(f"ink_{r}", "side_note_bg") for r in ROLES], ("foreground", "side_note_bg"),  # lesson side notes
    ("foreground", "worked_bg"),  # worked arithmetic
    ("foreground", "answer_bg"), ("ink_value", "answer_bg"),  # a revealed answer
    ("cover_ink", "cover_bg"),  # the cover over the panels during an exercise
    ("foreground", "example_note_bg"),
    *[(f"on_fill_{r}", f"fill_{r}") for r in ("x", "query", "key", "value")],  # token names in the matrices' strips
]
#: (mark role, ground role): marks that carry meaning (3:1).
GRAPHICS = [
    *[(f"fill_{r}", "background") for r in ROLES],  # bars, arrows
    *[(f"edge_{r}", "background") for r in ("x", "output")],
    ("mid_grey", "background"),  # raw-score bars in the lab
    ("curve", "background"), ("hatch", "background"), ("selected", "background"), ("target", "background"),
    ("mask_hatch", "mask_fill"),  # the hatch that names why a cell is masked
    ("selected", "halo"), ("target", "halo"),  # outlines on their halo, so they read on any cell
    ("no_keys_ink", "no_keys_fill"),
]
#: (text, ground) of the QPalette that docks, menus, tables and dialogs get (not the standard palette's: it is
#: the system's own).
CHROME = [("window_text", "window"), ("text", "base"), ("text", "alternate_base"), ("button_text", "button"),
          ("highlighted_text", "highlight"), ("tooltip_text", "tooltip_base"), ("link", "base"),
          ("placeholder_text", "base")]

#: Where today's colours (the standard palette, which must not change) fall short of AA.
STANDARD_SHORTFALLS = {
    ("text", "faint_text", "background"),  # 4.48
    ("text", "muted", "background"),  # 3.45
    ("text", "ink_value", "head_bands_0"),  # 3.20
    ("text", "cover_ink", "cover_bg"),  # 3.21
    ("graphics", "fill_x", "background"),  # butter yellow on white, 1.59
    ("graphics", "fill_query", "background"),
    ("graphics", "fill_key", "background"),
    ("graphics", "fill_value", "background"),
    ("graphics", "fill_output", "background"),
    ("graphics", "edge_x", "background"),  # the x bars' outline, 2.42
    ("text", "on_fill_x", "fill_x"),  # token names in the matrices' strips: the role's ink on its fill, 3.94
    ("text", "on_fill_query", "fill_query"),  # 3.52
    ("text", "on_fill_key", "fill_key"),  # 2.56
    ("text", "on_fill_value", "fill_value"),  # 3.20
}


def _ratio(p: style.Palette, fg: str, bg: str) -> float:
    ground = p.colour(bg)
    if len(ground) == 4 and not isinstance(ground, str):  # a see-through box: over the background
        ground = over(ground, p.background)
    return contrast_ratio(p.colour(fg), ground)


def shortfalls(p: style.Palette) -> set:
    out = set()
    for kind, pairs, need in (("text", TEXT, AA_TEXT), ("graphics", GRAPHICS, AA_GRAPHICS)):
        for fg, bg in pairs:
            if _ratio(p, fg, bg) < need:
                out.add((kind, fg, bg))
    return out


# ----- the contrast function itself -------------------------------------------------------------------------
def _reference_luminance(hex_colour: str) -> float:
    """WCAG 2's definition, written out for one colour with no numpy."""
    h = hex_colour.lstrip("#")
    channels = []
    for k in (0, 2, 4):
        c = int(h[k:k + 2], 16) / 255.0
        channels.append(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = channels
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("colour", ["#000000", "#FFFFFF", "#777777", "#F2C94C", "#2F3FA8", "#146B4C", "#0A0B0C"])
def test_relative_luminance_follows_the_wcag_definition(colour):
    assert relative_luminance(colour) == pytest.approx(_reference_luminance(colour), abs=1e-12)
    assert luminance(np.array([[int(colour[k:k + 2], 16) for k in (1, 3, 5)]]))[0] == pytest.approx(
        _reference_luminance(colour), abs=1e-12)


def test_contrast_ratio_runs_from_1_to_21_either_way_round():
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#FFFFFF", "#000000") == pytest.approx(21.0)
    assert contrast_ratio("#8C9EFF", "#8C9EFF") == pytest.approx(1.0)
    a, b = "#777777", "#FFFFFF"
    expected = (1.0 + 0.05) / (_reference_luminance(a) + 0.05)
    assert contrast_ratio(a, b) == pytest.approx(expected) == pytest.approx(contrast_ratio(b, a))
    assert contrast_ratio((119, 119, 119), "#FFF") == pytest.approx(expected)
    # a see-through colour is laid over the other one first: half-black on white is mid grey
    assert contrast_ratio((0, 0, 0, 0), "#FFFFFF") == pytest.approx(1.0)
    assert contrast_ratio((0, 0, 0, 255), "#FFFFFF") == pytest.approx(21.0)


# ----- the palettes -------------------------------------------------------------------------------------------
def test_every_palette_names_the_same_roles_and_each_is_a_colour():
    names = set(style.STANDARD.roles())
    for p in style.PALETTES.values():
        assert set(p.roles()) == names, p.name
        for role, value in p.roles().items():
            contrast_ratio(value, "#808080")  # parses: '#RRGGBB' or an RGB(A) tuple
    assert list(style.PALETTES) == ["standard", "high-contrast", "dark"]
    assert style.STANDARD.chrome is None and style.HIGH_CONTRAST.chrome and style.DARK.chrome


def test_the_standard_palette_is_today_s_colours():
    p = style.STANDARD
    assert p.fill is style.FILL and p.ink is style.INK and p.pale is style.PALE and p.edge is style.EDGE
    assert (p.background, p.foreground, p.muted, p.selected, p.target) == (
        style.BACKGROUND, style.FOREGROUND, style.MUTED, style.SELECTED, style.TARGET)
    assert p.weights_map == style.COLORMAP == "viridis"


@pytest.mark.parametrize("name", ["high-contrast", "dark"])
def test_every_text_reads_in_the_new_palettes(name):
    p = style.PALETTES[name]
    low = {(fg, bg): round(_ratio(p, fg, bg), 2) for fg, bg in TEXT if _ratio(p, fg, bg) < AA_TEXT}
    assert low == {}, f"text below {AA_TEXT}:1 in {name}"


@pytest.mark.parametrize("name", ["high-contrast", "dark"])
def test_bars_outlines_and_hatches_stand_out_in_the_new_palettes(name):
    p = style.PALETTES[name]
    low = {(fg, bg): round(_ratio(p, fg, bg), 2) for fg, bg in GRAPHICS if _ratio(p, fg, bg) < AA_GRAPHICS}
    assert low == {}, f"marks below {AA_GRAPHICS}:1 in {name}"


def test_high_contrast_text_is_stronger_still():
    # AAA (7:1) for every word on the background in the high-contrast palette
    p = style.HIGH_CONTRAST
    for fg, bg in TEXT:
        if bg == "background":
            assert _ratio(p, fg, bg) >= 7.0, fg


@pytest.mark.parametrize("name", ["high-contrast", "dark"])
def test_docks_menus_and_tables_read_in_the_new_palettes(name):
    chrome = style.PALETTES[name].chrome
    for fg, bg in CHROME:
        assert contrast_ratio(chrome[fg], chrome[bg]) >= AA_TEXT, (fg, bg)
    # a panel's large text (the hint instead of a picture) on the window's ground
    p = style.PALETTES[name]
    assert contrast_ratio(p.hint_text, chrome["window"]) >= AA_LARGE
    assert contrast_ratio(p.foreground, chrome["window"]) >= AA_TEXT


def test_the_standard_palette_falls_short_only_where_it_always_did():
    assert shortfalls(style.STANDARD) == STANDARD_SHORTFALLS


def _hue(colour) -> float:
    r, g, b = (int(colour[k:k + 2], 16) / 255.0 for k in (1, 3, 5))
    return colorsys.rgb_to_hsv(r, g, b)[0] * 360.0


@pytest.mark.parametrize("name", ["high-contrast", "dark"])
def test_the_roles_keep_their_hues(name):
    # x butter, query lavender, key coral, value mint: the same hue (within 20 degrees) in every palette
    p = style.PALETTES[name]
    for kind in ("fill", "ink"):
        for role in ("x", "query", "key", "value", "output"):
            ours, standard = _hue(getattr(p, kind)[role]), _hue(getattr(style.STANDARD, kind)[role])
            assert min(abs(ours - standard), 360 - abs(ours - standard)) <= 20, (kind, role)


def test_palettes_by_name_and_the_one_in_use():
    assert style.palette("dark") is style.DARK and style.palette(style.DARK) is style.DARK
    with pytest.raises(ValueError, match="expected one of standard, high-contrast, dark"):
        style.palette("purple")
    assert style.current() is style.STANDARD
    try:
        assert style.use("high-contrast") is style.HIGH_CONTRAST is style.current()
    finally:
        style.use("standard")
    assert style.DARK.colour("ink_query") == style.DARK.ink["query"]
    assert style.DARK.colour("side_note_bg") == style.DARK.side_note[0]
    with pytest.raises(KeyError):
        style.DARK.colour("ink_nothing")


def test_signed_numbers_in_the_dark_keep_zero_dark_and_both_signs_bright():
    """Signed numbers (the matrices, the embedding strips, the dot terms): in the dark palette a zero is a
    dark grey close to the ground (most cells of a hand-made example are 0: white zeros were bright blocks),
    and both signs stand out from it and from the ground."""
    p = style.palette("dark")
    below, zero, above = ("#%02X%02X%02X" % tuple(c) for c in p.signed_map)
    assert contrast_ratio(zero, p.background) < 1.5
    for end in (below, above):
        assert contrast_ratio(end, p.background) >= AA_GRAPHICS
        assert contrast_ratio(end, zero) >= AA_GRAPHICS
    assert style.palette("standard").signed_map == ((178, 34, 34), (255, 255, 255), (40, 90, 160))
