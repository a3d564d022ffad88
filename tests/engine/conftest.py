"""Fixtures shared by the engine's tests."""
from __future__ import annotations

import math

import numpy as np
import pytest

from qkv_engine.models import forward


@pytest.fixture(params=["exp", "exp2"])
def either_exp(request, monkeypatch):
    """The forward pass both ways it takes e^z (forward._EXP): numpy's exp, and exp2 of z log2 e, which it takes
    where numpy's exp2 is vector code. Both must give the same numbers whatever this machine picks."""
    if request.param == "exp":
        monkeypatch.setattr(forward, "_EXP", np.exp)
        monkeypatch.setattr(forward, "_LOG2_E", np.float32(1.0))
    else:
        monkeypatch.setattr(forward, "_EXP", np.exp2)
        monkeypatch.setattr(forward, "_LOG2_E", np.float32(math.log2(math.e)))
    return request.param
