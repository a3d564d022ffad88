"""Figures and numbers from the export actions: the Export menu and its remembered options, Ctrl+E on the panel
in use, a panel's context menu, the open experiments in "export all" and the deck, and the panel on screen
left as it was. The export actions are given the session, the panel grid and the settings: they are built on
a plain main window with the experiments beside them (``make_parts``), not in ``MainWindow``."""
from PySide6 import QtCore, QtWidgets

from qkv_gui.export import figures as export

from tests.gui.conftest import settle
from tests.gui.support.figure_checks import EXPERIMENTS, NAMES, pdf_pages
from tests.gui.support.user_input import click_in_window


def test_the_on_screen_panel_is_untouched(make_parts, tmp_path):
    window = make_parts()
    panel = window.panels["heatmapPanel"]
    before = panel.size(), panel.theme, panel.paint_count
    window.exporter.export_panel("heatmapPanel", tmp_path / "h.png")
    settle()
    assert (panel.size(), panel.theme) == before[:2]
    assert panel.isVisible() and panel.paint_count == before[2]


def test_menu_actions_export_copy_and_remember_options(make_parts, tmp_path, qtbot):
    window = make_parts()
    ex = window.exporter
    menu_texts = [a.text().replace("&", "") for a in ex.menu.actions()]
    assert any("deck" in t for t in menu_texts) and any("data" in t for t in menu_texts)
    assert ex.actions["panel"].shortcut().toString() == "Ctrl+E"

    # Options are remembered in QSettings between runs.
    window.settings.setValue("export/size_mode", "width")
    window.settings.setValue("export/width", 800)
    window.settings.setValue("export/theme", "screen")
    opts, fmt = ex.options()
    assert opts.width == 800 and opts.theme == "screen" and fmt == "png"
    ex.ask_options = lambda: (export.ExportOptions(scale=3.0, transparent=True, theme="slide"), "svg")
    assert ex.edit_options()
    opts, fmt = ex.options()
    assert (opts.width, opts.scale, opts.transparent, opts.theme, fmt) == (None, 3.0, True, "slide", "svg")

    # Ctrl+E exports the panel shown alone; the save dialog suggests its short name.
    window.grid.focus("softmaxPanel")
    settle()
    asked = []
    ex.ask_save_path = lambda suggested, filters, selected: asked.append(suggested) or str(tmp_path / suggested)
    ex.actions["panel"].trigger()
    assert asked == ["softmax.svg"] and (tmp_path / "softmax.svg").stat().st_size > 1000
    window.grid.focus(None)
    settle()

    # The last-clicked panel otherwise.
    click_in_window(window.panels["heatmapPanel"].canvas.viewport())
    assert ex.current_panel() == "heatmapPanel"
    asked.clear()
    ex.actions["panel"].trigger()
    assert asked == ["heatmap.svg"]

    # Export all panels into a folder, in the remembered format; deck; data; copy to the clipboard.
    ex.ask_folder = lambda title: str(tmp_path / "all")
    (tmp_path / "all").mkdir()
    written = ex.export_all()
    assert sorted(p.name for p in written) == sorted(f"{n}.svg" for n in NAMES)
    deck = ex.export_deck(tmp_path / "deck.pdf")
    assert pdf_pages(deck.read_bytes()) == 1 + len(NAMES)
    data = ex.export_data(tmp_path / "all")
    assert (tmp_path / "all" / "weights.csv").is_file() and len(data) == 12
    image = ex.copy_figure("summaryPanel")
    clip = QtWidgets.QApplication.clipboard().image()
    assert image.width() == 2880 and clip.width() == image.width()

    # A folder that cannot be written is reported, nothing crashes.
    assert ex.export_panel("heatmapPanel", tmp_path / "missing" / "h.png") is None
    assert window.errors and "Could not export" in window.errors[-1]


def test_panel_context_menu_offers_export(make_parts):
    window = make_parts()
    frame = window.grid.frames["valuesPanel"]
    assert frame.contextMenuPolicy() == QtCore.Qt.ContextMenuPolicy.CustomContextMenu
    menu = window.exporter.panel_menu("valuesPanel")
    texts = [a.text() for a in menu.actions()]
    assert "Export this panel\u2026" in texts and "Copy figure" in texts
    import pyqtgraph as pg

    for view in window.panels["heatmapPanel"].findChildren(pg.GraphicsView):
        # pyqtgraph's own (broken) "Export..." is replaced by ours.
        assert [a.text() for a in view.scene().contextMenu][0] == "Export this panel\u2026"


def test_export_all_and_deck_take_the_open_experiments(make_parts, tmp_path):
    window = make_parts()
    ex = window.exporter
    window.settings.setValue("export/format", "png")
    window.settings.setValue("export/size_mode", "width")
    window.settings.setValue("export/width", 480)
    assert ex.export_names() == NAMES  # no experiment opened
    window.experiments.open("dockScalingLab")
    window.experiments.open("dockCompare")
    settle()
    assert ex.export_names() == NAMES + ["scaling-lab"]  # compare without A would only be a hint
    window.session.pin()
    settle()
    assert ex.export_names() == NAMES + ["scaling-lab", "compare"]
    window.experiments.open("dockHeads")
    window.experiments.open("dockConcat")
    window.experiments.open("dockTrain")
    window.experiments.open("dockRopeLab")
    settle()
    assert ex.export_names() == NAMES + EXPERIMENTS
    (tmp_path / "all").mkdir()
    written = ex.export_all(tmp_path / "all")
    assert sorted(p.name for p in written) == sorted(f"{n}.png" for n in NAMES + EXPERIMENTS)
    window.experiments.docks["dockHeads"].close()
    window.experiments.docks["dockConcat"].close()
    window.experiments.docks["dockScalingLab"].close()
    window.experiments.docks["dockTrain"].close()
    window.experiments.docks["dockRopeLab"].close()
    settle()
    assert ex.export_names() == NAMES + ["compare"]
    deck = ex.export_deck(tmp_path / "deck.pdf")
    assert pdf_pages(deck.read_bytes()) == 1 + len(NAMES) + 1

    # Ctrl+E and the context menu reach an experiment panel too.
    panel = window.experiments.panels["comparePanel"]
    click_in_window(panel.canvas.viewport())
    assert ex.current_panel() == "comparePanel"
    asked = []
    ex.ask_save_path = lambda suggested, filters, selected: asked.append(suggested) or str(tmp_path / suggested)
    ex.actions["panel"].trigger()
    assert asked == ["compare.png"] and (tmp_path / "compare.png").stat().st_size > 1000
    assert panel.contextMenuPolicy() == QtCore.Qt.ContextMenuPolicy.CustomContextMenu

    # A click in a panel of the grid, then in the experiment's dock floating as a window of its own.
    click_in_window(window.panels["softmaxPanel"].view.viewport())
    assert ex.current_panel() == "softmaxPanel"
    dock = panel.parentWidget()
    dock.setFloating(True)
    settle()
    assert dock.windowHandle() is not window.windowHandle()
    click_in_window(panel.canvas.viewport())
    assert ex.current_panel() == "comparePanel"
