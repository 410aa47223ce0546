"""Errors that tell the user where the problem is and what to do about it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class IrforgeError(Exception):
    """Base class for errors irforge raises on purpose (shown without a traceback by the CLI).

    ``exit_code`` is the process exit status the command line uses for it (docs/failures.md).
    """

    exit_code: int = 2


class EmptyResultError(IrforgeError):
    """A step or run accepted nothing: never a silent success. The message lists the most
    common failure reasons and what to do."""

    exit_code = 3


class BudgetStopped(IrforgeError):
    """The ``--budget`` was reached: some items were not attempted (completed ones are kept)."""

    exit_code = 4


class AllCallsFailed(IrforgeError):
    """Every LLM call of the run failed (bad key, endpoint, model, or the server is down)."""

    exit_code = 5


class InUseError(IrforgeError):
    """Another irforge process is writing the same benchmark folder."""

    exit_code = 6


class DiskFullError(IrforgeError):
    """The disk (or quota) filled up while writing; the message names the path and the space
    to free. Nothing is half-written: files are replaced atomically, logs cut back."""

    exit_code = 7


class UntrustedLabels(IrforgeError):
    """An LLM judge failed its control items: its labels are marked untrusted
    (``judge_controls.json``); ``irforge eval`` refuses them without ``--allow-untrusted-qrels``."""

    exit_code = 8


@dataclass(frozen=True)
class Problem:
    """One problem found in a file: where it is, what is wrong, how to fix it."""

    path: Path
    message: str
    line: int | None = None
    field: str | None = None
    hint: str | None = None
    validator: str | None = None
    query_id: str | None = None

    def __str__(self) -> str:
        where = str(self.path) + (f":{self.line}" if self.line is not None else "")
        what = f"field '{self.field}': " if self.field else ""
        fix = f" (fix: {self.hint})" if self.hint else ""
        return f"{where}: {what}{self.message}{fix}"


class FormatError(IrforgeError, ValueError):
    """A benchmark file is malformed; carries the :class:`Problem` that says where and why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


class MissingExtraError(IrforgeError, ImportError):
    """An optional dependency is missing; the message names the extra that installs it."""


def require(module: str, extra: str):
    """Import ``module`` or raise an ImportError naming the irforge extra that provides it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtraError(
            f"{module!r} is not installed; it comes with irforge's '{extra}' extra: "
            f"pip install 'irforge[{extra}]'"
        ) from exc
