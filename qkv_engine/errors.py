"""The error types the engine raises for bad input: ScenarioError, and ModelError for trained models."""


class ScenarioError(ValueError):
    """Raised when inputs cannot form a valid scenario or session.

    The message names the field and says what is wrong with it, in words a
    teacher can act on (e.g. ``"w_q: expected shape (4, 2), got (3, 2)"``).
    """


class ModelError(ScenarioError):
    """Raised when a trained model cannot be opened or run: one line the user can act on, naming the
    folder and what is wrong (e.g. ``"No model.safetensors in /x/y: only pytorch_model.bin, ..."``)."""


def by_name(table: dict, name, what: str):
    """``table[name]``, or ScenarioError "unknown WHAT 'NAME' (known: ...)" naming what there is."""
    try:
        return table[name]
    except (KeyError, TypeError):
        raise ScenarioError(f"unknown {what} '{name}' (known: {', '.join(table)})") from None
