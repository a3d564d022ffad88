"""qkv_engine: the maths of QKV Visualizer, in numpy only (never imports Qt).

    from qkv_engine import Scenario, compute, softmax, presets, explain, ScenarioError
    from qkv_engine import load_model, find_models, ModelEdits, ModelError   # trained models
"""
from . import explain, geometry, models, presets, session_format
from .attention import AttentionResult, MultiHeadResult, compute, compute_heads, mask_reasons, softmax
from .errors import ModelError, ScenarioError
from .models import FoundModel, Model, ModelEdits, ModelInfo, ModelTrace, find_models, hf_cache_dir, load_model
from .numbers import MAX_ABS, parse_number
from .scenario import Scenario
from .tokenize import MAX_TOKENS, Token, tokenize

__all__ = [
    "AttentionResult",
    "FoundModel",
    "Model",
    "ModelEdits",
    "ModelError",
    "ModelInfo",
    "ModelTrace",
    "MultiHeadResult",
    "MAX_ABS",
    "MAX_TOKENS",
    "Scenario",
    "ScenarioError",
    "Token",
    "compute",
    "compute_heads",
    "mask_reasons",
    "explain",
    "find_models",
    "geometry",
    "hf_cache_dir",
    "load_model",
    "models",
    "parse_number",
    "presets",
    "session_format",
    "softmax",
    "tokenize",
]
