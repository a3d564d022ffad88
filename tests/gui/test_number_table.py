"""The number tables (token table, weight grids): cells measured from their words fit exactly as Qt's own
measure does, and a new number leaves the grids' heights alone."""
from PySide6 import QtCore, QtWidgets

from qkv_gui.editors.inputs_dock import TokenTableWidget
from qkv_gui.editors.weight_grids import WeightGridsWidget

from .conftest import settle


def sizes(view: QtWidgets.QTableView) -> tuple:
    cols, rows = view.horizontalHeader(), view.verticalHeader()
    return ([cols.sectionSize(i) for i in range(cols.count())], [rows.sectionSize(i) for i in range(rows.count())])


def plain_view(model, fitted_like: QtWidgets.QTableView, owner: QtWidgets.QWidget) -> QtWidgets.QTableView:
    """A table with Qt's own delegate over the same model, its sections fitted to their contents as
    ``fitted_like``'s are: a window of its own, owned by ``owner`` (it goes with the model's widget)."""
    view = QtWidgets.QTableView(owner)
    view.setWindowFlag(QtCore.Qt.WindowType.Window)
    view.setModel(model)
    view.setFont(fitted_like.font())
    for mine, theirs in ((view.horizontalHeader(), fitted_like.horizontalHeader()),
                         (view.verticalHeader(), fitted_like.verticalHeader())):
        mine.setFont(theirs.font())
        for i in range(theirs.count()):
            mine.setSectionResizeMode(i, theirs.sectionResizeMode(i))
    view.resize(800, 600)
    view.show()
    return view


def test_token_columns_fit_their_numbers_as_qt_measures_them(make_panel):
    table = make_panel(TokenTableWidget, preset="pronoun", size=(600, 400))
    session = table.session
    # numbers of every width: long negative ones, a big one, names in the headers
    session.set_cell("x", 0, 0, -123.456)
    session.set_cell("x", 1, 1, 98765.4321)
    session.set_cell("x", 2, 2, -0.001)
    settle()
    reference = plain_view(table.model, table.view, table)
    settle()
    assert sizes(table.view)[0] == sizes(reference)[0]
    widths_before = sizes(table.view)[0]
    session.set_cell("x", 0, 0, -12345.678)  # wider still: its column grows as Qt's would
    settle()
    assert sizes(table.view)[0][1] > widths_before[1]
    assert sizes(table.view)[0] == sizes(reference)[0]


def test_weight_grids_fit_as_qt_measures_them_and_keep_their_heights_on_a_new_number(make_panel):
    grids = make_panel(WeightGridsWidget, preset="pronoun", size=(420, 700))
    session = grids.session
    view = grids.views["w_q"]
    reference = plain_view(view.model(), view, grids)
    settle()
    assert sizes(view) == sizes(reference)
    heights = {m: (v.minimumHeight(), v.maximumHeight(), v.height()) for m, v in grids.views.items()}
    session.set_cell("w_q", 0, 0, -42.125)
    session.set_cell("x", 1, 1, 0.5)
    settle()
    assert {m: (v.minimumHeight(), v.maximumHeight(), v.height()) for m, v in grids.views.items()} == heights
    assert sizes(view) == sizes(reference)


def test_grids_fit_again_when_their_sizes_change(make_panel):
    grids = make_panel(WeightGridsWidget, preset="seed-the-cat-sat", size=(420, 900))
    session = grids.session
    view = grids.views["w_q"]
    assert view.model().rowCount() == session.scenario.d_model
    rows_before, height_before = view.model().rowCount(), view.minimumHeight()
    assert rows_before < 5
    assert session.set_dims(d_model=rows_before + 1)
    settle()
    assert view.model().rowCount() == rows_before + 1
    assert view.minimumHeight() > height_before  # one more row shows
    assert view.maximumHeight() >= view.minimumHeight()
