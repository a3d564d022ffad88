"""qkv_engine: the maths of QKV Visualizer, in numpy only (never imports Qt).

    from qkv_engine import Scenario, compute, softmax, presets, explain, ScenarioError
"""
from . import explain, geometry, presets, session_format
from .attention import AttentionResult, MultiHeadResult, compute, compute_heads, mask_reasons, softmax
from .errors import ScenarioError
from .numbers import MAX_ABS, parse_number
from .scenario import Scenario
from .tokenize import MAX_TOKENS, Token, tokenize

__all__ = [
    "AttentionResult",
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
    "geometry",
    "parse_number",
    "presets",
    "session_format",
    "softmax",
    "tokenize",
]
