"""qkv_engine: the maths of QKV Visualizer, in numpy only (never imports Qt).

    from qkv_engine import Scenario, compute, softmax, presets, explain, ScenarioError
"""
from . import explain, geometry, presets, session_format
from .attention import AttentionResult, compute, softmax
from .errors import ScenarioError
from .numbers import MAX_ABS, parse_number
from .scenario import Scenario
from .tokenize import MAX_TOKENS, Token, tokenize

__all__ = [
    "AttentionResult",
    "MAX_ABS",
    "MAX_TOKENS",
    "Scenario",
    "ScenarioError",
    "Token",
    "compute",
    "explain",
    "geometry",
    "parse_number",
    "presets",
    "session_format",
    "softmax",
    "tokenize",
]
