"""Named features in the editors: names in the token table's and the grids' headers, renamed in place by
double-clicking a header (one undo step each), the bias rows under the grids, and big grids (a trained
model's 384 dials) that scroll and jump to a row."""
import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from qkv_engine import Scenario, explain
from qkv_gui.editors import InputsWidget, TokenTableWidget, WeightGridsWidget
from qkv_gui.editors.section_fit import UNIFORM_TEXT

from tests.gui.conftest import settle
from tests.gui.support.user_input import type_into_cell

Qt = QtCore.Qt
H, V = Qt.Orientation.Horizontal, Qt.Orientation.Vertical


def header_text(view, orientation, section):
    return view.model().headerData(section, orientation)


def double_click_header(qtbot, view, orientation, section):
    header = view.horizontalHeader() if orientation == H else view.verticalHeader()
    middle = header.sectionViewportPosition(section) + header.sectionSize(section) // 2
    pos = QtCore.QPoint(middle, header.height() // 2) if orientation == H \
        else QtCore.QPoint(header.width() // 2, middle)
    qtbot.mouseDClick(header.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    settle()
    return header.findChild(QtWidgets.QLineEdit, "headerNameEdit")


def rename(qtbot, view, orientation, section, text):
    edit = double_click_header(qtbot, view, orientation, section)
    assert edit is not None and edit.isVisible() and edit.hasFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text) if text else edit.clear()
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    settle()
    return edit


def every_x_header(inputs, dim):
    """What each place shows for embedding dimension ``dim``: the token table's column, the rows of the grids."""
    table = inputs.tokens.view
    out = [header_text(table, H, dim + 1)]
    out += [header_text(inputs.grids.views[m], V, dim) for m in ("w_q", "w_k", "w_v")]
    return out


def test_designed_example_shows_its_names_in_every_header(make_panel):
    inputs = make_panel(InputsWidget, preset="designed-it", size=(520, 900))
    assert every_x_header(inputs, 2) == ["x3 \u00b7 pronoun"] + ["x3 \u00b7 pronoun \u2192"] * 3
    q = inputs.grids.views["w_q"]
    assert header_text(q, H, 0) == "\u2192 q1 \u00b7\nlooks for animate"  # the name on a second line
    assert header_text(inputs.grids.views["w_k"], H, 1) == "\u2192 k2 \u00b7\nis a noun"
    assert "Double-click to name it" in q.model().headerData(0, H, Qt.ItemDataRole.ToolTipRole)


def test_double_click_a_column_header_type_a_name_and_every_place_shows_it(make_panel, qtbot):
    inputs = make_panel(InputsWidget, preset="seed-the-cat-sat", size=(520, 900))
    session = inputs.tokens.session
    before = session.undo_stack.count()
    assert every_x_header(inputs, 1) == ["x2"] + ["x2 \u2192"] * 3
    rename(qtbot, inputs.tokens.view, H, 2, "furry")  # column 0 holds the token text: x2 is column 2
    assert session.scenario.feature_names == ("", "furry", "", "")
    assert every_x_header(inputs, 1) == ["x2 \u00b7 furry"] + ["x2 \u00b7 furry \u2192"] * 3
    assert session.undo_stack.count() == before + 1 and "furry" in session.undo_stack.undoText()
    assert inputs.tokens.view.horizontalHeader().findChild(QtWidgets.QLineEdit, "headerNameEdit") is None
    session.undo_stack.undo()
    settle()
    assert session.scenario.feature_names == ("", "", "", "") and every_x_header(inputs, 1)[0] == "x2"
    session.undo_stack.redo()
    settle()
    assert every_x_header(inputs, 1)[0] == "x2 \u00b7 furry"


def test_grid_headers_rename_features_and_columns(make_panel, qtbot):
    inputs = make_panel(InputsWidget, preset="seed-the-cat-sat", size=(520, 900))
    session = inputs.tokens.session
    grids = inputs.grids
    rename(qtbot, grids.views["w_v"], V, 3, "plural")  # a row of W^V is an embedding dimension
    assert session.scenario.feature_names[3] == "plural"
    assert header_text(inputs.tokens.view, H, 4) == "x4 \u00b7 plural"
    rename(qtbot, grids.views["w_q"], H, 1, "looks for a noun")
    assert session.scenario.q_names == ("", "looks for a noun")
    assert header_text(grids.views["w_q"], H, 1) == "\u2192 q2 \u00b7\nlooks for a noun"
    assert session.result.scenario.q_names[1] == "looks for a noun"  # the panels read it from the result
    # an empty name falls back to the symbol
    rename(qtbot, grids.views["w_q"], H, 1, "")
    assert session.scenario.q_names == ("", "") and header_text(grids.views["w_q"], H, 1) == "\u2192 q2"


def test_escape_keeps_the_old_name_and_the_token_column_has_no_name(make_panel, qtbot):
    tokens = make_panel(TokenTableWidget, preset="designed-it", size=(500, 400))
    session = tokens.session
    count = session.undo_stack.count()
    assert double_click_header(qtbot, tokens.view, H, 0) is None  # "token": nothing to name
    edit = double_click_header(qtbot, tokens.view, H, 1)
    assert edit.text() == "animate" and edit.maxLength() == 40
    qtbot.keyClicks(edit, "zzz")
    qtbot.keyClick(edit, Qt.Key.Key_Escape)
    settle()
    assert session.scenario.feature_names[0] == "animate" and session.undo_stack.count() == count
    assert tokens.view.horizontalHeader().findChild(QtWidgets.QLineEdit, "headerNameEdit") is None


def test_the_session_names_features_and_columns_and_refuses_a_bad_kind(make_session):
    session = make_session("seed-cat")
    assert session.set_feature_name(0, "animate") and session.scenario.feature_names[0] == "animate"
    assert session.set_column_name("k", 1, "is a noun") and session.scenario.k_names[1] == "is a noun"
    assert not session.set_column_name("w", 0, "x")
    assert "which" in session.messages[-1]


# ----- bias rows ------------------------------------------------------------------------------------
def test_bias_rows_show_only_when_there_is_a_bias_and_are_edited_like_the_grid(make_panel, qtbot):
    grids = make_panel(WeightGridsWidget, preset="seed-the-cat-sat", size=(420, 800))
    session = grids.session
    bias = grids.bias_views["b_q"]
    assert not bias.isVisible()  # the lesson's q = x W^Q: no bias row while every bias is 0
    s = session.scenario
    session.apply(s.with_options(b_q=np.array([0.5, 0.0])), "a bias")
    settle()
    assert all(v.isVisible() for v in grids.bias_views.values())
    assert bias.model().headerData(0, V) == "b^Q +" and bias.model().index(0, 0).data() == "0.50"
    type_into_cell(qtbot, bias, 0, 1, "-0.25")
    assert session.scenario.b_q.tolist() == [0.5, -0.25] and "b^Q" in session.undo_stack.undoText()
    r = session.result
    np.testing.assert_allclose(r.q, s.x @ s.w_q + np.array([0.5, -0.25]), atol=1e-12)
    type_into_cell(qtbot, bias, 0, 0, "abc")  # refused at the cell, as in the grids
    assert session.scenario.b_q[0] == 0.5
    note = bias.findChild(QtWidgets.QLabel, "cellNote")
    assert note.isVisible() and "Kept the old value" in note.text()
    # the bias row lines up with its grid: row headers as wide, columns as wide
    grid = grids.views["w_q"]
    assert bias.verticalHeader().width() == grid.verticalHeader().width()
    assert [bias.columnWidth(c) for c in range(2)] == [grid.columnWidth(c) for c in range(2)]
    session.undo_stack.undo()
    session.undo_stack.undo()
    settle()
    assert not bias.isVisible()


# ----- big grids --------------------------------------------------------------------------------------
@pytest.fixture
def big_session(make_session):
    session = make_session("seed-cat")
    s = Scenario.from_sentence("The animal did not cross the street because it was too tired", d_model=384,
                               d_k=32, d_v=32, seed=3)
    session.set_scenario(s.with_options(b_k=np.linspace(-1, 1, 32)))
    session.select(8, 1)  # 'it'
    settle()
    return session


def test_a_grid_grown_big_has_all_its_columns_and_rows_alike(make_panel, make_session, big_session, qtbot):
    session = make_session("seed-cat")  # small grids first: each column and row fitted to its words
    grids = make_panel(WeightGridsWidget, session=session, size=(420, 900))
    session.set_scenario(big_session.scenario)  # then a trained model's sizes
    settle()
    for m in ("w_q", "w_k", "w_v"):
        view = grids.views[m]
        widths = {view.columnWidth(c) for c in range(view.model().columnCount())}
        heights = {view.rowHeight(r) for r in range(view.model().rowCount())}
        measure = view.text_measure()
        assert widths == {measure.width(UNIFORM_TEXT) + 1}, m  # wide enough for -12.34, the grid line
        assert heights == {max(measure.height + 1, view.verticalHeader().minimumSectionSize())}, m  # a line
        assert measure.width("-12.34") <= measure.width(UNIFORM_TEXT)


def test_big_grids_scroll_and_jump_to_a_row(make_panel, big_session, qtbot):
    grids = make_panel(WeightGridsWidget, session=big_session, size=(420, 900))
    bar = grids.jumpBar
    assert bar.isVisible() and bar.rowSpin.maximum() == 384
    q = grids.views["w_q"]
    assert q.verticalScrollBar().maximum() > 0
    bar.rowSpin.setValue(201)  # the box counts from 1, like the headers
    settle()
    for m in ("w_q", "w_k", "w_v"):
        view = grids.views[m]
        assert view.rowAt(0) == 200 and view.selectionModel().isRowSelected(200, QtCore.QModelIndex())
    # the selected token's largest dials, largest first
    x = big_session.scenario.x[8]
    expected = sorted(explain.largest(x, 3)[0], key=lambda d: -abs(x[d]))
    assert [b.text() for b in bar.dialButtons] == [f"x{d + 1}" for d in expected]
    assert abs(x[expected[0]]) == np.abs(x).max()
    qtbot.mouseClick(bar.dialButtons[0], Qt.MouseButton.LeftButton)
    settle()
    assert q.rowAt(0) == expected[0] and bar.rowSpin.value() == expected[0] + 1
    # the biases of W^K show (and only W^K's is not zero)
    assert grids.bias_views["b_k"].isVisible()
    assert grids.bias_views["b_k"].model().index(0, 31).data() == "1.00"


def test_small_grids_have_no_jump_bar(make_panel):
    grids = make_panel(WeightGridsWidget, preset="designed-it", size=(420, 700))
    assert not grids.jumpBar.isVisible()


def test_a_wide_token_table_keeps_narrow_columns_names_its_rows_and_shows_the_selected_row(make_panel,
                                                                                          big_session):
    tokens = make_panel(TokenTableWidget, session=big_session, size=(420, 260))
    view = tokens.view
    assert view.columnWidth(1) == view.columnWidth(300) < 70
    assert view.horizontalScrollBar().maximum() > 0
    assert view.model().headerData(8, V) == "9 it"  # the token column scrolls away; the row header stays
    big_session.select(11, 0)  # 'tired', the last row: scrolled into view
    settle()
    cell = view.visualRect(view.model().index(11, max(0, view.columnAt(0))))
    assert view.viewport().rect().intersects(cell)
