"""A test double of the LLM engine for plain orchestration tests (no HTTP, no model).

It renders every item with the real template (so variable mismatches fail), answers with a
scripted function per template, and validates the answer with the real output model exactly as
the engine would, returning real :class:`LLMResult` records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from irforge.llm import Estimate, LLMResult
from irforge.prompts import get_template

Answer = Callable[[Mapping[str, Any]], Any]


class FakeEngine:
    """Answers per template id; an answer that is a str is returned raw (can be malformed)."""

    model = "fake-model"

    def __init__(self, answers: Mapping[str, Answer]) -> None:
        self.answers = dict(answers)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.samples_asked: list[int] = []
        self.sample = 0

    def run(self, items: Sequence[Mapping[str, Any]], template_name: str,
            output_model: type[BaseModel], step: str | None = None, *, sample: int = 0,
            max_tokens: int | None = None) -> list[LLMResult]:
        """Answers of sample ``sample`` (answer functions may read ``engine.sample``)."""
        template = get_template(template_name)
        self.sample = sample
        self.samples_asked.append(sample)
        out = []
        for item in items:
            template.render(**dict(item))
            self.calls.append((template_name, dict(item)))
            answer = self.answers[template_name](item)
            raw = answer if isinstance(answer, str) else json.dumps(answer)
            try:
                value = output_model.model_validate_json(raw)
            except ValidationError as exc:
                out.append(LLMResult(status="invalid", raw=raw, error=str(exc).splitlines()[0],
                                     model=self.model, prompt_id=template_name))
                continue
            out.append(LLMResult(status="ok", value=value, raw=raw, model=self.model,
                                 prompt_id=template_name))
        return out

    def estimate(self, items: Sequence[Mapping[str, Any]], template_name: str,
                 output_model: type[BaseModel]) -> Estimate:
        """A fixed price per item: 100 prompt tokens, 10 completion tokens, $0.001/$0.002."""
        n = len(items)
        return Estimate(self.model, n, 0, n, 100 * n, 10 * n, 0.001 * n, 0.002 * n, True)
