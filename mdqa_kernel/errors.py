"""The root of every error mdqa raises on purpose.

Each stage keeps its own specific classes (`PlanValidationError`, `ExtractError`, `LLMTimeoutError`,
…); all of them derive from `MdqaError`, so a caller (the notebook surface, the CLI) can tell our
errors, whose messages already say what was wrong and what to do, from a bug in someone's code,
whose traceback must stay visible.
"""

from __future__ import annotations


class MdqaError(Exception):
    """An error of mdqa's own: its message names what was wrong, where, and the fix."""


class UnknownNameError(MdqaError, KeyError):
    """A name asked of a registry (a backend, reader, executor or operation) that nothing registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
