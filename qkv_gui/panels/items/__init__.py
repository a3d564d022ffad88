"""Parts the grid panels share: the cell-grid item, its colour tables, the mask look, token labels and the
words of the colour scale. Panels import from here, never from each other."""
from .cell_grid import MAX_NUMBERS, NUMBER_MIN_PX, CellGridItem, GridHolder, Outline
from .colour_tables import colour_map
from .mask_look import MASK_FILL, MASK_HATCH, MASK_PATTERN, mask_icon
from .token_labels import LABEL_CHARS, label_step, nice_step, short_token

__all__ = ["CellGridItem", "GridHolder", "Outline", "MAX_NUMBERS", "NUMBER_MIN_PX", "colour_map", "MASK_FILL",
           "MASK_HATCH", "MASK_PATTERN", "mask_icon", "LABEL_CHARS", "label_step", "nice_step", "short_token"]
