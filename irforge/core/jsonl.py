"""Line-numbered JSONL reading and atomic file writing shared by every file format."""

from __future__ import annotations

import glob
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from irforge.core.disk import disk_full, umask_mode
from irforge.core.errors import FormatError, Problem
from irforge.core.faults import write_point
from irforge.core.generation import active
from irforge.core.redact import redact_data

OnProblem = Callable[[Problem], None] | None


def report(problem: Problem, on_problem: OnProblem) -> None:
    """Raise the problem, or hand it to ``on_problem`` when the caller collects them all."""
    if on_problem is None:
        raise FormatError(problem)
    on_problem(problem)


def iter_lines(path: Path, on_problem: OnProblem = None) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` of non-blank lines, checking UTF-8 line by line."""
    path = Path(path)
    if not path.is_file():
        hint = "check the path or run the step that writes it"
        report(Problem(path, "file not found", hint=hint), on_problem)
        return
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                report(Problem(path, f"not valid UTF-8 at byte {exc.start} of the line",
                               line=number, hint="re-encode the file as UTF-8"), on_problem)
                continue
            if number == 1 and text.startswith("\ufeff"):
                text = text[1:]
            if text.strip():
                yield number, text.rstrip("\r\n")


def iter_jsonl(path: Path, on_problem: OnProblem = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each JSON object line of a JSONL file."""
    for number, text in iter_lines(path, on_problem):
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            report(Problem(path, f"malformed JSON: {exc.msg} at column {exc.colno}", line=number,
                           hint="each line must be one complete JSON object"), on_problem)
            continue
        if not isinstance(row, dict):
            report(Problem(path, f"expected a JSON object, got {type(row).__name__}", line=number,
                           hint="each line must be one JSON object"), on_problem)
            continue
        yield number, row


def current_umask() -> int:
    """The process umask: from /proc on Linux (no change, thread-safe), else by setting it
    and putting it back."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: a temporary file :func:`atomic_open` writes beside its target: ``.NAME.PID.RANDOM.tmp``
TEMPORARY = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.[^.]+\.tmp$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def sweep_temporaries(folder: Path, name: str | None = None) -> list[Path]:
    """Remove the temporary files in ``folder`` (of the target ``name`` only, when given)
    whose writer is dead (killed before its rename); returns them. A write outside a
    generation leaves nothing else behind when killed: the next write of the file sweeps."""
    pattern = f".{glob.escape(name)}.*.tmp" if name is not None else ".*.tmp"
    removed = []
    for path in Path(folder).glob(pattern):
        match = TEMPORARY.match(path.name)
        if match is None or (name is not None and match["name"] != name):
            continue
        pid = int(match["pid"])
        if pid != os.getpid() and not _alive(pid):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


@contextmanager
def atomic_open(path: Path, mode: str = "w") -> Iterator[IO[Any]]:
    """Write to a temporary file beside ``path`` and rename it into place only on success
    (a killed write's temporary file goes when its generation rolls back, or, for a write
    outside one, with the next write of ``path``: :func:`sweep_temporaries`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    gen = active(path)
    sweep_temporaries(path.parent, path.name)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp",
                               dir=path.parent)
    text = "b" not in mode
    try:
        if gen is not None:
            gen.temporary(Path(tmp))
        os.fchmod(fd, umask_mode())  # mkstemp makes 0600; outputs follow the umask
        # a file name of non-UTF-8 bytes (surrogate-escaped) is written as a \udcXX escape
        with os.fdopen(fd, mode, encoding="utf-8" if text else None,
                       errors=ESCAPE if text else None) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp makes 0600; honour the umask
        if gen is not None:
            gen.before_replace(path)
        write_point()
        os.replace(tmp, path)
    except BaseException as exc:
        written = _size(tmp)
        Path(tmp).unlink(missing_ok=True)
        full = disk_full(exc, path, written)
        if full is not None:
            raise full from exc
        raise


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


#: how text files carry a lone surrogate (a file name's non-UTF-8 byte, ``os.fsdecode``): as the
#: JSON escape ``\udcXX``, which reads back to the same name (``os.fsencode`` gives the bytes)
ESCAPE = "backslashreplace"
_SURROGATE = re.compile("[\ud800-\udfff]")


def dumps(row: dict[str, Any]) -> str:
    """One compact JSON line; lone surrogates become ``\\uXXXX`` escapes (valid UTF-8 JSON)."""
    text = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Atomically write rows as JSONL, every credential blanked (``irforge.core.redact``: this
    and :func:`append_jsonl` are the data files' write boundary); returns the row count."""
    count = 0
    with atomic_open(path) as handle:
        for row in rows:
            handle.write(dumps(redact_data(row)) + "\n")
            count += 1
    return count


def append_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Append rows (credentials blanked) to a JSONL log, flushed per call, so a killed run
    keeps what it wrote; a full disk leaves no torn row."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(dumps(redact_data(row)) + "\n" for row in rows)
    if not text:
        return 0
    gen = active(path)
    if gen is not None:
        gen.before_append(path)
    start = _size(str(path))
    try:
        with path.open("a", encoding="utf-8", errors=ESCAPE) as handle:
            write_point(torn=lambda: (handle.write(text[:len(text) // 2]), handle.flush()))
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        full = disk_full(exc, path, len(text.encode()))
        if full is None:
            raise
        _truncate(path, start)  # no torn half row is left behind
        raise full from exc
    return text.count("\n")


def _truncate(path: Path, size: int) -> None:
    with suppress(OSError):
        os.truncate(path, size)


def write_json(path: Path, data: Any) -> None:
    """Atomically write pretty JSON (for manifests and results)."""
    with atomic_open(path) as handle:
        json.dump(data, handle, ensure_ascii=False, indent=2, sort_keys=True)
        handle.write("\n")
