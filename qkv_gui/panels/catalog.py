"""Every panel and experiment, declared once."""
from .steps.attention_heatmap import HeatmapPanel
from .steps.embedding_bars import EmbeddingPanel
from .steps.grid_mixing import MixingPanel
from .steps.matrices import MatricesPanel
from .steps.qk_plane import QKPlanePanel
from .steps.scaling_bars import ScalingPanel
from .steps.softmax_pie import SoftmaxPanel
from .steps.summary_diagram import SummaryPanel
from .steps.value_mixing import ValuesPanel

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
