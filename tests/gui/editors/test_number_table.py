"""The number tables (token table, weight grids): cells measured from their words fit exactly as Qt's own
measure does, and a new number leaves the grids' heights alone."""
from PySide6 import QtCore, QtWidgets

from qkv_gui.editors.inputs_dock import TokenTableWidget
from qkv_gui.editors.weight_grids import WeightGridsWidget

from tests.gui.conftest import settle


def sizes(view: QtWidgets.QTableView) -> tuple:
    cols, rows = view.horizontalHeader(), view.verticalHeader()
    return ([cols.sectionSize(i) for i in range(cols.count())], [rows.sectionSize(i) for i in range(rows.count())])


def plain_view(model, fitted_like: QtWidgets.QTableView, owner: QtWidgets.QWidget, columns=None,
               rows: bool = False) -> QtWidgets.QTableView:
    """A table with Qt's own delegate over the same model, in the font of ``fitted_like``, whose sections
    Qt itself fits to their contents (``ResizeToContents``): the columns ``columns`` (default: all), and the
    rows if ``rows``. A window of its own, owned by ``owner`` (it goes with the model's widget)."""
    Mode = QtWidgets.QHeaderView.ResizeMode
    view = QtWidgets.QTableView(owner)
    view.setWindowFlag(QtCore.Qt.WindowType.Window)
    view.setModel(model)
    view.setFont(fitted_like.font())
    for mine, theirs in ((view.horizontalHeader(), fitted_like.horizontalHeader()),
                         (view.verticalHeader(), fitted_like.verticalHeader())):
        mine.setFont(theirs.font())
    for c in (range(model.columnCount()) if columns is None else columns):
        view.horizontalHeader().setSectionResizeMode(c, Mode.ResizeToContents)
    if rows:
        view.verticalHeader().setSectionResizeMode(Mode.ResizeToContents)
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
    reference = plain_view(view.model(), view, grids, rows=True)
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


# ----- fitted by the table itself: never too narrow, and only the changed cells told -------------------
def cell_fits(view: QtWidgets.QTableView, row: int, column: int) -> bool:
    """Whether the words of a cell fit in its column (Qt's own delegate measures them)."""
    option = QtWidgets.QStyleOptionViewItem()
    option.font = view.font()
    option.widget = view
    need = QtWidgets.QStyledItemDelegate().sizeHint(option, view.model().index(row, column)).width()
    return view.columnWidth(column) >= need


def test_a_longer_number_widens_its_column_and_a_shorter_one_narrows_it_as_qt_would(make_panel):
    table = make_panel(TokenTableWidget, preset="seed-the-cat-sat", size=(600, 400))
    grids = make_panel(WeightGridsWidget, preset="seed-the-cat-sat", size=(420, 700),
                       session=table.session)
    session = table.session
    view, grid = table.view, grids.views["w_k"]
    tokens_ref = plain_view(table.model, view, table)
    grid_ref = plain_view(grid.model(), grid, grids, rows=True)
    session.set_cell("x", 1, 0, 0.5)
    session.set_cell("w_k", 0, 1, 0.5)
    settle()
    narrow = view.columnWidth(1), grid.columnWidth(1)
    session.set_cell("x", 1, 0, -123.25)  # 0.50 -> -123.25: the number gets longer
    session.set_cell("w_k", 0, 1, -123.25)
    settle()
    assert view.model().data(view.model().index(1, 1)) == "-123.25"
    assert view.columnWidth(1) > narrow[0] and grid.columnWidth(1) > narrow[1]
    assert cell_fits(view, 1, 1) and cell_fits(grid, 0, 1)
    assert sizes(view) == sizes(tokens_ref) and sizes(grid) == sizes(grid_ref)
    session.set_cell("x", 1, 0, 0.5)  # short again: back to the width it had
    session.set_cell("w_k", 0, 1, 0.5)
    settle()
    assert (view.columnWidth(1), grid.columnWidth(1)) == narrow
    assert sizes(view) == sizes(tokens_ref) and sizes(grid) == sizes(grid_ref)


def test_a_long_name_widens_its_column_to_the_header_s_words(make_panel):
    table = make_panel(TokenTableWidget, preset="seed-the-cat-sat", size=(600, 400))
    grids = make_panel(WeightGridsWidget, preset="seed-the-cat-sat", size=(420, 700), session=table.session)
    session = table.session
    before = table.view.columnWidth(2)
    assert session.set_feature_name(1, "a rather long feature name")
    assert session.set_column_name("q", 0, "looks for the subject of the sentence")
    settle()
    for view in (table.view, grids.views["w_q"]):
        header = view.horizontalHeader()
        for c in range(header.count()):
            assert header.sectionSize(c) >= header.sectionSizeHint(c), (view.objectName(), c)
    assert table.view.columnWidth(2) > before
    assert sizes(table.view) == sizes(plain_view(table.model, table.view, table))
    grid = grids.views["w_q"]
    assert sizes(grid) == sizes(plain_view(grid.model(), grid, grids, rows=True))


def test_a_bigger_font_fits_the_columns_again(make_panel):
    table = make_panel(TokenTableWidget, preset="pronoun", size=(600, 400))
    widths = sizes(table.view)[0]
    font = table.view.font()
    font.setPointSizeF(font.pointSizeF() * 1.6)
    table.view.setFont(font)
    settle()
    assert all(new > old for new, old in zip(sizes(table.view)[0], widths))
    assert sizes(table.view)[0] == sizes(plain_view(table.model, table.view, table))[0]


def changes_told(model) -> list:
    """Every cell range ``model`` tells its views about from now on: ((row, column), (row, column))."""
    told = []
    model.dataChanged.connect(lambda a, b, roles=(): told.append(((a.row(), a.column()), (b.row(), b.column()))))
    return told


def test_an_edit_tells_the_views_of_the_cells_it_changed_only(make_panel):
    table = make_panel(TokenTableWidget, preset="seed-the-cat-sat", size=(600, 400))
    grids = make_panel(WeightGridsWidget, preset="seed-the-cat-sat", size=(420, 700), session=table.session)
    session = table.session
    tokens = changes_told(table.model)
    grid_models = {m: changes_told(model) for m, model in grids.models.items()}
    session.set_cell("x", 2, 1, 7.25)
    settle()
    assert tokens == [((2, 2), (2, 2))]  # the token column comes first: dial 2 is view column 2
    assert all(told == [] for told in grid_models.values())
    tokens.clear()
    session.set_cell("w_v", 1, 0, -3.5)
    settle()
    assert tokens == [] and grid_models["w_v"] == [((1, 0), (1, 0))]
    assert grid_models["w_q"] == grid_models["w_k"] == []
    grid_models["w_v"].clear()
    words = session.scenario.tokens
    session.set_text(" ".join(words[:1] + ("dog",) + words[2:]))  # one word changes: its row only
    settle()
    assert session.scenario.tokens[1] == "dog"
    assert tokens and {a[0] for a, b in tokens} == {1} and {b[0] for a, b in tokens} == {1}
    assert ((1, 0), (1, 0)) in tokens  # its word
    assert all(told == [] for told in grid_models.values())


def test_a_wide_table_fits_its_token_column_and_keeps_its_narrow_dials(make_panel, make_session):
    from qkv_gui.editors.inputs_dock import WIDE_COLUMN_PX
    from qkv_gui.state.session import Session

    from tests.gui.support.big_dims import big_scenario

    table = make_panel(TokenTableWidget, session=Session(big_scenario(n=12, d_model=20, d_k=4)), size=(600, 400))
    view, session = table.view, table.session
    assert {view.columnWidth(c) for c in range(1, view.model().columnCount())} == {WIDE_COLUMN_PX}
    session.set_cell("x", 0, 3, -123.25)
    session.set_text(" ".join(session.scenario.tokens[:2] + ("extraordinarily",) + session.scenario.tokens[3:]))
    settle()
    assert session.scenario.tokens[2] == "extraordinarily" and session.scenario.d_model == 20
    assert {view.columnWidth(c) for c in range(1, view.model().columnCount())} == {WIDE_COLUMN_PX}
    reference = plain_view(table.model, view, table, columns=[0])
    settle()
    assert view.columnWidth(0) == reference.columnWidth(0)
    assert cell_fits(view, 2, 0)


def test_a_header_s_size_follows_its_words_not_the_numbers(make_panel):
    grids = make_panel(WeightGridsWidget, preset="seed-the-cat-sat", size=(420, 700))
    session, view = grids.session, grids.views["w_q"]
    reference = plain_view(view.model(), view, grids, rows=True)
    settle()
    one_line = view.horizontalHeader().sizeHint()
    assert one_line == reference.horizontalHeader().sizeHint()
    assert session.set_column_name("q", 0, "looks for a noun")  # the name goes on a second line
    settle()
    two_lines = view.horizontalHeader().sizeHint()
    assert two_lines.height() > one_line.height()
    assert two_lines == reference.horizontalHeader().sizeHint()
    assert view.horizontalHeader().height() == two_lines.height()
    assert session.set_feature_name(0, "a long name for the first dial")  # the row header grows wider
    session.set_cell("w_q", 1, 1, -1234.5)
    settle()
    for mine, theirs in ((view.horizontalHeader(), reference.horizontalHeader()),
                         (view.verticalHeader(), reference.verticalHeader())):
        assert mine.sizeHint() == theirs.sizeHint()
    assert session.set_column_name("q", 0, "")
    settle()
    assert view.horizontalHeader().sizeHint() == one_line == reference.horizontalHeader().sizeHint()
