"""The viewer of a run folder: one page per method folder and an index page linking them."""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path

from irforge.core.collection import Outcomes, benchmark_folders, for_each
from irforge.core.jsonl import atomic_open
from irforge.viewer.render import write_viewer


@dataclass(frozen=True)
class ViewedFolder:
    """One benchmark folder's page and what it shows."""

    name: str
    html: Path
    data: dict


def write_collection_viewer(root: Path, out: Path | None = None
                            ) -> tuple[Path | None, Outcomes[ViewedFolder]]:
    """Write a page per benchmark under ``root``; for a collection also ``index.html``.

    Pages go to ``<folder>/view/index.html`` (or ``OUT/<name>/index.html``); the index goes to
    ``ROOT/view/index.html`` (or ``OUT/index.html``). A single folder writes its page only.
    """
    found = benchmark_folders(root)
    if not found.is_collection:
        path, data = write_viewer(root, out)
        return None, Outcomes([(found.name(found.root), ViewedFolder(found.name(found.root),
                                                                     path, data))])
    def view(name: str, folder: Path) -> ViewedFolder:
        path, data = write_viewer(folder, Path(out) / name / "index.html" if out else None)
        return ViewedFolder(name, path, data)

    outcomes = for_each(found, view)
    pages = [page for _, page in outcomes.done]
    index = Path(out) / "index.html" if out else found.root / "view" / "index.html"
    with atomic_open(index) as handle:
        handle.write(index_html(found.root.resolve().name, index.parent, pages))
    return index, outcomes


def index_html(title: str, base: Path, pages: list[ViewedFolder]) -> str:
    """A table of the method folders: queries, failures and raters, each linking its page."""
    rows = []
    for page in pages:
        link = Path(os.path.relpath(page.html, base)).as_posix()
        rows.append(f"<tr><td><a href='{html.escape(link)}'>{html.escape(page.name)}</a></td>"
                    f"<td>{len(page.data['queries'])}</td><td>{len(page.data['failures'])}</td>"
                    f"<td>{html.escape(', '.join(page.data['raters']))}</td></tr>")
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{style}</style></head><body><h1>{html.escape(title)}</h1>"
            "<table><tr><th>benchmark</th><th>queries</th><th>failures</th><th>raters</th></tr>"
            f"{''.join(rows)}</table></body></html>\n")
