"""Every panel and experiment, declared once: its class, object name, menu text, help text, export name and
where it docks. The View and Experiments menus, F1 help, the exports, ``--panels`` and the lesson read this.

    STEPS                      the nine linked panels, in lesson order (the grid fills rows in this order)
    EXPERIMENTS                the Experiments menu's labs, each in a dock of its own
    MODEL_VIEW                 the model view, docked when a trained model is open
    PREDICTION                 the prediction panel, docked beside it
    MODEL_PANELS               both, in the order they open
    by_object_name("heatmapPanel"), by_short_name("qk-plane"), by_dock("dockHeads")

Adding a panel is one new module (in ``steps/`` or ``labs/``) and one entry here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from qkv_engine import BROAD_MIN, FOCUSED_MIN

from .labs.compare_heatmaps import CompareHeatmapsPanel
from .labs.concat_project import ConcatProjectPanel
from .labs.heads_grid import HeadsGridPanel
from .labs.model_view import ModelViewPanel
from .labs.prediction import PredictionPanel
from .labs.rope_lab import RopeLabPanel
from .labs.rollout import RolloutPanel
from .labs.scaling_lab import ScalingLabPanel
from .labs.train_panel import TrainPanel
from .steps.attention_heatmap import HeatmapPanel
from .steps.embedding_bars import EmbeddingPanel
from .steps.grid_mixing import MixingPanel
from .steps.matrices import MatricesPanel
from .steps.qk_plane import QKPlanePanel
from .steps.scaling_bars import ScalingPanel
from .steps.softmax_pie import SoftmaxPanel
from .steps.summary_diagram import SummaryPanel
from .steps.value_mixing import ValuesPanel


def short_name(object_name: str) -> str:
    """A panel's file and ``--panels`` name: 'heatmapPanel' -> 'heatmap', 'qkPlanePanel' -> 'qk-plane'."""
    stem = object_name[:-5] if object_name.endswith("Panel") else object_name
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "-" + m.group(1), stem).lower()


@dataclass(frozen=True)
class Entry:
    """One panel: ``cls(session)`` makes it; the rest says how the window shows and names it."""

    cls: type
    menu_text: str  # in the View menu (the steps) or the Experiments menu (the labs)
    help: tuple  # (what the picture shows, how to read it): F1 and the "?" in its title bar
    dock: str | None = None  # object name of its dock (labs and the model view); None: in the grid
    lesson_beside: str | None = None  # the grid panel the lesson shows beside it, when a step uses this lab

    object_name: str = field(init=False)  # the panel's (the lesson, the help and the layout name it so)
    title: str = field(init=False)  # above the panel
    short_name: str = field(init=False)  # its file name and --panels name

    def __post_init__(self):
        names = (self.cls.object_name, self.cls.title, short_name(self.cls.object_name))
        for attribute, value in zip(("object_name", "title", "short_name"), names):
            object.__setattr__(self, attribute, value)


#: The nine linked panels, in lesson order.
STEPS = (
    Entry(EmbeddingPanel, EmbeddingPanel.title, help=(
        "A computer cannot read words, so each token (a word or a piece of one) becomes a row of numbers, "
        "called its embedding x. Each bar is one of those numbers.",
        "One group of yellow bars per token, its name underneath. Bars above the line are positive, bars "
        "below it negative. The outlined group is the token chosen as the query; click a group to choose it.",
    )),
    Entry(MixingPanel, MixingPanel.title, help=(
        "A weight grid turns a token's numbers into new numbers. Each new number (q1, q2, …) is a sum: every "
        "input number times the grid entry on its line.",
        "Left: the token's numbers as bars; right: the numbers they make. Each line carries one grid entry; "
        "thicker lines are bigger entries, dashed ones are negative. The sum under the picture works one "
        "number out. The tabs switch between the query grid W^Q, the key grid W^K and the value grid W^V.",
    )),
    Entry(QKPlanePanel, QKPlanePanel.title, help=(
        "The query q (what a token is looking for) and a key k (what a token offers) drawn as two arrows. "
        "Their dot product q·k, the score, is big when the arrows point the same way. With rotary positions "
        "(Llama, Qwen2, or RoPE in the options) one pair of numbers is shown, faint before its turn and solid "
        "after, the arcs being the turns.",
        "The grey wedge is the angle θ between the arrows. The meter's needle goes right for a positive "
        "score and left for a negative one. Faint dots are the other keys: click one to compare it. With "
        "more than two numbers per arrow the plane is only a flat view; the printed numbers are exact.",
    )),
    Entry(ScalingPanel, ScalingPanel.title, help=(
        "Each score is divided by √d_k, the square root of d_k (how many numbers a query or a key has). "
        "Without that, long queries and keys give huge scores, and softmax then gives one key almost all "
        "the weight.",
        "Left: the scores of the chosen query before dividing; right: after. One bar per key. The curve "
        "behind shows the weight a score would get; on its grey, flat ends a change in the score changes "
        "almost nothing, so learning stalls there.",
    )),
    Entry(SoftmaxPanel, SoftmaxPanel.title, help=(
        "Softmax turns the chosen query's scores into weights: every weight is between 0 and 1, and "
        "together they add up to 1 (the whole pie).",
        "One slice per key, with its share in percent. A bigger score gives a bigger slice. The pulled-out "
        "slice is the chosen key; click a slice to choose another.",
    )),
    Entry(ValuesPanel, ValuesPanel.title, help=(
        "Each token also has a value v: what it passes on. The chosen query takes from every value in "
        "proportion to that token's weight, and adds the parts up. That sum is the query's output.",
        "Faint bars: each token's whole value. Solid bars: the part the query takes (weight × value); the "
        "percent under each group is the weight. On the right: the output, the sum of the solid bars.",
    )),
    Entry(HeatmapPanel, HeatmapPanel.title, help=(
        "Every weight at once: how much each token (a row, the query) looks at each token (a column, "
        "the key). Each row adds up to 1.",
        "Brighter cells are bigger weights; the colour bar gives the scale (0 to 1, 0 to the largest weight "
        "shown, or each row on its own). The outlined cell is the chosen pair: click a cell to choose it. "
        "Hatched cells are masked: that key is hidden from that query.",
    )),
    Entry(MatricesPanel, MatricesPanel.title, help=(
        "The same sums for all tokens at once, as grids of numbers (matrices). X holds one row per token; "
        "X times the weight grids gives Q, K and V.",
        "Read the grids left to right: Q times K turned on its side (Kᵀ) gives every score; softmax of each "
        "scaled row gives the weights. Each grid shows its size (rows × columns); the inner sizes must match "
        "to multiply. The chosen query's row and key's column are outlined.",
    )),
    Entry(SummaryPanel, SummaryPanel.title, help=(
        "The whole of attention in one drawing, with the numbers of the chosen pair of tokens.",
        "Read it left to right: the three grids turn x, the token's numbers, into a query q, a key k and a "
        "value v. q and k meet in a dot product (the score), which is divided by √d_k (the square root of "
        "how many numbers a key has); softmax makes it a weight, and the weights mix the values into the "
        "output.",
    )),
)

#: The Experiments menu, in its order.
EXPERIMENTS = (
    Entry(ScalingLabPanel, '√d_k lab', dock='dockScalingLab', help=(
        "An experiment with random queries and keys: why scores are divided by √d_k, where d_k is how "
        "many numbers a query or a key has.",
        "Move the d_k slider. Top: the raw scores spread wider as d_k grows (hatched grey); divided by √d_k "
        "they stay narrow (solid blue). Middle and bottom: without dividing, softmax gives one key nearly "
        "all the weight and the gradient (how much learning can change it) shrinks.",
    )),
    Entry(HeadsGridPanel, 'Heads side by side', dock='dockHeads', help=(
        "Attention is often done several times side by side, by heads. Each head has its own grids, so it "
        "can look for something else.",
        "One small heatmap per head, on one colour scale: rows are queries, columns are keys. The framed "
        "head is the one the other panels show; click a heatmap to show that head everywhere.",
    )),
    Entry(ConcatProjectPanel, 'Concat and W^O', dock='dockConcat', help=(
        "The last step with several heads: each head's outputs are put side by side (C), then one more "
        "grid, W^O, mixes them into one output row per token (Y).",
        "Read it as C × W^O = Y. The coloured bands show which columns of C came from which head, and which "
        "rows of W^O they meet. Red cells are negative, blue positive. The sum underneath works one number "
        "of Y out.",
    )),
    Entry(CompareHeatmapsPanel, 'Compare A / B', dock='dockCompare', help=(
        "Compares two versions of the weights: A, pinned earlier, and B, what you see now after a change.",
        "A and B use the colours of the heatmap. In B − A, red means more attention than before, blue less, "
        "white no change. The list underneath names the biggest changes with their signs.",
    )),
    Entry(TrainPanel, 'Learn the weights', dock='dockTrain', lesson_beside="heatmapPanel", help=(
        "Where the weights come from: the app changes W^Q and W^K step by step until each query looks where "
        "you asked. This is gradient descent, the way real models learn.",
        "Click the cells each query should look at (dashed outlines), or choose a query and a key and press "
        "Set. Press Train: the grid of weights and every panel follow each step, and the loss curve below "
        "falls as the target's weight grows. Pause, One step and Reset control the run.",
    )),
    Entry(RopeLabPanel, 'Rotary positions (RoPE)', dock='dockRopeLab', lesson_beside="qkPlanePanel", help=(
        "Llama and Qwen2 do not add a position to each word. They turn each query and key by an angle that "
        "grows with the word's position, one pair of numbers at a time, each pair at its own speed. This lab "
        "moves one query and one key apart and shows their score.",
        "Move the sliders m (the query's place) and n (the key's place). Top: the score q·k for every "
        "distance m − n; the rings are the same words moved 20 places further on, and they sit on the line: "
        "only the distance counts. The faint lines are what each pair of numbers adds, each at its own speed (θ "
        "sets the speeds). Bottom: the chosen distance anywhere in the sentence gives a flat line.",
    )),
    Entry(RolloutPanel, 'Attention rollout (trained model)', dock='dockRollout', help=(
        "In a trained model, information passes through many layers. Attention rollout (Abnar and Zuidema, "
        "2020) multiplies the layers' attention, heads averaged, to guess how much of each token reached each "
        "position. It is an approximation: it leaves out the values, the MLPs and W^O, so it is not a "
        "measurement.",
        "The first picture is the rollout through layers 1 to the slider's layer; the second is that layer's "
        "own attention, the mean of its heads. Rows are positions (queries), columns the tokens they draw on "
        "(keys); each row adds up to 1. \"Residual\" keeps half of each token as itself at every layer, as "
        "the paper does, and \"Words\" joins a word's pieces. Click a cell to select that pair everywhere.",
    )),
)

#: A trained model's every layer and head.
MODEL_VIEW = Entry(ModelViewPanel, ModelViewPanel.title, dock="dockModelView", help=(
    "A trained model has several layers, each with several heads. This shows the weights of every "
    "head of every layer of the sentence at once.",
    "Rows are layers, columns are heads; each square is one head's heatmap (between whole words when Whole words "
    "is on): hover it to see where the chosen query looks most, click it to show that head in every panel. "
    "The word on a square says what the head does: previous, next, self, first or separator when more "
    f"than {FOCUSED_MIN:.0%} of its attention goes there; broad when its spread (normalised entropy, 1 is "
    f"perfectly even) is above {BROAD_MIN}; else mixed. "
    "Click a word in the legend to show only those heads, or \"Labels from\" to work the words out over "
    "several sentences (the examples, or yours); a bracket underneath groups heads that share keys and values. "
    "After \"Which heads matter?\" the squares show how much each head changes the pinned word's chance.",
    ))

#: What the model predicts at the selected position, and what changes it.
PREDICTION = Entry(PredictionPanel, "&Prediction", dock="dockPrediction", help=(
    "A trained model ends with a guess: the next token (GPT-2, Llama), or the word behind a [MASK] (BERT). "
    "This shows its ten best guesses for the chosen token.",
    "Each bar is one guess with how sure the model is; click a guess to pin it. "
    "Every change then shows the pinned guess's chance before → after, and marks show how the ten moved: "
    "▲ up, ▼ down, ★ new, = same place. "
    "\"Which heads matter?\" switches off each head alone and lists the change in log p, the logarithm of the "
    "pinned word's chance: negative means the head helped. "
    "\"Keep only\" switches off every other head.",
    ))

#: The model's panels, in the order they open with a model.
MODEL_PANELS = (MODEL_VIEW, PREDICTION)

ALL = STEPS + EXPERIMENTS + MODEL_PANELS
#: Lesson order; the default grid fills rows of three in this order.
PANEL_CLASSES = [e.cls for e in STEPS]


def by_object_name(name: str) -> Entry | None:
    return next((e for e in ALL if e.object_name == name), None)


def by_short_name(name: str) -> Entry | None:
    return next((e for e in ALL if e.short_name == name), None)


def by_dock(name: str) -> Entry | None:
    return next((e for e in ALL if e.dock == name), None)
