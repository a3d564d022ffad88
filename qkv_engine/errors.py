"""The one error type the engine raises for bad input: ScenarioError."""


class ScenarioError(ValueError):
    """Raised when inputs cannot form a valid scenario or session.

    The message names the field and says what is wrong with it, in words a
    teacher can act on (e.g. ``"w_q: expected shape (4, 2), got (3, 2)"``).
    """
