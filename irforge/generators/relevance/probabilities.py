"""Labels from probabilities: the expected grade over the label tokens, where the backend
returns log-probs (llama.cpp in-process; OpenAI-compatible servers with ``logprobs``).

A decoded label is the argmax of the model's distribution over the scale; the expected grade
``sum(p(label) * label)`` keeps how sure the model was (0.51 "3" vs 0.49 "0" is not a 3). The
distribution is read at the token where the score field's value starts, renormalised over the
labels the step allows; both the expected grade and the argmax label are kept.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# top alternatives asked per generated token (OpenAI allows at most 20)
TOP_LOGPROBS = 20


@dataclass(frozen=True)
class LabelProbabilities:
    """The model's distribution over the allowed labels, and its mean."""

    probs: dict[int, float]

    @property
    def expected(self) -> float:
        return sum(label * p for label, p in self.probs.items())

    def as_metadata(self) -> dict[str, Any]:
        return {"label_probs": {str(k): round(v, 6) for k, v in self.probs.items()},
                "expected_grade": round(self.expected, 6)}


def label_probabilities(logprobs: Sequence[Any] | None, score_field: str,
                        allowed: Sequence[int]) -> LabelProbabilities | None:
    """The distribution over ``allowed`` labels where ``score_field``'s value was generated;
    None when there are no log-probs or no allowed label among the alternatives there."""
    if not logprobs:
        return None
    key = re.compile(rf'"{re.escape(score_field)}"\s*:\s*$')
    text = ""
    for token, logprob, alternatives in logprobs:
        if token.strip() and key.search(text):
            found: dict[int, float] = {}
            for piece, value in ((token, logprob), *alternatives):
                digits = piece.strip()
                # ASCII digits only: "²".isdigit() is true, but int("²") fails
                if not (digits.isascii() and digits.isdigit()):
                    continue
                if int(digits) in allowed and int(digits) not in found:
                    found[int(digits)] = math.exp(value)
            total = sum(found.values())
            if total <= 0:
                return None
            return LabelProbabilities({k: v / total for k, v in sorted(found.items())})
        text += token
    return None
