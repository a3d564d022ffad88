"""Checks for exported figures: how another reader would draw an SVG, and how close two pictures are.

    widest_stroke(svg)             # the widest line a reader that ignores vector-effect draws (page units)
    emptied_clips(svg)             # clip regions that hide every shape and text they hold
    render_with("rsvg", svg, 960, 600)  # librsvg's picture of an SVG (None when rsvg-convert is missing)
    svg_to_image(svg, size)        # Qt's own picture of an SVG (it honours vector-effect)
    differs(png_a, png_b)          # (share of 4 x 4 blocks that differ strongly, mean difference)
    pdf_pages(pdf)                 # how many pages a PDF has

The pure-Python checks run everywhere (CI installs nothing but Python packages); the renderers run
where they are installed (``rsvg-convert`` from librsvg2-bin, ``pdftoppm`` from poppler-utils).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtSvg

from qkv_gui.export.svg_strokes import IDENTITY, compose, parse_transform, stroke_widths

NS = "{http://www.w3.org/2000/svg}"
#: The export's short names of the nine panels, in lesson order, and of the experiments.
NAMES = ["embedding", "mixing", "qk-plane", "scaling", "softmax", "values", "heatmap", "matrices", "summary"]
EXPERIMENTS = ["scaling-lab", "heads", "concat", "compare", "train", "rope-lab"]
#: Experiments that need a trained model open: their own tests export them with one (tests/gui/labs).
MODEL_EXPERIMENTS = ["rollout"]
#: The widest line any figure draws on purpose, in page units (the page is 960 units wide): the whole
#: picture's arrows in the slide theme (4.5 x its 1.07 zoom = 4.8) and the heatmap's frame around the
#: selected cell (9). A cosmetic pen that a reader widens with its plot's scale is 60 to 3000 units wide.
MAX_STROKE = 12.0
#: Block size (pixels) for the picture comparison: text drawn by another font engine moves glyph edges by
#: a pixel or two; averaged over 4 x 4 blocks that mostly cancels, while a shape painted wrongly does not.
BLOCK = 4
#: A block "differs strongly" when one colour channel is more than this far apart (of 255).
STRONG = 96
#: At most this share of blocks may differ strongly. Measured for every panel and experiment at 960 px
#: (presets seed-the-cat-sat, pronoun, two-heads): librsvg 0.02 % to 0.8 % (glyph shapes), pdftoppm 0 %;
#: before the fix 61 % to 93 % (black and coloured bands), and 5.6 % when a plot's clip sat in the
#: wrong place and hid its bars and labels.
MAX_STRONG_SHARE = 0.03


def pdf_pages(data: bytes) -> int:
    """Count /Type /Page objects (not /Pages) in a PDF."""
    return len(re.findall(rb"/Type\s*/Page(?![a-z])", data))


def widest_stroke(svg: bytes) -> float:
    return max((w for _tag, w in stroke_widths(svg)), default=0.0)


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _points(el) -> list:
    """Points that span a shape or mark where a text starts, in the element's own coordinates."""
    tag = el.tag[len(NS):]
    get = lambda key: float(el.get(key, 0) or 0)  # noqa: E731
    if tag in ("text", "image"):
        return [(get("x"), get("y"))] + ([(get("x") + get("width"), get("y") + get("height"))] if tag == "image" else [])
    if tag == "rect":
        return [(get("x"), get("y")), (get("x") + get("width"), get("y") + get("height"))]
    if tag in ("circle", "ellipse"):
        rx, ry = (get("r"), get("r")) if tag == "circle" else (get("rx"), get("ry"))
        return [(get("cx") - rx, get("cy") - ry), (get("cx") + rx, get("cy") + ry)]
    source = el.get("points") if tag in ("polyline", "polygon") else el.get("d") if tag == "path" else None
    v = [float(x) for x in _NUMBER.findall(source or "")]
    return [(v[k], v[k + 1]) for k in range(0, len(v) - 1, 2)]


def _map(m, p):
    a, b, c, d, e, f = m
    return a * p[0] + c * p[1] + e, b * p[0] + d * p[1] + f


def _box(points) -> tuple:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def emptied_clips(svg: bytes) -> list:
    """Ids of clip regions that hold shapes or text but none of them reaching into the region's box
    (page units): a clip written in the wrong place hides a whole plot in every reader."""
    root = ET.fromstring(svg)
    boxes = {}
    for clip in root.iter(NS + "clipPath"):
        pts = [_map(parse_transform(el.get("transform")), p) for el in clip for p in _points(el)]
        if pts:
            x0, y0, x1, y1 = _box(pts)
            boxes[clip.get("id")] = (x0 - 1, y0 - 1, x1 + 1, y1 + 1)
    holds: dict = {}  # clip id -> [does each shape reach into it]

    def shapes(el, m):
        m = compose(m, parse_transform(el.get("transform")))
        if el.tag == NS + "g":
            for child in el:
                yield from shapes(child, m)
            return
        pts = _points(el)
        if pts:
            yield _box([_map(m, p) for p in pts])

    def walk(el, m):
        m = compose(m, parse_transform(el.get("transform")))
        ref = re.match(r"url\(#([^)]+)\)", el.get("clip-path", ""))
        if ref and ref.group(1) in boxes:
            c = boxes[ref.group(1)]
            for b in (box for child in el for box in shapes(child, m)):
                holds.setdefault(ref.group(1), []).append(b[0] <= c[2] and b[2] >= c[0] and b[1] <= c[3] and b[3] >= c[1])
        for child in el:
            if child.tag not in (NS + "defs", NS + "clipPath"):
                walk(child, m)

    walk(root, IDENTITY)
    return sorted(clip for clip, reach in holds.items() if not any(reach))


def texts(svg: bytes) -> list:
    root = ET.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter(NS + "text") if "".join(t.itertext()).strip()]


# ----- pictures ------------------------------------------------------------------------------------------
def rgb(image: QtGui.QImage) -> np.ndarray:
    """An image as an (h, w, 3) float array over white (transparent parts count as the page)."""
    flat = QtGui.QImage(image.size(), QtGui.QImage.Format.Format_RGB888)
    flat.fill(QtGui.QColor("white"))
    p = QtGui.QPainter(flat)
    p.drawImage(0, 0, image)
    p.end()
    a = np.frombuffer(flat.constBits(), np.uint8).reshape(flat.height(), flat.bytesPerLine())
    return a[:, : flat.width() * 3].reshape(flat.height(), flat.width(), 3).astype(float)


def differs(a: QtGui.QImage, b: QtGui.QImage) -> tuple:
    """(share of BLOCK x BLOCK blocks whose mean colour differs by more than STRONG in a channel,
    mean difference of the blocks in grey levels)."""
    x, y = rgb(a), rgb(b)
    assert x.shape == y.shape, (x.shape, y.shape)
    h, w = x.shape[0] // BLOCK * BLOCK, x.shape[1] // BLOCK * BLOCK

    def blocks(z):
        return z[:h, :w].reshape(h // BLOCK, BLOCK, w // BLOCK, BLOCK, 3).mean(axis=(1, 3))

    diff = np.abs(blocks(x) - blocks(y)).max(axis=2)
    return float((diff > STRONG).mean()), float(diff.mean())


def svg_to_image(data: bytes, size: QtCore.QSize) -> QtGui.QImage:
    """Qt's own picture of an SVG, ``size`` pixels, on white."""
    renderer = QtSvg.QSvgRenderer(QtCore.QByteArray(data))
    assert renderer.isValid()
    image = QtGui.QImage(size, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QtGui.QColor("white"))
    p = QtGui.QPainter(image)
    p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    renderer.render(p)
    p.end()
    return image


RENDERERS = {
    "rsvg": ("rsvg-convert", "librsvg2-bin"),
    "pdftoppm": ("pdftoppm", "poppler-utils"),
}


def have(renderer: str) -> bool:
    return shutil.which(RENDERERS[renderer][0]) is not None


def render_with(renderer: str, data: bytes, width: int, height: int, dpi: float = 96.0) -> QtGui.QImage | None:
    """The picture another program draws of ``data`` (an SVG for rsvg, a one-page PDF for pdftoppm):
    ``width`` x ``height`` pixels for rsvg, at ``dpi`` for pdftoppm; None when that program is missing."""
    if not have(renderer):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / ("in.svg" if renderer == "rsvg" else "in.pdf")
        src.write_bytes(data)
        out = Path(tmp) / "out.png"
        if renderer == "rsvg":
            cmd = ["rsvg-convert", "-w", str(width), "-h", str(height), "-b", "white", "-o", str(out), str(src)]
        else:
            cmd = ["pdftoppm", "-png", "-r", f"{dpi:g}", "-singlefile", str(src), str(out.with_suffix(""))]
        subprocess.run(cmd, check=True, capture_output=True, timeout=60)
        image = QtGui.QImage(str(out))
    assert not image.isNull()
    return image
