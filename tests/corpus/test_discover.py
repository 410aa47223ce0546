"""Which files the extract stage reads, and the reason for every one it does not read."""

from __future__ import annotations

from pathlib import Path

from irforge.corpus.discover import discover


def _touch(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("Some text for the file.", encoding="utf-8")


def test_recursive_sorted_and_every_skip_has_a_reason(tmp_path: Path) -> None:
    _touch(tmp_path, "b.md", "a/z.txt", "a/b/deep.html", ".hidden.md", ".git/config.txt",
           "a/picture.png", "a/noext")
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    found = discover(tmp_path)
    # top-down, each folder's files sorted before its sorted subfolders: the same every run
    assert [item.rel for item in found.found] == ["b.md", "a/z.txt", "a/b/deep.html"]
    reasons = dict(found.skipped)
    assert reasons[".git/"].startswith("hidden:") and reasons[".hidden.md"].startswith("hidden:")
    assert reasons["loop/"].startswith("symlink:")
    assert reasons["a/picture.png"].startswith("unsupported: .png files are not read")
    assert reasons["a/noext"].startswith("unsupported: (none)")
    assert "config.txt" not in " ".join(rel for rel, _ in found.skipped)  # not searched


def test_include_and_exclude_globs_on_paths_and_names(tmp_path: Path) -> None:
    _touch(tmp_path, "notes/a.md", "notes/drafts/b.md", "web/c.html", "d.txt")
    only_md = discover(tmp_path, include=["*.md"], exclude=["drafts"])
    assert [item.rel for item in only_md.found] == ["notes/a.md"]
    reasons = dict(only_md.skipped)
    assert reasons["notes/drafts/"] == "excluded: matches --exclude 'drafts'"
    assert reasons["web/c.html"] == "not-included: matches no --include glob"
    by_path = discover(tmp_path, exclude=["web/*"])
    assert "web/c.html" not in [item.rel for item in by_path.found]
    assert dict(by_path.skipped)["web/c.html"] == "excluded: matches --exclude 'web/*'"


def test_the_benchmark_folder_inside_the_input_is_not_read(tmp_path: Path) -> None:
    _touch(tmp_path, "doc.md", "bench/corpus_work/extract/x.txt", "bench/corpus.jsonl")
    found = discover(tmp_path, skip_dirs=[tmp_path / "bench"])
    assert [item.rel for item in found.found] == ["doc.md"]
    assert dict(found.skipped)["bench/"].startswith("benchmark-folder:")


def test_a_hugging_face_dataset_folder_is_one_corpus_input(tmp_path: Path) -> None:
    _touch(tmp_path, "hf/data-00000-of-00001.arrow", "hf/state.json", "x.jsonl")
    found = discover(tmp_path)
    assert {(item.rel, item.kind) for item in found.found} == {("hf", "hf-dataset"),
                                                                ("x.jsonl", "corpus")}


def test_a_beir_folder_gives_its_corpus_not_its_queries(tmp_path: Path) -> None:
    _touch(tmp_path, "scifact/corpus.jsonl", "scifact/queries.jsonl", "scifact/qrels/test.tsv")
    found = discover(tmp_path)
    assert [item.rel for item in found.found] == ["scifact/corpus.jsonl"]
    assert dict(found.skipped)["scifact/queries.jsonl"].startswith("not-corpus:")


def test_an_input_that_is_itself_a_dataset_folder(tmp_path: Path) -> None:
    _touch(tmp_path, "dataset_info.json", "data-00000-of-00001.arrow")
    found = discover(tmp_path)
    assert [(item.path, item.kind) for item in found.found] == [(tmp_path, "hf-dataset")]


def test_licence_files_are_not_documents_unless_included(tmp_path: Path) -> None:
    """A corpus folder's LICENSE.md (the shipped sample has one) is its terms, not its text."""
    _touch(tmp_path, "LICENSE.md", "docs/COPYING", "NOTICE.txt", "licensing-guide.md", "a.txt")
    found = discover(tmp_path)
    assert [item.rel for item in found.found] == ["a.txt", "licensing-guide.md"]
    reasons = dict(found.skipped)
    for rel in ("LICENSE.md", "docs/COPYING", "NOTICE.txt"):
        assert reasons[rel].startswith("licence:") and "--include" in reasons[rel], rel
    named = discover(tmp_path, include=["LICENSE.md"])
    assert [item.rel for item in named.found] == ["LICENSE.md"]


def test_a_link_to_a_file_outside_the_input_is_skipped_unless_followed(tmp_path: Path) -> None:
    """Issue 37: a link to /etc/passwd was read into the corpus without a note."""
    inputs, outside = tmp_path / "in", tmp_path / "secret.txt"
    _touch(tmp_path, "in/a.txt", "in/sub/b.txt")
    outside.write_text("not for the corpus", encoding="utf-8")
    (inputs / "passwd.txt").symlink_to(outside)
    (inputs / "inner.txt").symlink_to(inputs / "sub" / "b.txt")  # inside: read
    found = discover(inputs)
    assert [item.rel for item in found.found] == ["a.txt", "inner.txt", "sub/b.txt"]
    reason = dict(found.skipped)["passwd.txt"]
    assert reason.startswith(f"symlink: links to {outside.resolve()}, outside the input folder")
    assert "--follow-symlinks" in reason
    followed = discover(inputs, follow_symlinks=True)
    assert "passwd.txt" in [item.rel for item in followed.found]
