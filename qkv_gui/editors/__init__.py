"""The editors on the left: sentence and options, the token table, the three weight grids."""
from .grid_models import BiasRowModel, TokenTableModel, WeightGridModel
from .inputs_dock import InputsWidget, SentenceOptionsWidget, TokenTableWidget
from .number_table import NumberTableView
from .weight_grids import WeightGridsWidget

__all__ = ["InputsWidget", "NumberTableView", "SentenceOptionsWidget", "TokenTableWidget", "WeightGridsWidget",
           "TokenTableModel", "WeightGridModel", "BiasRowModel"]
