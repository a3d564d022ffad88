"""SVG files that draw the same in every reader: thin lines stay thin outside Qt too.

Qt's ``QSvgGenerator`` writes a cosmetic pen (pyqtgraph's usual pen: a width in screen pixels,
whatever the zoom) as ``vector-effect="non-scaling-stroke"`` on a shape inside a group such as
``transform="matrix(59.3,0,0,-343,95.6,440)"`` (a plot's data coordinates). LibreOffice, librsvg
and ImageMagick ignore ``vector-effect``: they scale the stroke with the group, and a 1 px outline
becomes a band 60 to 340 px wide that covers the picture.

``device_strokes(svg_bytes)`` rewrites such a file so that no stroke needs ``vector-effect``: every
such shape inside a scaled (or turned) group is written again as a ``<path>`` whose points are
already mapped by the group's transform, in a group of its own with the same style and no
transform, in the same painting order. Its stroke width and dashes are then in page units, as
Qt meant them. Text, images and shapes drawn with ordinary pens stay as they were.

    svg = device_strokes(svg)                 # bytes in, bytes out
    stroke_widths(svg)                        # each line's width as a reader without vector-effect draws it

Only the standard library's XML parser is used; nothing is fetched.
"""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
_NS = "{" + SVG + "}"
NSS = "non-scaling-stroke"
#: Attributes that place a shape; everything else (fill, fill-rule, opacity, ...) is kept on the path.
_GEOMETRY = {
    "rect": ("x", "y", "width", "height", "rx", "ry"),
    "polyline": ("points",),
    "polygon": ("points",),
    "line": ("x1", "y1", "x2", "y2"),
    "circle": ("cx", "cy", "r"),
    "ellipse": ("cx", "cy", "rx", "ry"),
    "path": ("d",),
}
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_TOKEN = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]|" + _NUMBER)
#: Four cubic Béziers draw a quarter circle each within 0.03 % of the radius.
_KAPPA = 0.5522847498

IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def parse_transform(text: str | None) -> tuple:
    """(a, b, c, d, e, f) of an SVG transform list (matrix, translate, scale, rotate; x' = a x + c y + e)."""
    m = IDENTITY
    for kind, args in re.findall(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)", text or ""):
        v = [float(x) for x in re.findall(_NUMBER, args)]
        if kind == "matrix" and len(v) == 6:
            step = tuple(v)
        elif kind == "translate":
            step = (1.0, 0.0, 0.0, 1.0, v[0], v[1] if len(v) > 1 else 0.0)
        elif kind == "scale":
            step = (v[0], 0.0, 0.0, v[1] if len(v) > 1 else v[0], 0.0, 0.0)
        elif kind == "rotate":
            r = math.radians(v[0])
            cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
            cos, sin = math.cos(r), math.sin(r)
            step = (cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy)
        elif kind == "skewX":
            step = (1.0, 0.0, math.tan(math.radians(v[0])), 1.0, 0.0, 0.0)
        else:
            step = (1.0, math.tan(math.radians(v[0])), 0.0, 1.0, 0.0, 0.0)
        m = compose(m, step)
    return m


def compose(outer: tuple, inner: tuple) -> tuple:
    """The transform that applies ``inner`` first, then ``outer``."""
    a, b, c, d, e, f = outer
    A, B, C, D, E, F = inner
    return (a * A + c * B, b * A + d * B, a * C + c * D, b * C + d * D, a * E + c * F + e, b * E + d * F + f)


def stretch(m: tuple) -> float:
    """How much the transform ``m`` widens a line at most (its largest singular value)."""
    a, b, c, d = m[:4]
    s = a * a + b * b + c * c + d * d
    det = a * d - b * c
    return math.sqrt(max(0.0, (s + math.sqrt(max(0.0, s * s - 4 * det * det))) / 2))


def _is_translation(m: tuple) -> bool:
    return abs(m[0] - 1) < 1e-9 and abs(m[3] - 1) < 1e-9 and abs(m[1]) < 1e-9 and abs(m[2]) < 1e-9


def _num(v: float) -> str:
    text = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _floats(text: str | None) -> list:
    return [float(x) for x in re.findall(_NUMBER, text or "")]


def _attr(el, name: str, default: float = 0.0) -> float:
    v = _floats(el.get(name))
    return v[0] if v else default


# ----- shapes as mapped path data -----------------------------------------------------------------------
class _Unmappable(Exception):
    """A shape this module does not map (an arc, a rounded rectangle, bad numbers)."""


def _map_path(d: str, m: tuple) -> str:
    """Path data with every point mapped by ``m``, in absolute commands (H and V become L)."""
    a, b, c, dd, e, f = m

    def pt(x, y):
        return f"{_num(a * x + c * y + e)},{_num(b * x + dd * y + f)}"

    tokens = _TOKEN.findall(d)
    out = []
    x = y = sx = sy = 0.0
    i, cmd = 0, None
    arity = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "Z": 0}
    while i < len(tokens):
        t = tokens[i]
        if t.isalpha():
            cmd = t
            i += 1
            if cmd in "Zz":
                out.append("Z")
                x, y = sx, sy
                continue
        elif cmd is None:
            raise _Unmappable("path data starts with a number")
        if cmd in "Aa":
            raise _Unmappable("arcs are not mapped")
        n = arity[cmd.upper()]
        try:
            v = [float(s) for s in tokens[i:i + n]]
        except ValueError:
            raise _Unmappable("a command letter where a number was expected") from None
        if len(v) < n:
            raise _Unmappable("a command lacks numbers")
        i += n
        rel = cmd.islower()
        up = cmd.upper()
        if up == "H":
            x = v[0] + (x if rel else 0.0)
            out.append("L" + pt(x, y))
        elif up == "V":
            y = v[0] + (y if rel else 0.0)
            out.append("L" + pt(x, y))
        else:
            pairs = [(v[k] + (x if rel else 0.0), v[k + 1] + (y if rel else 0.0)) for k in range(0, n, 2)]
            out.append(up + " ".join(pt(px, py) for px, py in pairs))
            x, y = pairs[-1]
            if up == "M":
                sx, sy = x, y
                cmd = "l" if rel else "L"  # further pairs after a move are lines
    return " ".join(out)


def _ellipse_path(cx: float, cy: float, rx: float, ry: float) -> str:
    kx, ky = rx * _KAPPA, ry * _KAPPA
    return (f"M{cx + rx},{cy} C{cx + rx},{cy + ky} {cx + kx},{cy + ry} {cx},{cy + ry} "
            f"C{cx - kx},{cy + ry} {cx - rx},{cy + ky} {cx - rx},{cy} "
            f"C{cx - rx},{cy - ky} {cx - kx},{cy - ry} {cx},{cy - ry} "
            f"C{cx + kx},{cy - ry} {cx + rx},{cy - ky} {cx + rx},{cy} Z")


def _shape_data(el) -> str:
    """The shape of ``el`` as path data in its own coordinates."""
    tag = el.tag[len(_NS):] if el.tag.startswith(_NS) else el.tag
    if tag == "path":
        return el.get("d", "")
    if tag == "rect":
        if _attr(el, "rx") or _attr(el, "ry"):
            raise _Unmappable("rounded rectangle")
        x, y, w, h = (_attr(el, k) for k in ("x", "y", "width", "height"))
        return f"M{x},{y} L{x + w},{y} L{x + w},{y + h} L{x},{y + h} Z"
    if tag in ("polyline", "polygon"):
        v = _floats(el.get("points"))
        if len(v) < 2:
            return ""
        pairs = [f"{v[k]},{v[k + 1]}" for k in range(0, len(v) - 1, 2)]
        return "M" + pairs[0] + (" L" + " ".join(pairs[1:]) if len(pairs) > 1 else "") + (" Z" if tag == "polygon" else "")
    if tag == "line":
        return f"M{_attr(el, 'x1')},{_attr(el, 'y1')} L{_attr(el, 'x2')},{_attr(el, 'y2')}"
    if tag == "circle":
        r = _attr(el, "r")
        return _ellipse_path(_attr(el, "cx"), _attr(el, "cy"), r, r)
    if tag == "ellipse":
        return _ellipse_path(_attr(el, "cx"), _attr(el, "cy"), _attr(el, "rx"), _attr(el, "ry"))
    raise _Unmappable(f"<{tag}> has no outline to map")


def _as_device_path(el, m: tuple):
    """A new ``<path>`` drawing ``el`` with its points mapped by ``m`` (its other attributes kept)."""
    tag = el.tag[len(_NS):] if el.tag.startswith(_NS) else el.tag
    d = _map_path(_shape_data(el), m)
    path = ET.Element(_NS + "path")
    skip = set(_GEOMETRY.get(tag, ())) | {"vector-effect", "transform"}
    for key, value in el.attrib.items():
        if key not in skip:
            path.set(key, value)
    if tag == "polyline" and "fill" not in el.attrib:
        path.set("fill", "none")  # a polyline is never filled by Qt; a path would be
    path.set("d", d)
    path.tail = el.tail
    return path


def _needs_mapping(el) -> bool:
    return el.get("vector-effect") == NSS


def _scaled_width_fallback(group, el, m: tuple) -> None:
    """A shape that cannot be mapped stays in its group with its stroke width (and dashes) divided by the
    group's scale: exact for an even scale, the closest single width for an uneven one."""
    scale = math.sqrt(abs(m[0] * m[3] - m[1] * m[2])) or 1.0
    for key in ("stroke-width", "stroke-dashoffset"):
        value = el.get(key, group.get(key))
        if value is not None and _floats(value):
            el.set(key, _num(_floats(value)[0] / scale))
    dashes = el.get("stroke-dasharray", group.get("stroke-dasharray"))
    if dashes and _floats(dashes):
        el.set("stroke-dasharray", ",".join(_num(v / scale) for v in _floats(dashes)))
    if "stroke-width" not in el.attrib:
        el.set("stroke-width", _num(1.0 / scale))
    del el.attrib["vector-effect"]


def _split_group(group) -> list:
    """``group`` as a list of groups in painting order: its unscaled shapes in copies without transform."""
    m = parse_transform(group.get("transform"))
    runs: list = []  # (device?, [elements])
    for child in list(group):
        device = False
        if _needs_mapping(child):
            try:
                child = _as_device_path(child, m)
                device = True
            except _Unmappable:
                _scaled_width_fallback(group, child, m)
        if runs and runs[-1][0] == device:
            runs[-1][1].append(child)
        else:
            runs.append((device, [child]))
    out = []
    for k, (device, children) in enumerate(runs):
        g = ET.Element(group.tag, dict(group.attrib))
        if device:
            del g.attrib["transform"]
        g.text = group.text
        g.tail = group.tail if k == len(runs) - 1 else "\n"
        g.extend(children)
        out.append(g)
    return out


def _rewrite(parent, m: tuple) -> bool:
    """Rewrite the shapes below ``parent`` (whose shapes are mapped to the page by ``m``); True when
    anything changed. QSvgGenerator writes one level of groups, each with the whole transform; a
    scaled group inside a scaled group is handled by the width fallback."""
    changed = False
    children = list(parent)
    for index in range(len(children) - 1, -1, -1):
        child = children[index]
        if child.tag == _NS + "g":
            inner = compose(m, parse_transform(child.get("transform")))
            if _is_translation(m) and not _is_translation(inner) and any(_needs_mapping(c) for c in child):
                parent.remove(child)
                for k, g in enumerate(_split_group(child)):
                    parent.insert(index + k, g)
                    _rewrite(g, compose(m, parse_transform(g.get("transform"))))
                changed = True
            else:
                changed |= _rewrite(child, inner)
        elif _needs_mapping(child):
            own = compose(m, parse_transform(child.get("transform")))
            if _is_translation(own):
                del child.attrib["vector-effect"]  # a translation does not widen a stroke
            else:
                _scaled_width_fallback(parent, child, own)
            changed = True
    return changed


#: Characters XML 1.0 does not allow in a file (control characters other than tab, new line and return), which Qt's
#: SVG writer copies from a text as they are: the file would be refused by every reader.
_NOT_IN_XML = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def device_strokes(data: bytes) -> bytes:
    """The SVG ``data`` with every non-scaling stroke drawn in page units (see the module's docstring), and any
    character XML does not allow shown as U+FFFD (the replacement character)."""
    ET.register_namespace("", SVG)
    ET.register_namespace("xlink", XLINK)
    data = _NOT_IN_XML.sub("\ufffd".encode(), data)
    root = ET.fromstring(data)
    changed = _rewrite(root, parse_transform(root.get("transform")))
    for clip in root.iter(_NS + "clipPath"):
        for el in clip.iter():
            if el.attrib.pop("vector-effect", None) is not None:  # a clip region is never stroked
                changed = True
    if not changed:
        return data
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True)


# ----- checking a file as a reader without vector-effect would draw it ----------------------------------
def stroke_widths(data: bytes):
    """(element tag, width in page units) of every stroked shape, as drawn by a reader that ignores
    ``vector-effect``: the stroke width times the stretch of every transform above the shape."""
    root = ET.fromstring(data)
    shapes = {_NS + t for t in _GEOMETRY}

    def walk(el, m, style):
        m = compose(m, parse_transform(el.get("transform")))
        style = dict(style)
        for key in ("stroke", "stroke-width"):
            if el.get(key) is not None:
                style[key] = el.get(key)
        if el.tag in shapes and style.get("stroke", "none") != "none":
            width = _floats(style.get("stroke-width", "1"))
            yield el.tag[len(_NS):], (width[0] if width else 1.0) * stretch(m)
        for child in el:
            if child.tag not in (_NS + "defs", _NS + "mask", _NS + "pattern", _NS + "clipPath"):
                yield from walk(child, m, style)

    yield from walk(root, IDENTITY, {"stroke": "none", "stroke-width": "1"})

