"""How well ``irforge check``'s validators separate valid from invalid queries, and their cost.

Run by hand: ``python benchmarks/validity.py [SET ...]`` (every set when none is named). The
labelled sets live in benchmarks/data/validity/: small corpora written for this benchmark
(bicycle maintenance and ceramics, written alongside the validators; amateur radio, written
afterwards as a held-out set before any rule was changed for it; ``capable_real``, passages
copied from ../shared/data/real (the Debian guide and "How to Listen to Music"), and
``capable_aquarium``, both written as a careful capable model answers the intents prompts
(keyword, question, long persona, supported and refuted claim forms) before the rules for
issue 34 changed; and ``relay_real`` and ``relay_toolshed``, every item a capable model
wrote in the relay runs of docs/capable-models.md (intents, instructions and logical, kept
and rejected alike) on ../shared/data/real and benchmarks/data/toolshed-site, labelled by the
blind reader of those runs: their README.md says which run, commit and corpus; made by
data/validity/relay_sets.py), each a BEIR folder with ``labels.tsv`` (query-id, kind:
``valid`` or the invalid kind it was written as or the reader's reason falls under, and for
the capable and relay sets the reader's reason). A query counts as flagged when any problem
names it. Prints, per validator and overall, the share of invalid queries flagged and the
share of valid queries wrongly flagged, then the wall time of
``irforge check`` against ``irforge eval --retriever bm25`` on the same folder (both as
command-line runs, median of REPEATS, same machine, same run). Aims: >= 90% invalid flagged,
<= 5% valid flagged, check <= 1.5x the eval (issue 24); on every set >= 95% invalid flagged,
<= 5% valid flagged (issue 34).

With ``--judge-model M [--api-base URL]`` each set is also checked by the LLM answer judge of
``irforge check --judge-model`` (controls mixed in; an untrusted judge flags nothing), on a
copy of the set under ``--judge-work DIR`` (default: a temporary folder) whose cache
(``DIR/SET/.irforge/cache.sqlite``) makes a re-run resume; the engine reads ``irforge.toml``
or ``IRFORGE_CONFIG`` (timeout, concurrency). It prints the judge's control figures per kind,
the flag rates without and with the judge, what the judge said of every invalid item, and
(trusted or not) its "no" rates on invalid and valid items.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench_smoke import parse

DATA = Path(__file__).resolve().parent / "data" / "validity"
REPEATS = int(os.environ.get("VALIDITY_REPEATS", "3"))  # or --repeats


def labels(folder: Path) -> dict[str, str]:
    with (folder / "labels.tsv").open(encoding="utf-8") as handle:
        return {row["query-id"]: row["kind"] for row in csv.DictReader(handle, delimiter="\t")}


def flagged(folder: Path) -> dict[str, set[str]]:
    """Query id -> the validators that flagged it."""
    from irforge.check.folder import check_benchmark

    out: dict[str, set[str]] = {}
    for problem in check_benchmark(folder).problems:
        if problem.query_id:
            out.setdefault(problem.query_id, set()).add(problem.validator or "format")
    return out


def judged(folder: Path, model: str, api_base: str | None, work: Path,
           lexical: dict[str, set[str]]) -> tuple[dict[str, set[str]], dict[str, str], object]:
    """The answer judge on a copy of ``folder`` under ``work``: query id -> {"judge.answers"}
    for what a trusted judge flagged, every verdict ("yes"/"no") by query id, the outcome."""
    from irforge.generators.answer_judge.judge import VALIDATOR, judge_benchmark
    from irforge.llm import Engine

    copy = work / folder.name
    shutil.copytree(folder, copy, dirs_exist_ok=True)  # keeps the copy's cache
    with Engine(model, api_base=api_base, bench_dir=copy) as engine:
        outcome = judge_benchmark(engine, copy, set(lexical))
    hits = {problem.query_id: {VALIDATOR} for problem in outcome.problems if problem.query_id}
    said = {query_id: verdict.answers for query_id, verdict in outcome.verdicts.items()}
    return hits, said, outcome


def _timed(args: list[str]) -> float:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "irforge", *args], env=env, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def timings(folder: Path, repeats: int) -> tuple[float, float]:
    """Median seconds of ``check`` and of a BM25 ``eval`` on a copy of ``folder``."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / folder.name
        shutil.copytree(folder, copy)
        check = [_timed(["check", str(copy)]) for _ in range(repeats)]
        evals = [_timed(["eval", str(copy), "--retriever", "bm25"]) for _ in range(repeats)]
    return statistics.median(check), statistics.median(evals)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="SET", help="labelled sets (default: all)")
    parser.add_argument("--repeats", type=int, default=REPEATS,
                        help="command-line runs timed per folder (median)")
    parser.add_argument("--judge-model", help="also run the LLM answer judge with this model")
    parser.add_argument("--api-base", help="the judge's OpenAI-compatible server")
    parser.add_argument("--judge-work", type=Path, help="where the judged copies and their "
                        "cache live (default: a temporary folder)")
    args = parse(parser, argv, repeats=1, names=["bicycle"])
    names: list[str] = args.names
    if args.judge_model is None:
        run(names, args.repeats)
        return
    if args.judge_work is not None:
        args.judge_work.mkdir(parents=True, exist_ok=True)
        run(names, args.repeats, (args.judge_model, args.api_base, args.judge_work))
        return
    with tempfile.TemporaryDirectory() as tmp:
        run(names, args.repeats, (args.judge_model, args.api_base, Path(tmp)))


def run(names: list[str], repeats: int, judge: tuple[str, str | None, Path] | None = None
        ) -> None:
    """Flag rates per validator and the check / eval time ratio on the named sets."""
    kinds: dict[str, str] = {}
    found: dict[str, set[str]] = {}
    folders = sorted(p for p in DATA.iterdir() if (p / "labels.tsv").is_file()
                     and (not names or p.name in names))
    if not folders:
        raise SystemExit(f"no labelled set named {', '.join(names)} in {DATA}")
    lexical: dict[str, set[str]] = {}
    said: dict[str, str] = {}
    for folder in folders:
        own = labels(folder)
        kinds.update({f"{folder.name}/{q}": k for q, k in own.items()})
        hits = flagged(folder)
        lexical.update({f"{folder.name}/{q}": set(v) for q, v in hits.items()})
        if judge is not None:
            extra, verdicts, outcome = judged(folder, judge[0], judge[1], judge[2], hits)
            print(f"judge on {folder.name} ({outcome.judged} queries, {outcome.controls} "
                  f"controls, {outcome.unanswered} without a verdict): {outcome.status}")
            for line in outcome.entry.get("lines", []):
                print(f"  {line}")
            for q, names_ in extra.items():
                hits.setdefault(q, set()).update(names_)
            said.update({f"{folder.name}/{q}": v for q, v in verdicts.items()})
        found.update({f"{folder.name}/{q}": v for q, v in hits.items()})
    valid = [q for q, k in kinds.items() if k == "valid"]
    invalid = [q for q, k in kinds.items() if k != "valid"]
    print(f"{len(kinds)} queries in {len(folders)} folders: {len(valid)} valid, "
          f"{len(invalid)} invalid")
    by_kind = Counter(kinds[q] for q in invalid)
    print("\ninvalid kind          flagged")
    for kind, total in sorted(by_kind.items()):
        hit = sum(1 for q in invalid if kinds[q] == kind and q in found)
        print(f"  {kind:20s} {hit}/{total} ({hit / total:.0%})")
    names = sorted({name for hits in found.values() for name in hits})
    print("\nvalidator              invalid flagged   valid flagged")
    for name in names:
        bad = sum(1 for q in invalid if name in found.get(q, ()))
        good = sum(1 for q in valid if name in found.get(q, ()))
        print(f"  {name:22s} {bad / len(invalid):6.1%} ({bad:2d})   {good / len(valid):6.1%} "
              f"({good})")
    bad = sum(1 for q in invalid if q in found)
    good = sorted(q for q in valid if q in found)
    print(f"  {'overall':22s} {bad / len(invalid):6.1%} ({bad:2d})   "
          f"{len(good) / len(valid):6.1%} ({len(good)})")
    if len(folders) > 1:
        print("\nper set                 invalid flagged   valid flagged")
        for folder in folders:
            own = [q for q in kinds if q.startswith(f"{folder.name}/")]
            bad_own = [q for q in own if kinds[q] != "valid"]
            good_own = [q for q in own if kinds[q] == "valid"]
            hit = sum(1 for q in bad_own if q in found)
            miss = sum(1 for q in good_own if q in found)
            print(f"  {folder.name:22s} {hit / len(bad_own):6.1%} ({hit}/{len(bad_own)})   "
                  f"{miss / len(good_own):6.1%} ({miss}/{len(good_own)})")
    if judge is not None:
        _judge_lines(kinds, lexical, said, invalid, valid)
    for query in good:
        print(f"  valid but flagged: {query} by {', '.join(sorted(found[query]))}")
    for query in sorted(q for q in invalid if q not in found):
        print(f"  invalid, missed: {query} ({kinds[query]})")
    print(f"\ntime (median of {repeats} command-line runs)   check      bm25 eval   ratio")
    for folder in folders:
        check, evals = timings(folder, repeats)
        print(f"  {folder.name:36s} {check:6.2f} s   {evals:6.2f} s   {check / evals:5.2f}x")


def _judge_lines(kinds: dict[str, str], lexical: dict[str, set[str]], said: dict[str, str],
                 invalid: list[str], valid: list[str]) -> None:
    """Flag rates without the judge, the judge's "no" rates (trusted or not), and its verdict
    on every invalid item."""
    bad = sum(1 for q in invalid if q in lexical)
    good = sum(1 for q in valid if q in lexical)
    print(f"  {'without the judge':22s} {bad / len(invalid):6.1%} ({bad:2d})   "
          f"{good / len(valid):6.1%} ({good})")
    bad_no = sum(1 for q in invalid if said.get(q) == "no")
    good_no = sum(1 for q in valid if said.get(q) == "no")
    print(f"  {'judge said no':22s} {bad_no / len(invalid):6.1%} ({bad_no:2d})   "
          f"{good_no / len(valid):6.1%} ({good_no})   (whether trusted or not)")
    for query in sorted(invalid):
        lex = "lexical" if query in lexical else "no lexical flag"
        print(f"  invalid {query} ({kinds[query]}; {lex}): judge said "
              f"{said.get(query, 'nothing')}")
    for query in sorted(q for q in valid if said.get(q) == "no"):
        print(f"  valid, judge said no: {query}")


if __name__ == "__main__":
    main()
