"""Property-based: random bytes and random mutations of valid BEIR files never give a
traceback. Readers raise a FormatError naming the file and line; ``check`` reports problems
the same way; nothing is written."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irforge.check.folder import check_benchmark
from irforge.core import beir
from irforge.core.errors import FormatError, IrforgeError
from irforge.core.jsonl import iter_jsonl

VALID = {
    "corpus.jsonl": "".join(json.dumps(row) + "\n" for row in (
        {"_id": "d1", "title": "Flood", "text": "The river rose."},
        {"_id": "d2", "title": "", "text": "Shelters opened.", "metadata": {"page": 1}})),
    "queries.jsonl": "".join(json.dumps(row) + "\n" for row in (
        {"_id": "q1", "text": "river level?"}, {"_id": "q2", "text": "shelters?"})),
    "qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td2\t1\n",
    "judgments.jsonl": "".join(json.dumps(row) + "\n" for row in (
        {"query_id": "q1", "doc_id": "d1", "label": 2, "source": "llm", "model": "m"},
        {"query_id": "q2", "doc_id": "d2", "label": 1.0, "source": "human"})),
    "failures.jsonl": json.dumps({"step": "s", "item_id": "x", "reason": "r"}) + "\n",
}
READERS = {"corpus.jsonl": beir.read_corpus, "queries.jsonl": beir.read_queries,
           "qrels/test.tsv": beir.read_qrels, "judgments.jsonl": beir.read_judgments,
           "failures.jsonl": beir.read_failures}
JUNK = st.one_of(st.sampled_from(['"', "{", "}", "\t", "\n", "\r", ",", ":", "null", "[]",
                                  "\ufeff", "\\", "-1", "1e999", "\x00", "é", "\udcff"]),
                 st.text(max_size=6))


@st.composite
def mutated(draw: st.DrawFn, name: str) -> bytes:
    """A valid file with a few random edits: inserts, deletions, swapped or repeated lines."""
    text = VALID[name]
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "delete", "swap", "repeat"]))
        if kind == "insert":
            text = text[:where] + draw(JUNK) + text[where:]
        elif kind == "delete":
            text = text[:where] + text[where + draw(st.integers(1, 8)):]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            if kind == "swap":
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines.insert(i, lines[j])
            text = "\n".join(lines)
    return text.encode("utf-8", errors="surrogateescape")


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _read_all(name: str, path: Path) -> None:
    """Read every row; only a FormatError naming the file and line may come out."""
    try:
        list(READERS[name](path))
    except FormatError as exc:
        assert str(path) in str(exc), str(exc)
        assert exc.problem.line is not None, str(exc)
    except IrforgeError as exc:  # pragma: no cover - a non-format error is a defect here
        raise AssertionError(f"unexpected {type(exc).__name__}: {exc}") from exc


FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(name=st.sampled_from(sorted(VALID)), data=st.data())
def test_readers_give_located_messages_for_random_bytes_and_mutations(
        tmp_path_factory, name: str, data: st.DataObject) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    content = data.draw(st.one_of(st.binary(max_size=300), mutated(name)))
    path.write_bytes(content)
    before = _snapshot(root)
    _read_all(name, path)
    if name.endswith(".jsonl"):
        try:
            list(iter_jsonl(path))
        except FormatError as exc:
            assert exc.problem.line is not None and str(path) in str(exc)
    assert _snapshot(root) == before


@FUZZ
@given(files=st.dictionaries(st.sampled_from(sorted(VALID)),
                             st.one_of(st.binary(max_size=200),
                                       st.sampled_from(sorted(VALID)).flatmap(mutated)),
                             min_size=1))
def test_check_reports_problems_with_file_and_writes_nothing(tmp_path_factory,
                                                             files: dict[str, bytes]) -> None:
    root = tmp_path_factory.mktemp("bench")
    for name, text in VALID.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(files.get(name, text.encode()))
    before = _snapshot(root)
    report = check_benchmark(root)
    for problem in report.problems:
        assert str(problem).startswith(str(root)), str(problem)
        if problem.path.is_file() and problem.path.stat().st_size and "no " not in str(
                problem.message)[:3]:
            assert problem.line is not None or "manifest" in str(problem.path), str(problem)
    assert _snapshot(root) == before
