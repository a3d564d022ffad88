"""The token table's arrow keys choose the query as a click does (the source table's: the key), so the row the
table highlights is always the token the panels show; a number typed into a cell still edits it."""
from PySide6 import QtCore, QtWidgets

from qkv_gui.editors.inputs_dock import TokenTableWidget

from tests.gui.conftest import settle

Qt = QtCore.Qt


def test_up_and_down_choose_the_query(make_panel, qtbot):
    table = make_panel(TokenTableWidget, preset="pronoun", size=(600, 400))
    s, view = table.session, table.view
    s.select(query=1)
    settle()
    view.setFocus()
    view.setCurrentIndex(table.model.index(1, 2))
    qtbot.keyClick(view, Qt.Key.Key_Down)
    settle()
    assert s.selection.query == 2 and view.currentIndex().row() == 2
    assert view.selectionModel().isRowSelected(2)
    qtbot.keyClick(view, Qt.Key.Key_Up)
    qtbot.keyClick(view, Qt.Key.Key_Up)
    settle()
    assert s.selection.query == 0 and view.selectionModel().isRowSelected(0)
    qtbot.keyClick(view, Qt.Key.Key_Right)  # along the row: the query stays
    settle()
    assert s.selection.query == 0


def test_a_query_chosen_elsewhere_leaves_the_choice_to_that_place(make_panel):
    """The table follows a selection made by a panel without choosing anything back (it has no focus)."""
    table = make_panel(TokenTableWidget, preset="pronoun", size=(600, 400))
    s = table.session
    s.select(query=3, key=1)
    settle()
    assert table.view.selectionModel().isRowSelected(3) and (s.selection.query, s.selection.key) == (3, 1)
    s.set_text("a dog ran home")
    settle()
    assert s.selection.query == 3


def test_typing_a_number_still_edits_the_cell(make_panel, qtbot):
    table = make_panel(TokenTableWidget, preset="pronoun", size=(600, 400))
    s, view = table.session, table.view
    view.setFocus()
    view.setCurrentIndex(table.model.index(2, 1))
    settle()
    assert s.selection.query == 2
    column = next(c for c in range(table.model.columnCount()) if table.model.index(2, c).flags()
                  & Qt.ItemFlag.ItemIsEditable)
    view.setCurrentIndex(table.model.index(2, column))
    for ch in "0.75":  # the first key opens the cell's editor; the others go to it
        qtbot.keyClicks(QtWidgets.QApplication.focusWidget(), ch)
    qtbot.keyClick(QtWidgets.QApplication.focusWidget(), Qt.Key.Key_Return)
    settle()
    assert float(table.model.index(2, column).data()) == 0.75 and s.selection.query == 2


def test_the_source_tables_keys_choose_the_key(make_panel, qtbot):
    table = make_panel(TokenTableWidget, preset="pronoun", size=(600, 500))
    s = table.session
    assert s.set_source("le chat dort ici")
    settle()
    view = table.sourceView
    assert view.isVisible()
    view.setFocus()
    view.setCurrentIndex(table.sourceModel.index(0, 1))
    qtbot.keyClick(view, Qt.Key.Key_Down)
    settle()
    assert s.selection.key == 1


def test_the_querys_row_stays_highlighted_when_the_sentence_changes(make_panel):
    table = make_panel(TokenTableWidget, preset="pronoun", size=(600, 400))
    s = table.session
    s.select(query=2)
    settle()
    s.set_text("a dog ran home fast")  # five tokens: the table is made again
    settle()
    assert s.selection.query == 2 and table.view.selectionModel().isRowSelected(2)
    s.set_text("a dog")  # the query was past the end: the last token is the query now
    settle()
    assert s.selection.query == 1 and table.view.selectionModel().isRowSelected(1)


def test_a_lower_table_keeps_the_querys_row_in_view(make_panel):
    """The window makes the Tokens dock lower after it is first shown, to give a model's tabs room: the query's
    row (the last token, where a decoder opens) stayed where it was and went out of view."""
    table = make_panel(TokenTableWidget, preset="pronoun", size=(600, 500))
    s, view = table.session, table.view
    s.select(query=s.scenario.n - 1)
    settle()
    table.resize(600, 130)
    settle()
    row = view.visualRect(table.model.index(s.selection.query, 1))
    assert view.viewport().rect().contains(row), (row, view.viewport().rect())
