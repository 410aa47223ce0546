from __future__ import annotations

import json
from pathlib import Path

import pytest

from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError
from irforge.core.records import Doc, Failure, Judgment, Qrel, Query, Run, RunEntry, qrels_to_dict

DOCS = [
    Doc("d1", "Floods are rising.", title="Floods", metadata={"source": "a.pdf", "page": 3}),
    Doc("d2", "Ünïcode text — kept as is.", title=""),
    Doc("d3", "No metadata"),
]
QUERIES = [
    Query("q1", "why floods", metadata={"conditions": ["c1", "c2"], "style": "instruction"}),
    Query("q2", "plain"),
]
QRELS = [Qrel("q1", "d1", 2), Qrel("q1", "d2", 0), Qrel("q2", "d3", 1)]


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_round_trip_of_every_record_type(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path / "bench")
    assert bench.write_corpus(DOCS) == 3
    assert bench.write_queries(QUERIES) == 2
    assert bench.write_qrels(QRELS) == 3
    judgments = [
        Judgment("q1", "d1", 2.0, "llm", prompt_id="relevance.zero_shot", model="m",
                 raw_output='{"score": 2}', metadata={"strategy": "zero_shot"}),
        Judgment("q1", "d1", 3, "human", annotator="7"),
    ]
    bench.add_judgments(judgments[:1])
    bench.add_judgments(judgments[1:])  # appends, never rewrites
    failures = [Failure("multicon.conditions", "d2", "sentence not in document", raw_output="x")]
    bench.add_failures(failures)

    assert list(bench.corpus()) == DOCS
    assert list(bench.queries()) == QUERIES
    assert list(bench.qrels()) == QRELS
    assert list(bench.judgments()) == judgments
    assert list(bench.failures()) == failures
    assert bench.qrels_dict() == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}


def test_files_use_beir_and_mteb_field_names(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path)
    bench.write_corpus(DOCS)
    bench.write_queries(QUERIES)
    bench.write_qrels(QRELS)
    first_doc = json.loads(bench.corpus_path.read_text(encoding="utf-8").splitlines()[0])
    assert set(first_doc) >= {"_id", "title", "text"}
    first_query = json.loads(bench.queries_path.read_text(encoding="utf-8").splitlines()[0])
    assert set(first_query) >= {"_id", "text"}
    lines = (tmp_path / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "query-id\tcorpus-id\tscore"
    assert lines[1] == "q1\td1\t2"
    # BEIR's GenericDataLoader reading logic: csv reader over TSV, header skipped, int scores
    import csv

    with (tmp_path / "qrels" / "test.tsv").open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_MINIMAL)
        next(reader)
        loaded = {(row[0], row[1]): int(row[2]) for row in reader}
    assert loaded == {("q1", "d1"): 2, ("q1", "d2"): 0, ("q2", "d3"): 1}


def test_reads_a_real_published_benchmark(comlq_dir: Path) -> None:
    bench = Benchmark(comlq_dir)
    docs = list(bench.corpus())
    queries = list(bench.queries())
    qrels = list(bench.qrels())
    assert (len(docs), len(queries), len(qrels)) == (11251, 2909, 4601)
    assert docs[0].doc_id == "10000" and docs[0].text.startswith("Aaron Aaron")
    assert docs[5625].doc_id == str(10000 + 5625)
    assert docs[-1].doc_id == "21250"
    assert queries[0] == Query("0", "Who is the brother of Moses?",
                               metadata={"answer": "Aaron", "type": "1p"})
    assert queries[-1].metadata["type"]
    assert qrels[0] == Qrel("0", "10000", 2)
    assert {q.relevance for q in qrels} == {1, 2}


def test_writes_are_atomic(tmp_path: Path) -> None:
    path = tmp_path / "corpus.jsonl"
    beir.write_corpus(path, DOCS)

    def broken():
        yield DOCS[0]
        raise RuntimeError("generator died mid-way")

    with pytest.raises(RuntimeError):
        beir.write_corpus(path, broken())
    assert list(beir.read_corpus(path)) == DOCS  # old file intact
    assert [p.name for p in tmp_path.iterdir()] == ["corpus.jsonl"]  # no temp file left


@pytest.mark.parametrize(
    ("content", "line", "field", "words"),
    [
        ('{"_id": "a", "text": "x"}\n{"_id": "b", "text": \n', 2, None, "malformed JSON"),
        ('{"_id": "a", "text": "x"}\n{"text": "y"}\n', 2, "_id", "missing"),
        ('{"_id": "a", "text": "x"}\n\n{"_id": "a", "text": "y"}\n', 3, "_id", "duplicate id"),
        ('{"_id": "a"}\n', 1, "text", "missing"),
        ('{"_id": "a", "text": 5}\n', 1, "text", "must be a string"),
        ('["a", "b"]\n', 1, None, "expected a JSON object"),
    ],
)
def test_bad_corpus_lines_name_file_line_and_field(tmp_path: Path, content: str, line: int,
                                                   field: str | None, words: str) -> None:
    path = write(tmp_path / "corpus.jsonl", content)
    with pytest.raises(FormatError) as info:
        list(beir.read_corpus(path))
    problem = info.value.problem
    assert (problem.path, problem.line, problem.field) == (path, line, field)
    assert words in str(info.value)
    assert f"corpus.jsonl:{line}" in str(info.value)


def test_non_utf8_file_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "queries.jsonl",
                 b'{"_id": "q1", "text": "ok"}\n{"_id": "q2", "text": "caf\xe9"}\n')
    with pytest.raises(FormatError, match=r"queries.jsonl:2: not valid UTF-8"):
        list(beir.read_queries(path))


def test_bad_qrels_rows(tmp_path: Path) -> None:
    path = write(tmp_path / "qrels" / "test.tsv",
                 "query-id\tcorpus-id\tscore\nq1\td1\thigh\nq1\td1\n")
    problems = []
    assert list(beir.read_qrels(path, problems.append)) == []
    assert [(p.line, p.field) for p in problems] == [(2, "score"), (3, None)]
    with pytest.raises(FormatError, match="not an integer"):
        list(beir.read_qrels(path))


def test_qrels_accept_trec_format_and_no_header(tmp_path: Path) -> None:
    path = write(tmp_path / "qrels.txt", "q1 0 d1 1\nq1 0 d2 0\n")
    assert list(beir.read_qrels(path)) == [Qrel("q1", "d1", 1), Qrel("q1", "d2", 0)]


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="file not found"):
        list(Benchmark(tmp_path).corpus())


def test_manifest_records_steps_and_keeps_earlier_ones(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path)
    bench.record_step("corpus", {"docs": 3})
    bench.record_step("multicon", {"queries": 10, "cost_usd": 0.0})
    manifest = bench.manifest()
    assert set(manifest["steps"]) == {"corpus", "multicon"}
    assert manifest["steps"]["corpus"]["docs"] == 3
    assert manifest["irforge_version"]
    bench.manifest_path.write_text("{not json", encoding="utf-8")
    with pytest.raises(FormatError, match="unreadable manifest"):
        bench.manifest()


def test_run_ranking_breaks_ties_like_trec_eval() -> None:
    run = Run.from_entries("bm25", [RunEntry("q", "b", 1.0), RunEntry("q", "a", 1.0),
                                    RunEntry("q", "c", 2.0)])
    assert [doc for doc, _ in run.ranked("q")] == ["c", "b", "a"]
    assert qrels_to_dict(QRELS)["q1"] == {"d1": 2, "d2": 0}


def test_folder_loads_with_beirs_own_loader(tmp_path: Path) -> None:
    from beir.datasets.data_loader import GenericDataLoader

    bench = Benchmark(tmp_path)
    bench.write_corpus(DOCS)
    bench.write_queries(QUERIES)
    bench.write_qrels(QRELS)
    corpus, queries, qrels = GenericDataLoader(data_folder=str(tmp_path)).load(split="test")
    assert corpus == {d.doc_id: {"text": d.text, "title": d.title} for d in DOCS}
    assert queries == {q.query_id: q.text for q in QUERIES}
    assert qrels == bench.qrels_dict()


def test_rerun_adds_no_copies_to_the_logs(tmp_path: Path) -> None:
    bench = Benchmark(tmp_path)
    judgment = Judgment("q1", "d1", 2.0, "llm", prompt_id="p", model="m",
                        metadata={"b": 1, "a": 2})
    failure = Failure("step", "d1", "not in document", raw_output="x")
    assert bench.add_judgments([judgment, judgment]) == 1
    assert bench.add_failures([failure]) == 1
    # a re-run produces the same rows (metadata in another key order): nothing is appended
    again = Judgment("q1", "d1", 2.0, "llm", prompt_id="p", model="m", metadata={"a": 2, "b": 1})
    assert bench.add_judgments([again]) == 0
    assert bench.add_failures([failure]) == 0
    changed = Judgment("q1", "d1", 3.0, "human", annotator="ann1")
    assert bench.add_judgments([changed]) == 1
    assert len(list(bench.judgments())) == 2 and len(list(bench.failures())) == 1
