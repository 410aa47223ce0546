"""The build pipeline with a scripted engine: every step's outputs validated, failures recorded.

The scripted engine answers from a table keyed by (template, item) the way the real engine's
results look (status, value, raw); it stands in for the LLM so the orchestration, the
validators' effect and the written files can be checked exactly. The real local model runs in
test_instructions_e2e.py.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from irforge.check.folder import check_benchmark
from irforge.core.records import Doc
from irforge.generators.instructions import BuildSettings, build_instructions, load_dimensions
from irforge.generators.instructions.pairs import Pair
from irforge.generators.instructions.steps import user_names
from irforge.steps.runner import BuildRunner


@dataclass
class Result:
    status: str
    value: Any = None
    raw: str | None = None
    error: str | None = None
    model: str = "scripted"
    prompt_id: str = ""


class ScriptedEngine:
    """Answers each template with a function of the item; records every call."""

    def __init__(self, answers):
        self.answers, self.calls = answers, []

    def run(self, items, template_name, output_model, step, *, sample=0, max_tokens=None):
        out = []
        for item in items:
            self.calls.append((template_name, dict(item)))
            text = self.answers[template_name](item)
            if text is None:
                out.append(Result("error", raw=None, error="timeout", prompt_id=template_name))
                continue
            field = next(iter(output_model.model_fields))
            out.append(Result("ok", output_model(**{field: text}), json.dumps({field: text}),
                              prompt_id=template_name))
        return out

    def manifest_entry(self):
        return {"model": "scripted", "calls": len(self.calls)}


EXPERT = ("Hydrological forecasting couples quantitative precipitation estimates with "
          "rainfall-runoff models to derive river stage thresholds for tiered flood alerts.")
# the given document is a seed: it is rewritten for each audience (its own is not assumed)
REWRITES = {"expert": ("Operational flood forecasting assimilates radar-derived precipitation "
                       "estimates into calibrated rainfall-runoff models; exceedance of river "
                       "stage thresholds triggers tiered flood alerts."),
            "layman": ("Forecasters use rain measurements and river models to decide when to "
                       "warn people that a flood is coming.")}
KW_DOCS = {"k1": "Sandbags slow shallow floodwater at doorways.",
           "k2": "Sirens warn residents when the river rises.",
           "k3": "Sirens and sandbags are both used in towns."}


def _instruction(item):
    if item["condition"] == "expert":
        return "How do flood warnings work? Do not use technical language."  # negated: rejected
    return f"How do flood warnings work? Please focus on {item['condition']}, {item['phrasing']}."


def _answers():
    reversals: dict[str, Any] = defaultdict(itertools.count)
    return {
        "instructions.keyword": lambda item: {KW_DOCS["k1"]: "sandbags",
                                              KW_DOCS["k2"]: "and"}.get(item["document"]),
        "instructions.rewrite_audience": lambda item: REWRITES[item["target"]],
        "instructions.instruction": lambda item: (
            _instruction(item) if item["dimension"] == "audience" else
            f"What stops flood damage? Tell me about {item['condition']}."),
        # each reversal differs, as real ones do (the gates reject a repeated query): a
        # condition's first reversal is the plain one, later ones add words
        "instructions.reverse": lambda item: (
            f"How do flood warnings work? Please avoid anything about {item['condition']}"
            + " at all" * (next(reversals[item["condition"]]) if item else 0) + "."),
        "instructions.hard_negative": lambda item: (
            "Flood insurance premiums rose in many towns last year, and brokers say that "
            "homeowners now compare policies more carefully than before."),
    }


def _pairs():
    pairs = [Pair("q1", "How do flood warnings work?", Doc("e1", EXPERT), "audience", None)]
    pairs += [Pair("q2", "What stops flood damage?", Doc(doc_id, text), "keyword", None)
              for doc_id, text in KW_DOCS.items()]
    return pairs


def test_build_writes_benchmark_and_records_every_rejection(tmp_path):
    engine = ScriptedEngine(_answers())
    report = build_instructions(BuildRunner.open(engine, tmp_path / "b", "instructions"), _pairs(),
                                load_dimensions(), BuildSettings(hard_negatives=1, seed=3))
    bench_dir = tmp_path / "b"
    assert check_benchmark(bench_dir).ok
    failures = [json.loads(line) for line in (bench_dir / "failures.jsonl").read_text()
                .splitlines()]
    by_item = {f["item_id"]: f for f in failures}
    # keyword: "and" is a stop-word, "sandbags" also occurs in k3, k3's answer timed out
    assert "also occurs in 1 other positive" in by_item["q2/k1"]["reason"]
    assert "stop-word" in by_item["q2/k2"]["reason"] and by_item["q2/k2"]["raw_output"]
    assert by_item["q2/k3"]["reason"] == "llm error: timeout"
    # q2 keeps no keyword document, so the group cannot have a reversed mode
    assert "0 positive document(s)" in by_item["q2"]["reason"]
    # the expert instruction negates its own condition and is rejected
    assert "negates the condition 'expert'" in by_item["q1-audience-expert"]["reason"]
    assert report.failures_by_step == {"instructions.keyword": 3, "instructions.group": 1,
                                       "instructions.instruction": 1}
    queries = [json.loads(line) for line in (bench_dir / "queries.jsonl").read_text()
               .splitlines()]
    assert [q["_id"] for q in queries] == ["q1-audience-layman"]
    meta = queries[0]["metadata"]
    assert meta["gold_doc_id"] == "e1--audience-layman"
    assert meta["reversed"] == "How do flood warnings work? Please avoid anything about layman."
    assert meta["instructed"].endswith(f"layman, {meta['phrasing']}.")
    changed = (bench_dir / "qrels" / "changed.tsv").read_text().splitlines()[1:]
    # the pair is the seed's two rewrites: the expert one is a negative of the layman unit
    assert sorted(changed) == ["q1-audience-layman\te1--audience-expert\t0",
                               "q1-audience-layman\te1--audience-layman\t1",
                               "q1-audience-layman\tq1--hardneg-1\t0"]
    manifest = json.loads((bench_dir / "manifest.json").read_text())
    assert manifest["steps"]["instructions"]["engine"] == {"model": "scripted",
                                                        "calls": len(engine.calls)}
    judged = [json.loads(line)["task"] for line in (bench_dir / "judgments.jsonl").read_text()
              .splitlines()]
    assert judged.count("instructions.rewrite") == 2 and "instructions.reverse" in judged


def test_rewrites_get_seeded_forum_user_names():
    assert user_names(7, "q1/d1/forum_post", 4) == user_names(7, "q1/d1/forum_post", 4)
    assert user_names(7, "q1/d1/forum_post", 4) != user_names(8, "q1/d1/forum_post", 4)
    assert len(set(user_names(0, "k", 5))) == 5


def test_source_rewrite_prompt_names_the_users(tmp_path):
    engine = ScriptedEngine({**_answers(), "instructions.rewrite_source": lambda item: None})
    pair = Pair("q3", "Why did the dam fail?", Doc("n1", "Officials said the dam failed."),
                "source", None)
    build_instructions(BuildRunner.open(engine, tmp_path / "b", "instructions"), [pair],
                       load_dimensions(), BuildSettings(hard_negatives=0, seed=5))
    forum = next(item for name, item in engine.calls if name == "instructions.rewrite_source"
                 and item["target"] == "forum post")
    names = user_names(5, "q3/n1/forum_post", 4)
    assert ", ".join(names) in forum["requirements"]
    failures = (tmp_path / "b" / "failures.jsonl").read_text()
    steps = [json.loads(line)["step"] for line in failures.splitlines()]
    # the seed is rewritten into every source value (news article too): all three fail
    assert steps.count("instructions.rewrite") == 3 and "needs 2" in failures


def test_corpus_mode_keeps_distractors_but_not_dropped_positives(tmp_path):
    from irforge.core.bench import Benchmark
    from irforge.core.records import Qrel, Query
    from irforge.generators.instructions.pairs import pairs_from_beir

    source = Benchmark(tmp_path / "in")
    source.write_corpus([Doc("e1", EXPERT), Doc("e2", EXPERT + " Gauges are checked hourly."),
                         Doc("x1", "Tide tables for the harbour.")])
    source.write_queries([Query("q1", "How do flood warnings work?")])
    source.write_qrels([Qrel("q1", "e1", 1), Qrel("q1", "e2", 1)])
    pairs, corpus = pairs_from_beir(source.root, "audience")
    engine = ScriptedEngine(_answers())
    build_instructions(BuildRunner.open(engine, tmp_path / "out", "instructions"), pairs,
                       load_dimensions(), BuildSettings(hard_negatives=0, phrasings=2, seed=0),
                       distractors=corpus)
    out = Benchmark(tmp_path / "out")
    doc_ids = {doc.doc_id for doc in out.corpus()}
    # e1 is the query's seed, e2 a second seed: it fails and must not stay unjudged; the seed
    # itself is left out too (its rewrites stand for it), the distractor x1 stays
    assert "e2" not in doc_ids and "e1" not in doc_ids
    assert {"x1", "e1--audience-expert", "e1--audience-layman"} <= doc_ids
    assert any(f.item_id == "q1/e2" and "already has its seed document e1" in f.reason
               for f in out.failures())
    # two phrasings per condition -> two layman units (the expert ones are rejected)
    assert sorted(q.query_id for q in out.queries()) == ["q1-audience-layman",
                                                          "q1-audience-layman-p2"]
    styles = {q.metadata["phrasing"] for q in out.queries()}
    assert len(styles) == 2


def _render_user(template: str, variables: dict) -> str:
    from irforge.prompts.registry import get_template

    return get_template(template).render(**variables)[-1]["content"]


def test_a_seeded_audience_group_is_made_of_its_rewrites_only(tmp_path):
    from irforge.core.bench import Benchmark

    # both instructions are accepted, so each rewrite is the gold document of its own unit
    answers = {**_answers(), "instructions.instruction": lambda item: (
        f"How do flood warnings work? Please focus on {item['condition']}, "
        f"{item['phrasing']}.")}
    engine = ScriptedEngine(answers)
    seed_meta = {"doc_id": "floods.html", "file": "floods.html", "section": "Warnings",
                 "char_start": 10, "char_end": 300, "tokens": 40}
    pair = Pair("q1", "How do flood warnings work?", Doc("e1", EXPERT, metadata=seed_meta),
                "audience", None)
    # in corpus mode the seed is also a document of the input corpus
    distractors = [Doc("e1", EXPERT), Doc("x1", "Tide tables for the harbour.")]
    build_instructions(BuildRunner.open(engine, tmp_path / "b", "instructions"), [pair],
                       load_dimensions(), BuildSettings(hard_negatives=0, seed=3),
                       distractors=distractors)
    bench = Benchmark(tmp_path / "b")
    # the seed is rewritten for every audience, and its own audience is never asserted
    rewrites = [item for name, item in engine.calls if name == "instructions.rewrite_audience"]
    assert sorted(item["target"] for item in rewrites) == ["expert", "layman"]
    for item in rewrites:
        assert item["document"] == EXPERT and item["source_description"] == ""
        prompt = _render_user("instructions.rewrite_audience", item)
        assert EXPERT in prompt and "not written for" not in prompt
        assert ", not " not in prompt.split(EXPERT)[1]  # no "..., not <source audience>"
    # groups.jsonl: both rewrites are members, the given document is recorded as the seed
    groups = [json.loads(line) for line in
              (tmp_path / "b" / "instructions" / "groups.jsonl").read_text().splitlines()]
    assert len(groups) == 1 and groups[0]["seed"] == "e1"
    assert groups[0]["members"] == [
        {"doc_id": "e1--audience-expert", "condition": "expert", "origin": "rewritten"},
        {"doc_id": "e1--audience-layman", "condition": "layman", "origin": "rewritten"}]
    # one unit per audience, each gold on its own rewrite and judged against the other
    queries = {q.query_id: q for q in bench.queries()}
    assert set(queries) == {"q1-audience-expert", "q1-audience-layman"}
    assert queries["q1-audience-expert"].metadata["gold_doc_id"] == "e1--audience-expert"
    assert bench.qrels_dict("changed")["q1-audience-expert"] == {
        "e1--audience-expert": 1, "e1--audience-layman": 0}
    assert bench.qrels_dict("reversed")["q1-audience-expert"] == {
        "e1--audience-expert": 0, "e1--audience-layman": 1}
    # the seed answers the core query unjudged: it is in no qrels file and not in the corpus
    for mode in ("og", "changed", "reversed"):
        qrels = (tmp_path / "b" / "qrels" / f"{mode}.tsv").read_text()
        assert "\te1\t" not in qrels and "e1--audience-layman" in qrels, mode
    docs = {doc.doc_id: doc for doc in bench.corpus()}
    assert set(docs) == {"e1--audience-expert", "e1--audience-layman", "x1"}
    # a rewrite stays a passage of the seed's document (rules reading the document apply),
    # but not its span in the file, which measured the seed's own text
    meta = docs["e1--audience-expert"].metadata
    assert (meta["doc_id"], meta["file"], meta["section"]) == ("floods.html", "floods.html",
                                                               "Warnings")
    assert meta["rewritten_from"] == "e1" and not {"char_start", "char_end", "tokens"} & set(meta)
    # the validators ranked each unit among the rewrites (its positives), not the seed
    target = queries["q1-audience-expert"].metadata["target"]
    assert set(target["positives"]) == {"e1--audience-expert", "e1--audience-layman"}
    assert check_benchmark(tmp_path / "b").ok


def test_an_explicit_audience_condition_is_trusted_and_rewritten_into_the_others(tmp_path):
    """A pairs row that names its document's condition is trusted, as before the seeds: the
    document is a member with that condition and the missing audience is rewritten from it."""
    engine = ScriptedEngine(_answers())
    pair = Pair("q1", "How do flood warnings work?", Doc("e1", EXPERT), "audience", "expert")
    build_instructions(BuildRunner.open(engine, tmp_path / "b", "instructions"), [pair],
                       load_dimensions(), BuildSettings(hard_negatives=1, seed=3))
    rewrites = [item for name, item in engine.calls if name == "instructions.rewrite_audience"]
    assert [item["target"] for item in rewrites] == ["layman"]
    groups = [json.loads(line) for line in
              (tmp_path / "b" / "instructions" / "groups.jsonl").read_text().splitlines()]
    assert "seed" not in groups[0]
    assert [(m["doc_id"], m["condition"]) for m in groups[0]["members"]] == [
        ("e1", "expert"), ("e1--audience-layman", "layman")]


PARAGRAPH = ("Flood warnings start with rain gauges and river sensors. Forecasters compare the "
             "readings with past floods and decide how serious the danger is. Towns then sound "
             "sirens and send messages so that people can move to higher ground in time.")
LONG = " ".join(f"Gauge {n} on the river recorded a rise during the storm." for n in range(40))


def test_a_length_document_stands_as_paragraph_only_when_its_text_shows_it(tmp_path):
    """Length keeps rewrite.from (paragraph): a document without a condition is taken as a
    paragraph when it is one; a far longer one fails before any LLM call; a pairs row that
    names the condition is trusted."""
    engine = ScriptedEngine({**_answers(), "instructions.rewrite_length": lambda item: None})
    query = "How do flood warnings work?"
    told = LONG.replace("storm", "night")  # as long, but its row names the condition
    pairs = [Pair("q5", query, Doc("long", LONG), "length", None),
             Pair("q6", query, Doc("told", told), "length", "paragraph"),
             Pair("q7", query, Doc("para", PARAGRAPH), "length", None)]
    assert len(LONG.split()) >= 400
    build_instructions(BuildRunner.open(engine, tmp_path / "b", "instructions"), pairs,
                       load_dimensions(), BuildSettings(hard_negatives=0, seed=3))
    failures = [json.loads(line) for line in (tmp_path / "b" / "failures.jsonl").read_text()
                .splitlines()]
    by_item = {f["item_id"]: f for f in failures}
    reason = by_item["q5/long"]["reason"]
    assert by_item["q5/long"]["step"] == "instructions.pairs"
    assert "was to stand as 'paragraph' (rewrite.from) but its text does not show it" in reason
    assert "above the maximum 250" in reason
    # no LLM call of any step shows the document that failed
    assert engine.calls and not [name for name, item in engine.calls
                                 if any(LONG in str(value) for value in item.values())]
    sources = sorted((item["document"], item["target"]) for name, item in engine.calls
                     if name == "instructions.rewrite_length")
    # the trusted row and the real paragraph are rewritten into the other lengths
    assert sources == sorted([(told, "sentence"), (told, "article"),
                              (PARAGRAPH, "sentence"), (PARAGRAPH, "article")])
    assert "q6/told" not in by_item and "q7/para" not in by_item
