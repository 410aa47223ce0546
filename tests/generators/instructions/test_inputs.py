"""Reading pairs, grouping them per core query, and flagging pairs for manual review."""

from __future__ import annotations

import json

import pytest

from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError
from irforge.core.records import Doc, Judgment, Qrel, Query, Run
from irforge.generators.instructions import steps
from irforge.generators.instructions.assemble import assemble, assembled_records
from irforge.generators.instructions.dimensions import load_dimensions
from irforge.generators.instructions.manual_review import (
    flag_for_review,
    read_trec_run,
    write_review_list,
)
from irforge.generators.instructions.merge import previous
from irforge.generators.instructions.pairs import (
    PENDING,
    SEED,
    group_pairs,
    pairs_from_beir,
    read_pairs,
)
from irforge.generators.instructions.units import Group, Member, Unit
from irforge.steps.records import write_records


@pytest.fixture(scope="module")
def dims():
    return load_dimensions()


def _write(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _pair(doc_id, dimension="audience", condition=None, query_id="q1"):
    row = {"query_id": query_id, "query": "How do flood warnings work?", "doc_id": doc_id,
           "text": f"text of {doc_id}", "dimension": dimension}
    if condition is not None:
        row["condition"] = condition
    return row


def test_pairs_grouped_with_defaults_and_duplicates_as_failures(tmp_path, dims):
    path = _write(tmp_path / "pairs.jsonl", [
        _pair("d1"), _pair("d2", condition="layman"), _pair("d3", condition="expert"),
        _pair("d4", condition="layman"), _pair("d5"),
        _pair("k1", "keyword"), _pair("k2", "keyword"),
    ])
    groups, failures = group_pairs(read_pairs(path, dims), dims)
    audience = next(g for g in groups if g.dimension == "audience")
    # audience has no rewrite.from: a document without a condition is the query's seed, one
    # with an explicit condition is trusted
    assert [(m.doc.doc_id, m.condition) for m in audience.members] == [("d1", SEED),
                                                                      ("d2", "layman"),
                                                                      ("d3", "expert")]
    keyword = next(g for g in groups if g.dimension == "keyword")
    assert [m.condition for m in keyword.members] == [PENDING, PENDING]
    assert [f.item_id for f in failures] == ["q1/d4", "q1/d5"]
    assert "already taken by d2" in failures[0].reason
    assert "already has its seed document d1" in failures[1].reason


def test_bad_pairs_name_line_and_field(tmp_path, dims):
    path = _write(tmp_path / "pairs.jsonl", [_pair("d1"), _pair("d2", "mood")])
    with pytest.raises(FormatError, match=r"pairs.jsonl:2: field 'dimension'"):
        read_pairs(path, dims)
    path = _write(tmp_path / "pairs.jsonl", [_pair("d1", condition="toddler")])
    with pytest.raises(FormatError, match=r":1: field 'condition'.*layman"):
        read_pairs(path, dims)
    row = _pair("d1")
    del row["text"]
    path = _write(tmp_path / "pairs.jsonl", [row])
    with pytest.raises(FormatError, match=r":1: field 'text'"):
        read_pairs(path, dims)
    row = _pair("d1")
    del row["dimension"]
    path = _write(tmp_path / "pairs.jsonl", [row])
    assert read_pairs(path, dims, default_dimension="length")[0].dimension == "length"
    no_rule = _write(tmp_path / "fmt.jsonl", [_pair("d1", "format")])
    groups, failures = group_pairs(read_pairs(no_rule, dims), dims)
    assert not groups and "no condition given for format" in failures[0].reason


def test_pairs_from_a_beir_folder_use_doc_metadata_conditions(tmp_path):
    bench = Benchmark(tmp_path / "in")
    bench.write_corpus([Doc("a", "expert text", metadata={"conditions": {"audience": "layman"}}),
                        Doc("b", "other text"), Doc("c", "distractor")])
    bench.write_queries([Query("q", "flood warnings")])
    bench.write_qrels([Qrel("q", "a", 2), Qrel("q", "b", 2), Qrel("q", "c", 0)])
    pairs, corpus = pairs_from_beir(bench.root, "audience")
    assert [(p.doc.doc_id, p.condition) for p in pairs] == [("a", "layman"), ("b", None)]
    assert len(corpus) == 3


def test_pairs_only_pair_a_passage_that_answers_the_core_query(tmp_path):
    """On graded qrels a related passage (grade 1) is not paired, unless it is the query's
    source passage; each one left out is a failure with the reason. Binary qrels pair 1."""
    bench = Benchmark(tmp_path / "in")
    bench.write_corpus([Doc("a", "answers"), Doc("b", "related"), Doc("s", "its source")])
    bench.write_queries([Query("q", "flood warnings", {"seed_doc_id": "s"})])
    bench.write_qrels([Qrel("q", "a", 3), Qrel("q", "b", 1), Qrel("q", "s", 1)])
    skipped = []
    pairs, _ = pairs_from_beir(bench.root, "audience", skipped=skipped)
    assert sorted(p.doc.doc_id for p in pairs) == ["a", "s"]
    assert [f.item_id for f in skipped] == ["q/b"]
    assert "does not answer" in skipped[0].reason
    binary = Benchmark(tmp_path / "binary")
    binary.write_corpus([Doc("a", "answers"), Doc("b", "also answers")])
    binary.write_queries([Query("q", "flood warnings")])
    binary.write_qrels([Qrel("q", "a", 1), Qrel("q", "b", 1)])
    assert len(pairs_from_beir(binary.root, "audience")[0]) == 2


def _review_bench(tmp_path):
    members = (Member(Doc("d1", "one"), "expert"), Member(Doc("d2", "two"), "layman"))
    group = Group("q1", "flood warnings", "audience", members)
    units = [Unit("q1-audience-expert", "q1", "audience", "expert", "d1", "a. b.", "c. d."),
             Unit("q1-audience-layman", "q1", "audience", "layman", "d2", "a. b.", "c. d.")]
    bench = Benchmark(tmp_path / "bench")
    write_records(bench, assembled_records(assemble([group], units)))
    return bench


def test_flag_for_review_counts_low_ranks_and_low_relevance():
    qrels = {"q": {"a": 1, "b": 1, "z": 0}}
    filler = {f"f{i}": 0.5 - i / 100 for i in range(3)}
    runs = [Run("r1", {"q": {"a": 0.9, **filler, "b": 0.1}}),
            Run("r2", {"q": {"a": 0.9, **filler}}),
            Run("r3", {"q": {"b": 0.95, "a": 0.1}})]
    items = flag_for_review(qrels, runs, rank_cutoff=3)
    assert [(i.doc_id, i.reasons) for i in items] == [("b", ("ranked below 3 in 2 of 3 runs",))]
    assert items[0].ranks == {"r1": 5, "r2": None, "r3": 1}
    items = flag_for_review(qrels, runs, relevance={("q", "a"): 0.25}, rank_cutoff=3)
    assert [i.doc_id for i in items] == ["a", "b"]
    assert items[0].reasons == ("relevance 0.25 below 0.5",)


def test_review_list_written_once_per_core_query(tmp_path):
    bench = _review_bench(tmp_path)
    bench.add_judgments([Judgment("q1-audience-expert", "d1", 1, "llm"),
                         Judgment("q1-audience-expert", "d2", 3, "llm")])
    run_path = tmp_path / "bm25.trec"
    run_path.write_text("q1-audience-expert Q0 d2 1 2.0 bm25\n"
                        "q1-audience-layman Q0 d2 1 2.0 bm25\n", encoding="utf-8")
    path, count = write_review_list(bench, [read_trec_run(run_path)], rank_cutoff=1)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert count == 1 and rows[0]["doc_id"] == "d1"
    assert rows[0]["reasons"] == ["ranked below 1 in 1 of 1 runs", "relevance 0.33 below 0.5"]
    assert rows[0]["core_query_id"] == "q1" and rows[0]["document"] == "one"


def test_bad_trec_run_names_the_line(tmp_path):
    path = tmp_path / "bad.trec"
    path.write_text("q Q0 d 1 0.5 tag\nq Q0 d 2 high tag\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"bad.trec:2: field 'score'"):
        read_trec_run(path)


def test_the_core_query_s_own_form_travels_to_every_instructed_query(tmp_path, dims):
    """A refuted claim's form and stance go from the labelled folder's query (or a pairs
    row) to its group, its assembled queries and groups.jsonl, and back on a re-run."""
    bench = Benchmark(tmp_path / "in")
    bench.write_corpus([Doc("a", "answers"), Doc("b", "also answers")])
    bench.write_queries([Query("q", "Eggs boil for three minutes.",
                               {"query_form": "claim-refuted", "stance": "refuted"})])
    bench.write_qrels([Qrel("q", "a", 1), Qrel("q", "b", 1)])
    pairs, _ = pairs_from_beir(bench.root, "audience")
    recorded = {"core_form": "claim-refuted", "core_stance": "refuted"}
    assert all(dict(p.core_form) == recorded for p in pairs)
    groups, _ = group_pairs([pairs[0]], dims)
    assert dict(groups[0].core_form) == recorded
    group = Group("q", "Eggs boil for three minutes.", "audience",
                  (Member(Doc("a", "x"), "expert"), Member(Doc("b", "y"), "layman")),
                  core_form=recorded)
    unit = Unit("q-audience-expert", "q", "audience", "expert", "a", "a. b.", "c. d.")
    assembled = assemble([group], [unit])
    assert {k: assembled.queries[0].metadata[k] for k in recorded} == recorded
    condition = dims["audience"].value("expert")
    item = steps.InstructionItem(group, group.members[0], condition, 0, "a polite request")
    reverse = steps.ReverseItem(unit, group.query, condition, group.members[0].doc,
                                core_form=group.core_form)
    for step, item_ in ((steps.instruction_step(), item), (steps.reverse_step(), reverse)):
        meta = step.query_metadata(item_, unit)
        assert {k: meta[k] for k in recorded} == recorded, step.name
    out = Benchmark(tmp_path / "out")
    write_records(out, assembled_records(assembled))
    again = previous(out)
    assert again is not None and dict(again.groups[0].core_form) == recorded
    row = _pair("d1") | {"query_form": "long"}
    assert dict(read_pairs(_write(tmp_path / "p.jsonl", [row]), dims)[0].core_form) == {
        "core_form": "long"}
    with pytest.raises(FormatError, match=r":1: field 'query_form'.*keyword"):
        read_pairs(_write(tmp_path / "p.jsonl", [_pair("d1") | {"query_form": "haiku"}]), dims)
