"""``irforge build logical`` on the command line: dry run and clear errors (no model call)."""

from __future__ import annotations

from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.beir import write_corpus
from irforge.core.errors import IrforgeError
from irforge.core.records import Doc


def corpus(tmp_path):
    path = tmp_path / "corpus.jsonl"
    write_corpus(path, [
        Doc("a1", "Aaron was the elder brother of Moses and Miriam. He served as the first high "
            "priest of the Israelites during their forty years in the desert of Sinai.", "Aaron"),
        Doc("a2", "Aaron's sister was Miriam, who led the women in song at the Red Sea. She "
            "died at Kadesh in the desert of Zin before the Israelites reached Canaan.", "Aaron"),
        Doc("c1", "Cairo is the capital of Egypt and lies on the Nile. Its old city holds the "
            "Al-Azhar Mosque, which the Fatimid caliphs founded in the year 970.", "Cairo")])
    return path


def test_dry_run_estimates_the_query_step_and_writes_nothing(tmp_path):
    bench = tmp_path / "bench"
    result = CliRunner().invoke(build_app(), [
        "build", "logical", str(bench), "--corpus", str(corpus(tmp_path)), "--types", "1p,pin",
        "--per-type", "2", "--dry-run", "--cache", str(tmp_path / "cache.sqlite")])
    assert result.exit_code == 0, result.output
    assert "query step: 4 items, 0 already cached; 4 requests" in result.output
    assert not bench.exists()


def test_unknown_type_is_reported_before_any_work(tmp_path):
    result = CliRunner().invoke(build_app(), [
        "build", "logical", str(tmp_path / "bench"), "--corpus", str(corpus(tmp_path)),
        "--types", "1p,5q"])
    assert isinstance(result.exception, IrforgeError)  # a usage error naming the flag
    assert "--types" in str(result.exception) and not (tmp_path / "bench").exists()
    assert "unknown logical query type '5q'" in str(result.exception)
