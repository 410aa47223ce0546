"""--taxonomy: derived from the corpus by default, DisastIR by name, or a YAML file."""

from __future__ import annotations

from pathlib import Path

from irforge.generators.intents import build_tasks, choose_taxonomy, load_intents
from irforge.generators.intents.build import plan
from tests.generators.test_domain_profile import BAKING


def test_default_taxonomy_is_derived_and_every_category_has_seeds() -> None:
    chosen = choose_taxonomy(None, BAKING, seed=0)
    assert chosen.derived and chosen.taxonomy.name == "derived"
    keys = [c.key for c in chosen.taxonomy.categories]
    assert len(keys) == len(set(keys)) == len(chosen.pools) >= 1
    assert all(chosen.pools[key] for key in keys)
    manifest = chosen.manifest()
    assert manifest["derived"] and all(c["passages"] >= 1 for c in manifest["categories"])
    assert "derived from the corpus" in chosen.describe()
    planned, empty, tasks = plan(BAKING, [load_intents()["QA"]], chosen, 2, seed=0)
    assert not empty and len(planned) == 2 * len(tasks)
    for item in planned:  # seeds come from the category's own cluster
        assert item.seed_doc.doc_id in chosen.pools[item.task.category.key]


def test_disastir_by_name_and_a_file(tmp_path: Path) -> None:
    disastir = choose_taxonomy("disastir", BAKING)
    assert not disastir.derived and len(disastir.taxonomy.categories) == 8
    assert len(build_tasks([load_intents()["QA"]], disastir.taxonomy)) == 8
    _, empty, _ = plan(BAKING, [load_intents()["QA"]], disastir, 1, seed=0)
    assert len(empty) == 8  # a baking corpus has no disaster passage: why derived is default
    path = tmp_path / "tax.yaml"
    path.write_text("name: mine\ncategories:\n  - {name: Dough, keywords: [dough]}\n",
                    encoding="utf-8")
    mine = choose_taxonomy(path, BAKING)
    assert mine.taxonomy.name == "mine" and not mine.derived
