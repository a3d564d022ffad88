"""Thin lines written in page units: the rewrite keeps every shape where it was and every other thing as it was.

The reference for "where it was" is Qt's own SVG renderer, which honours ``vector-effect``: the file
before and after the rewrite must give the same picture there, while the widths that a reader
without ``vector-effect`` would draw drop from hundreds of units to the pen's own width.
"""
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from qkv_gui.export.figures import svg_strokes

from tests.gui.support.figure_checks import differs, svg_to_image, widest_stroke

NS = "{http://www.w3.org/2000/svg}"
NSS = 'vector-effect="non-scaling-stroke"'

# A plot's data coordinates (x 0..4 over 400 units, y -1..1 upside down over 200 units), as Qt writes them.
PLOT = f"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg width="100mm" height="60mm" viewBox="0 0 500 300" xmlns="http://www.w3.org/2000/svg" version="1.2">
<g fill="none" stroke="black" stroke-width="1">
<g fill="#ffffff" stroke="none" transform="matrix(1,0,0,1,0,0)"><rect x="0" y="0" width="500" height="300"/></g>
<g fill="#f2c94c" fill-opacity="1" stroke="#c9a227" stroke-width="2" transform="matrix(100,0,0,-100,50,150)">
<rect {NSS} x="0" y="0" width="1" height="0.5"/>
<rect {NSS} x="1.5" y="-0.8" width="1" height="0.8"/>
</g>
<g fill="none" stroke="#222222" stroke-dasharray="8,4" stroke-width="2" transform="matrix(100,0,0,-100,50,150)">
<polyline fill="none" {NSS} points="0,0 4,0 "/>
<path {NSS} d="M0,1 h1 v-0.5 l1,0.25 C2.5,0.75 3,0.75 3.5,0.5 Z"/>
<circle {NSS} cx="3" cy="-0.5" r="0.2"/>
<rect vector-effect="none" stroke-width="0.01" x="3.8" y="-1" width="0.1" height="0.1"/>
</g>
<g fill="#222222" stroke="none" transform="matrix(0,-1,1,0,20,200)">
<text x="0" y="0" font-size="12">turned</text>
</g>
<g fill="none" stroke="#3b528b" stroke-width="3" transform="matrix(1,0,0,1,10,20)">
<polyline fill="none" {NSS} points="0,0 30,0 "/>
</g>
</g>
</svg>
""".encode()


def render_qt(data: bytes) -> QtGui.QImage:
    return svg_to_image(data, QtCore.QSize(500, 300))


def test_shapes_are_mapped_to_page_units_and_keep_their_place(qapp):
    out = svg_strokes.device_strokes(PLOT)
    assert NSS.encode() not in out
    assert widest_stroke(PLOT) == pytest.approx(200.0)  # a 2-unit pen under a 100 x scale
    assert widest_stroke(out) == pytest.approx(3.0)  # the widest pen itself, nothing widened
    # Qt honours vector-effect, so it draws the original right: the rewrite must look the same there.
    share, mean = differs(render_qt(PLOT), render_qt(out))
    assert share == 0.0 and mean < 0.5


def test_points_are_those_of_the_transform_worked_by_hand():
    root = ET.fromstring(svg_strokes.device_strokes(PLOT))
    groups = [g for g in root.iter(NS + "g") if g.get("transform") is None and g.get("stroke") != "black"]
    paths = [p.get("d") for g in groups for p in g.iter(NS + "path")]
    # x' = 100 x + 50, y' = -100 y + 150
    assert paths[0] == "M50,150 L150,150 L150,100 L50,100 Z"  # rect 0..1 x 0..0.5
    assert paths[1] == "M200,230 L300,230 L300,150 L200,150 Z"  # a bar hanging below zero
    assert paths[2] == "M50,150 L450,150"  # the polyline: a path, not filled
    # h, v and l are relative: (0,1) (1,1) (1,0.5) (2,0.75); the curve's points are mapped too
    assert paths[3] == "M50,50 L150,50 L150,100 L250,75 C300,75 350,75 400,100 Z"
    circle = paths[4]
    xs = [float(v.split(",")[0]) for v in circle.replace("M", "").replace("C", "").replace("Z", "").split()]
    assert min(xs) == pytest.approx(330) and max(xs) == pytest.approx(370)  # cx 3 -> 350, r 0.2 -> 20


def test_style_order_text_and_ordinary_pens_are_kept():
    root = ET.fromstring(svg_strokes.device_strokes(PLOT))
    top = list(next(iter(root)))  # the groups in painting order
    fills = [g.get("fill") for g in top]
    assert fills == ["#ffffff", "#f2c94c", "none", "none", "#222222", "none"]
    dashed = top[2]
    assert dashed.get("stroke-dasharray") == "8,4" and dashed.get("stroke-width") == "2"
    assert [p.get("fill") for p in dashed] == ["none", None, None]  # a polyline stays unfilled
    # The ordinary pen (vector-effect none) stays in its scaled group, after the mapped shapes.
    kept = top[3]
    assert kept.get("transform") == "matrix(100,0,0,-100,50,150)"
    assert [(e.tag, e.get("x")) for e in kept] == [(NS + "rect", "3.8")]
    assert "".join(top[4].itertext()).strip() == "turned" and top[4].get("transform") == "matrix(0,-1,1,0,20,200)"
    # A translated group needs no mapping: the attribute goes, the points stay.
    moved = top[5]
    assert moved.get("transform") == "matrix(1,0,0,1,10,20)" and moved[0].get("points") == "0,0 30,0 "
    assert moved[0].get("vector-effect") is None


def test_a_file_without_non_scaling_strokes_is_returned_unchanged():
    plain = PLOT.replace(NSS.encode(), b"")
    assert svg_strokes.device_strokes(plain) is plain


def test_an_arc_keeps_its_group_with_its_width_divided_by_the_scale():
    data = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><g stroke="#000" stroke-width="2" '
            f'transform="scale(10)"><path {NSS} d="M1,1 A2,2 0 0 1 5,5"/></g></svg>').encode()
    out = svg_strokes.device_strokes(data)
    path = ET.fromstring(out).find(f"{NS}g/{NS}path")
    assert path.get("stroke-width") == "0.2" and path.get("d") == "M1,1 A2,2 0 0 1 5,5"
    assert widest_stroke(out) == pytest.approx(2.0)


def test_transform_lists_compose_in_order():
    m = svg_strokes.parse_transform("translate(10,20) scale(2,3)")
    assert m == (2.0, 0.0, 0.0, 3.0, 10.0, 20.0)
    r = svg_strokes.parse_transform("rotate(90)")
    assert np.allclose(r, (0, 1, -1, 0, 0, 0))
    assert svg_strokes.stretch((100.0, 0.0, 0.0, -3.0, 5.0, 5.0)) == pytest.approx(100.0)


def test_a_character_xml_does_not_allow_becomes_the_replacement_character():
    svg = ('<?xml version="1.0" encoding="UTF-8"?><svg xmlns="http://www.w3.org/2000/svg"><text>a\x01b\tc</text>'
           '</svg>').encode()
    with pytest.raises(ET.ParseError):
        ET.fromstring(svg)
    out = svg_strokes.device_strokes(svg)
    assert "".join(ET.fromstring(out).itertext()) == "a\ufffdb\tc"
