"""Words for masked keys, shared by the panels: why a key is masked, and the note for a query
whose keys are all masked (its weights are all 0 and its output is the zero vector)."""
from __future__ import annotations

from qkv_engine import MASK_BLOCKED, MASK_CAUSAL, MASK_PADDING

#: Short reasons, as shown beside a masked key.
REASON = {MASK_CAUSAL: "it comes later", MASK_PADDING: "padding", MASK_BLOCKED: "blocked by hand"}


def mask_reason(result, i: int, j: int) -> str:
    """Why query ``i`` may not look at key ``j``, in a few words ("" when it may)."""
    return REASON.get(int(result.masked_by[i, j]), "masked") if not result.allowed[i, j] else ""


def no_keys(result, i: int) -> bool:
    """True when every key is masked for query ``i``."""
    return bool(result.rows_without_keys[i]) if result.n_keys else True


def no_keys_note(result, i: int) -> str:
    """The note shown when every key is masked for query ``i``."""
    return (f"Every key is masked for '{result.tokens[i]}': there is nothing to share, "
            f"so all its weights are 0 and its output is the zero vector.")
