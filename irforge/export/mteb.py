"""MTEB export: the Hugging Face folder MTEB's retrieval loader reads as it is, plus
``mteb_task.py``, a generated ``AbsTaskRetrieval`` whose ``dataset.path`` is that folder.

Use: ``from mteb_task import task; mteb.evaluate(model, tasks=[task()])`` (docs/export.md).
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

from irforge.core.jsonl import atomic_open
from irforge.export.hf import write_card
from irforge.export.hf_folder import write_configs
from irforge.export.source import ExportResult, ExportSource, instruction_of

TASK_TEMPLATE = '''"""MTEB task of the irforge benchmark {name!r} (irforge export --format mteb).

Register and run it::

    import mteb, mteb_task
    results = mteb.evaluate(mteb.get_model("sentence-transformers/all-MiniLM-L6-v2"),
                            tasks=[mteb_task.task()])
"""

from pathlib import Path

from mteb.abstasks.retrieval import AbsTaskRetrieval
from mteb.abstasks.task_metadata import TaskMetadata

FOLDER = Path(__file__).resolve().parent


class {class_name}(AbsTaskRetrieval):
    metadata = TaskMetadata(
        name={task_name!r},
        description={description!r},
        reference=None,
        dataset={{"path": str(FOLDER), "revision": "local"}},
        type={task_type!r},
        category="t2t",
        modalities=["text"],
        eval_splits={splits!r},
        eval_langs=["eng-Latn"],
        main_score="ndcg_at_10",
        date=({today!r}, {today!r}),
        domains=None,
        task_subtypes=None,
        license={license_id!r},
        annotations_creators="LM-generated and reviewed",
        dialect=[],
        sample_creation="LM-generated and verified",
        bibtex_citation="",
    )


def task() -> {class_name}:
    """A fresh instance of the task (MTEB tasks hold loaded data)."""
    return {class_name}()
'''


def _class_name(name: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", name) or ["Bench"]
    text = "".join(word[:1].upper() + word[1:] for word in words)
    return ("Irforge" + text if text[0].isdigit() else text) + "Retrieval"


def export(source: ExportSource, out: Path, file_format: str = "parquet",
           license_id: str | None = None) -> ExportResult:
    files, configs = write_configs(source, out, file_format)
    chosen, _ = source.licence(license_id)
    files.append(write_card(source, out, configs, chosen, source.name))
    task_license = "not specified" if chosen == "unknown" else chosen  # MTEB's spelling
    class_name = _class_name(source.name)
    has_instructions = any(instruction_of(q) for q in source.queries)
    path = out / "mteb_task.py"
    with atomic_open(path) as handle:
        handle.write(TASK_TEMPLATE.format(
            name=source.name, class_name=class_name, task_name=class_name,
            description=f"irforge benchmark {source.name}: {len(source.docs)} passages, "
                        f"{len(source.queries)} queries.",
            task_type="InstructionRetrieval" if has_instructions else "Retrieval",
            splits=sorted(source.qrels), today=date.today().isoformat(),
            license_id=task_license))
    files.append(path)
    return ExportResult("mteb", out, files, source.counts(),
                        [f"task definition: {path} (class {class_name})"])
