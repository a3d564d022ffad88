"""qkv_engine: the maths of QKV Visualizer, in numpy only (never imports Qt).

    from qkv_engine import Scenario, compute, softmax, presets, explain, ScenarioError
    from qkv_engine import load_model, find_models, ModelEdits, ModelError   # trained models

Everything the app's windows use is named here, so they import from ``qkv_engine`` alone:
the entry points (``compute``, ``compute_heads``), the result and scenario types, the limits,
and the modules that turn a result into numbers and words for the pictures (``explain``,
``views``, ``geometry``, ...), the lesson (``lesson_numbers``, ``training``, ``training_text``),
files (``session_format``, ``data_export``) and trained models (``models``). Submodules keep
their own paths too (``qkv_engine.explain``), but the app's windows never import them by that
path (``tests/gui/test_engine_imports.py``).
"""
from . import (compare, data_export, explain, feature_names, geometry, heads_view, lesson_numbers, mask_view,
               model_examples, models, new_words, pie_layout, presets, rope_lab, saturation, scaling_lab, session_format,
               training, training_text, views)
from .attention import (MASK_BLOCKED, MASK_CAUSAL, MASK_OPEN, MASK_PADDING, AttentionResult, MultiHeadResult, compute,
                        compute_heads, mask_reasons, softmax)
from .errors import ModelError, ScenarioError
from .explain import fixed
from .models import (FoundModel, Model, ModelEdits, ModelInfo, ModelTrace, find_models, group_words, hf_cache_dir,
                     load_model)
from .numbers import MAX_ABS, parse_number
from .scenario import MAX_HEADS, MAX_NAME, MAX_TEMPERATURE, MIN_TEMPERATURE, Scenario, head_grids
from .word_split import MAX_TOKENS, Token, tokenize
from .rollout import rollout, rollout_steps
from .head_labels import BROAD_MIN, FOCUSED_MIN, HeadLabels, head_labels, head_labels_over
from .word_pieces import MERGE_RULE, WORD_RULE, Word, merge_pieces, trace_words, word_mask, word_weights
from .models import what_if
from .models.what_if import generate, head_effects
from .models.builtin import BUILTIN_NAME, builtin_model_path, known_words

__all__ = [
    "AttentionResult",
    "FoundModel",
    "MASK_BLOCKED",
    "MASK_CAUSAL",
    "MASK_OPEN",
    "MASK_PADDING",
    "MAX_ABS",
    "MAX_HEADS",
    "MAX_NAME",
    "MAX_TEMPERATURE",
    "MAX_TOKENS",
    "MIN_TEMPERATURE",
    "Model",
    "ModelEdits",
    "ModelError",
    "ModelInfo",
    "ModelTrace",
    "MultiHeadResult",
    "Scenario",
    "ScenarioError",
    "Token",
    "compare",
    "compute",
    "compute_heads",
    "data_export",
    "explain",
    "feature_names",
    "find_models",
    "BUILTIN_NAME",
    "builtin_model_path",
    "known_words",
    "fixed",
    "geometry",
    "group_words",
    "head_grids",
    "heads_view",
    "hf_cache_dir",
    "lesson_numbers",
    "load_model",
    "mask_reasons",
    "mask_view",
    "model_examples",
    "models",
    "new_words",
    "parse_number",
    "pie_layout",
    "presets",
    "saturation",
    "scaling_lab",
    "session_format",
    "softmax",
    "tokenize",
    "training",
    "training_text",
    "views",
    "rollout",
    "rollout_steps",
    "rope_lab",
    "what_if",
    "BROAD_MIN",
    "FOCUSED_MIN",
    "HeadLabels",
    "head_labels",
    "head_labels_over",
    "MERGE_RULE",
    "WORD_RULE",
    "Word",
    "merge_pieces",
    "trace_words",
    "word_mask",
    "word_weights",
    "generate",
    "head_effects",
]
