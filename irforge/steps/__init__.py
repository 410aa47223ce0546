"""LLM generation steps: the :class:`Step` declaration, its runner, and the failure format.

Every generator (multicon, instructions, logical, intents) and relevance labeling declares its
LLM steps as :class:`Step` objects and runs them with :func:`run_step`; eval's adaptive
decomposer does too. This package sits above ``irforge.llm`` and below generators and eval.
"""

from __future__ import annotations

from irforge.steps.failures import Rejected
from irforge.steps.step import Step, StepOutcome, StepYield, Validator, reason_key, run_step

__all__ = ["Rejected", "Step", "StepOutcome", "StepYield", "Validator", "reason_key",
           "run_step"]
