"""One validation layer for every verb's options, run before the verb does any work.

:data:`RULES` maps an option's parameter name (the same name in every verb: ``max_tokens`` is
``--max-tokens`` everywhere) to its check; :data:`ORDERED` holds pairs that must not cross.
:func:`validated` wraps each verb of the app (irforge/cli/app.py), so a bad value is a usage
error (exit 2) naming the flag, the value and what is allowed, before a folder is locked, a
file read or a request sent.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from irforge.core.errors import IrforgeError


class OptionError(IrforgeError):
    """An option's value is outside what the option allows (exit 2)."""


Check = Callable[[Any], str | None]  # value -> what is wrong with it, or None


def at_least(low: float) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, float) and not math.isfinite(value):
            return "must be a finite number"
        return None if value >= low else f"must be at least {low:g}"
    return check


def above(low: float) -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, float) and not math.isfinite(value):
            return "must be a finite number"
        return None if value > low else f"must be more than {low:g}"
    return check


def fraction(value: Any) -> str | None:
    """A share in (0, 1], such as a Jaccard similarity threshold."""
    if isinstance(value, float) and not math.isfinite(value):
        return "must be a finite number"
    return None if 0 < value <= 1 else "must be a fraction in (0, 1], e.g. 0.8"


def http_url(value: Any) -> str | None:
    """An http(s) server URL (the rule of :func:`irforge.core.urls.http_url`, imported
    only when a URL is given: the CLI starts without the LLM package)."""
    from irforge.core.urls import http_url as check

    return check(value)


SQLITE_MAGIC = b"SQLite format 3\x00"


def sqlite_file(value: Any) -> str | None:
    """A cache file: missing (it is created), empty, or an SQLite database; never a folder."""
    path = Path(value)
    if path.is_dir():
        return "is a folder; give the cache file's path (e.g. B/.irforge/cache.sqlite)"
    if not path.is_file() or path.stat().st_size == 0:
        return None
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_MAGIC))
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if head != SQLITE_MAGIC:
        return ("is not an irforge cache (not an SQLite database); give the cache file, "
                "e.g. B/.irforge/cache.sqlite")
    return None


class Rule(NamedTuple):
    check: Check
    flag: str | None = None  # the flag when it is not --name-with-dashes


RULES: dict[str, Rule] = {
    "max_tokens": Rule(at_least(1)),
    "min_tokens": Rule(at_least(1)),
    "max_doc_chars": Rule(at_least(1)),
    "max_page_content_mb": Rule(above(0)),
    "retry_memory_mb": Rule(at_least(1)),
    "lsh_threshold": Rule(fraction),
    "passage_threshold": Rule(fraction),
    "num_perm": Rule(at_least(1)),
    "shingle_size": Rule(at_least(1)),
    "bootstrap": Rule(at_least(1)),
    "trials": Rule(at_least(1)),
    "resamples": Rule(at_least(1)),
    "depth": Rule(at_least(1)),
    "rerank_k": Rule(at_least(1)),
    "k": Rule(at_least(1)),
    "target_k": Rule(at_least(1)),
    "concurrency": Rule(at_least(1)),
    "workers": Rule(at_least(1)),
    "batch_size": Rule(at_least(1)),
    "samples": Rule(at_least(1)),
    "rpm": Rule(above(0)),
    "tpm": Rule(above(0)),
    "budget": Rule(at_least(0)),
    "timeout": Rule(above(0)),
    "deadline": Rule(above(0)),
    "per_task": Rule(at_least(1)),
    "per_type": Rule(at_least(1)),
    "max_passages": Rule(at_least(1)),
    "api_base": Rule(http_url),
    "cache": Rule(sqlite_file),
}

#: (smaller, larger): the first may not exceed the second
ORDERED: tuple[tuple[str, str], ...] = (("min_tokens", "max_tokens"),)


def flag_of(name: str) -> str:
    rule = RULES.get(name)
    return (rule.flag if rule and rule.flag else None) or "--" + name.replace("_", "-")


def check_options(options: dict[str, Any]) -> None:
    """Raise :class:`OptionError` for the first option whose value breaks its rule."""
    for name, value in options.items():
        rule = RULES.get(name)
        if rule is None or value is None or isinstance(value, bool):
            continue
        problem = rule.check(value)
        if problem is not None:
            from irforge.core.redact import redact

            raise OptionError(f"{flag_of(name)} {redact(str(value))}: {problem}")
    for small, large in ORDERED:
        low, high = options.get(small), options.get(large)
        if low is not None and high is not None and low > high:
            raise OptionError(f"{flag_of(small)} {low} is more than {flag_of(large)} {high}: "
                              f"{flag_of(small)} must not exceed {flag_of(large)}")


#: verbs that read an existing benchmark folder, and the parameter naming it: a missing folder
#: or a file there is a usage error (exit 2) before anything is created in it
READS: dict[tuple[str | None, str], str] = {
    **{(None, verb): "bench_dir" for verb in ("check", "eval", "export", "view", "label")},
    **{("audit", verb): "bench_dir"
       for verb in ("agreement", "rankings", "duplicates", "overlap", "pool")},
    **{("annotate", verb): "bench_dir"
       for verb in ("push", "pull", "status", "export-tasks", "import-tasks")},
    ("qrels", "merge"): "bench_dir",
    ("corpus", "pool"): "bench",
}


def validated(function: Callable[..., Any], folder: str | None = None) -> Callable[..., Any]:
    """``function`` whose options are checked (:func:`check_options`) before it runs, and
    whose ``folder`` argument (a :data:`READS` verb's) must be an existing folder."""
    from irforge.cli.options import require_bench_dir

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        check_options(kwargs)
        if folder is not None and kwargs.get(folder) is not None:
            require_bench_dir(kwargs[folder])
        return function(*args, **kwargs)

    return checked
