"""The nine linked panels, in lesson order. Each is a Panel subclass in its own module."""
from .attention_heatmap import HeatmapPanel
from .embedding_bars import EmbeddingPanel
from .grid_mixing import MixingPanel
from .matrices import MatricesPanel
from .qk_plane import QKPlanePanel
from .scaling_bars import ScalingPanel
from .softmax_pie import SoftmaxPanel
from .summary_diagram import SummaryPanel
from .value_mixing import ValuesPanel

#: Lesson order; the default dock grid fills rows of three in this order.
PANEL_CLASSES = [
    EmbeddingPanel,
    MixingPanel,
    QKPlanePanel,
    ScalingPanel,
    SoftmaxPanel,
    ValuesPanel,
    HeatmapPanel,
    MatricesPanel,
    SummaryPanel,
]

__all__ = [c.__name__ for c in PANEL_CLASSES] + ["PANEL_CLASSES"]
