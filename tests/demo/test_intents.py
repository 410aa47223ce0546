"""The demo stage on the shipped sample corpus, with the scripted server standing in for a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irforge.check.folder import check_benchmark
from irforge.core.jsonl import iter_jsonl
from irforge.demo import STAGES, DemoContext, stage_corpus, stage_function
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer


def _rule(match: str, answer: dict) -> Rule:
    return Rule(match, (Action.answer(answer),))


def _script(seeds: list) -> Script:
    """The demo's intents: the need is seed sentence 1 (picked by id); each seed's fact gets
    its own question, built from the fact's words so that it is grounded and not a copy."""
    from irforge.generators.intents.steps import need_sentences

    facts = []
    for seed in seeds:
        fact = need_sentences(seed)[0]
        words = [w.strip(".,;:()") for w in fact.split() if len(w) > 4][:3]
        # an FC searcher states a claim (a question would be rejected: form.intent_type)
        facts.append(_rule(f"Fact: {fact}\n\nA searcher of this kind: a user states a claim", {
            "query": f"{words[0].capitalize()} relates to {' and '.join(words[1:])}.",
            "passage": f"Here is what is known about {words[0]}."}))
        facts.append(_rule(f"Fact: {fact}", {
            "query": f"What do we know about {' and '.join(words)}?",
            "passage": f"Here is what is known about {words[0]}."}))
    return Script(default=Action.answer({}), rules=(
        _rule("Which one sentence states the fact", {"ids": [1]}), *facts, *LABELS))


LABELS = (
    _rule('Answer as {"has_answer"', {"has_answer": "Yes"}),
    _rule('Answer as {"criterion_score"', {"criterion_score": 3}),
    _rule('Answer as {"relevance_score"', {"relevance_score": 3}),
    _rule('Answer as {"final_score"', {"final_score": 3}),
    _rule('Answer as {"final_relevance_score"', {"final_relevance_score": 2}),
)


def test_demo_stage_generates_labels_and_reports(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    names = [name for name, _ in STAGES]
    assert names.index("intents") > names.index("corpus")
    stage = stage_function("intents")
    monkeypatch.setenv("IRFORGE_CACHE", str(tmp_path / "cache.sqlite"))
    ctx = DemoContext(out=tmp_path / "demo", model="openai/scripted")
    stage_corpus(ctx)
    seeds = [doc for doc in ctx.bench.corpus() if doc.doc_id[:3] in {f"d0{i}" for i in range(1, 9)}]
    with ScriptedServer(_script(seeds)) as server:
        monkeypatch.setenv("IRFORGE_API_BASE", server.url)
        summary = stage(ctx)
    bench = ctx.bench
    assert summary.startswith("4/4 queries generated for QA+FC x 2 categories")
    # a judge that gives 3 to every zero-shot pair fails its controls, and the demo says so
    assert "judge controls untrusted (accuracy" in summary
    from irforge.core.trust import read_judges

    judge = read_judges(ctx.out)["relevance"]
    assert judge["status"] == "untrusted"
    # the 8 hand-written QA/FC seed queries and the 4 generated ones: 12 positives, 12
    # other-document negatives and 10 near-misses (on-topic passages that do not answer).
    # Two sources have none: every on-topic passage for seed-d04 (heat stroke signs) holds a
    # part of its answer ("confusion" is in d14), and no other document shares a content
    # word with FC_Geo_0000's words (report, relates, describes, methods).
    assert judge["steps"]["relevance.ensemble"]["controls"] == 34
    controls = [json.loads(line) for line in
                (ctx.out / "relevance" / "controls.jsonl").read_text().splitlines()]
    missing = {c["query_id"] for c in controls} - {
        c["query_id"] for c in controls if c["kind"] == "near-miss"}
    assert missing == {"seed-d04", "FC_Geo_0000"}
    corpus = {doc.doc_id: doc for doc in bench.corpus()}
    assert len([d for d in corpus.values() if not d.metadata.get("generated")]) == 18
    queries = [q for q in bench.queries() if q.metadata.get("generated_by") == "intents"]
    assert sorted({q.metadata["category"] for q in queries}) == [
        "Geohazard", "Meteorological & Hydrological"]
    assert all(q.metadata["seed_doc_id"][:3] in {f"d0{i}" for i in range(1, 9)}
               for q in queries)
    strategies = {j.metadata["strategy"] for j in bench.judgments()}
    assert strategies == {"zero_shot", "cot", "multi_dim"}
    rows = [row for _, row in iter_jsonl(bench.root / "relevance" / "ensemble.jsonl")]
    positives = [row for row in rows if row["positive"]]
    # mean of 3, 3, 2 is 2.67 -> graded 3: nothing flagged
    assert len(positives) == 4 and not any(row["flagged"] for row in positives)
    assert "demo.intents" in json.loads(bench.manifest_path.read_text())["steps"]
    from irforge.demo import demo_yield  # the closing yield table lists the intents steps

    table = demo_yield(bench.root)
    assert table.steps["intents.query"].accepted == 4
    assert not any(step.startswith("relevance.") for step in table.steps)
    # every kept query passes its own check; the one problem is the judge the controls failed
    report = check_benchmark(bench.root)
    assert not report.audit.invalid, [str(problem) for problem in report.problems]
    assert [(p.path.name, p.field) for p in report.problems] == [("test.tsv", "judge")]


def test_hand_query_pool_names_passages_after_the_corpus_pipeline_chunked_documents():
    from irforge.core.records import Doc
    from irforge.demo.intents import first_passage

    chunked = [Doc(f"d01-flood-early-warning_{n}", "text") for n in (10, 2, 0)]
    assert first_passage(chunked, "d01-flood-early-warning") == "d01-flood-early-warning_0"
    assert first_passage([Doc("d04-heatwave-advisory", "t")], "d04-heatwave-advisory") == (
        "d04-heatwave-advisory")
    # corpus ids carry the file name with its extension (a.pdf and a.txt never collide)
    files = [Doc(f"d01-flood-early-warning.pdf_{n}", "text") for n in (3, 1)]
    assert first_passage(files, "d01-flood-early-warning") == "d01-flood-early-warning.pdf_1"
    with pytest.raises(ValueError, match="missing from the demo corpus"):
        first_passage(chunked, "d04-heatwave-advisory")
