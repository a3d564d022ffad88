"""The editors on the left: sentence and options, the token table, the three weight grids."""
from .grid_models import TokenTableModel, WeightGridModel
from .inputs_dock import InputsWidget, NumberTableView, SentenceOptionsWidget, TokenTableWidget, WeightGridsWidget

__all__ = ["InputsWidget", "NumberTableView", "SentenceOptionsWidget", "TokenTableWidget", "WeightGridsWidget", "TokenTableModel", "WeightGridModel"]
