"""Guard against a Qt binding that corrupts Python's reference counts.

PySide6 6.12.0 on Python 3.11 and older loses one reference to ``None`` on every event-loop turn and
every repaint; after a few thousand the interpreter aborts. pyproject.toml keeps such versions out;
this test fails if one slips back in.
"""
import gc
import sys

from PySide6 import QtWidgets

from tests.gui.conftest import settle


def test_event_loop_and_repaints_keep_none_alive(make_panel):
    from qkv_gui.panels.steps.attention_heatmap import HeatmapPanel

    panel = make_panel(HeatmapPanel)
    settle()
    gc.collect()
    before = sys.getrefcount(None)
    for _ in range(200):
        QtWidgets.QApplication.processEvents()
        panel.repaint()
    gc.collect()
    after = sys.getrefcount(None)
    assert after >= before - 20, f"references to None fell from {before} to {after}"
