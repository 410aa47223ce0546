"""A model's profile: ``small`` (demo grade: constrained choices help it) or ``capable``.

Steps read the profile to choose between constrained choice lists (enums of extracted names
or sentences, pick lists, grammars), which keep a 135M model from writing junk, and open
fields checked afterwards, which let a capable model write what a person would. The profile
comes from the model spec (the embedded SmolLM2 and local GGUFs under
:data:`SMALL_GGUF_BYTES` are small; bigger GGUFs, API and server models are capable) unless
the recipe (``profile:``) or ``irforge.toml`` (``[llm] profile``) names one.
"""

from __future__ import annotations

from typing import Any

from irforge.core.errors import IrforgeError
from irforge.llm.settings import ModelSpec

SMALL, CAPABLE = "small", "capable"
PROFILES = (SMALL, CAPABLE)
SMALL_GGUF_BYTES = 2 * 1024**3  # about a 3B model at 4 bits: below it, a GGUF is small


def check_profile(value: Any, where: str = "llm.profile") -> str | None:
    """``value`` as a profile name (None stays None); a clear error for anything else."""
    if value is None or value == "":
        return None
    name = str(value).strip().lower()
    if name not in PROFILES:
        raise IrforgeError(f"{where}: unknown model profile {value!r}; choose "
                           f"{' or '.join(PROFILES)} (or leave it out to derive it from the "
                           "model)")
    return name


def derived_profile(spec: ModelSpec) -> str:
    """The profile the model spec implies, with no override."""
    if spec.demo_grade:
        return SMALL
    if spec.backend == "llama" and spec.gguf_path is not None:
        try:
            size = spec.gguf_path.stat().st_size
        except OSError:
            return SMALL
        return SMALL if size < SMALL_GGUF_BYTES else CAPABLE
    return CAPABLE


def model_profile(spec: ModelSpec, override: Any = None) -> str:
    """The override when given (checked), else the profile the spec implies."""
    return check_profile(override) or derived_profile(spec)


def is_capable(engine: Any) -> bool:
    """Whether an engine (or any object with a ``profile`` attribute) is capable; objects
    without one (test fakes) count as small, which keeps the constraints."""
    return getattr(engine, "profile", SMALL) == CAPABLE


def profile_of(engine: Any) -> str:
    """An engine's profile, as :func:`is_capable` reads it (test fakes are small)."""
    return CAPABLE if is_capable(engine) else SMALL
