"""Where a model runs and in what precision: device, dtype and batch defaults per device class.

``placement(device, dtype)`` resolves both: no device means CUDA when torch sees one, else CPU;
no dtype (or ``"auto"``) means bf16 on a GPU that supports it, fp16 on other GPUs and fp32 on
CPU, whether the device was given or found. :func:`encode_options` sets what the command line
chose (``--device``, ``--dtype``, ``--batch-size``, ``--batch-tokens``) for every dense
retriever and local reranker built inside its ``with`` block.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

from irforge.core.errors import IrforgeError, require

DTYPE_NAMES = {"float32": "float32", "fp32": "float32", "bfloat16": "bfloat16",
               "bf16": "bfloat16", "float16": "float16", "fp16": "float16", "half": "float16"}
AUTO = "auto"
# per device class: texts per batch and tokens per batch (rows x padded length)
BATCH_DEFAULTS = {"cpu": (64, 8_192), "cuda": (1_024, 262_144), "mps": (256, 65_536)}


class DeviceError(IrforgeError, ValueError):
    """A device or dtype that cannot be used (bad name, or no such device here)."""


@dataclass(frozen=True)
class Placement:
    """A torch device string (``"cpu"``, ``"cuda:1"``) and a dtype name (``"bfloat16"``)."""

    device: str
    dtype: str

    @property
    def device_class(self) -> str:
        """``"cpu"``, ``"cuda"``, ``"mps"``: the device without its index."""
        return device_class(self.device)

    @property
    def half(self) -> bool:
        return self.dtype != "float32"


def device_class(device: str) -> str:
    """``"cuda:1"`` -> ``"cuda"``."""
    return device.partition(":")[0].strip().lower()


def dtype_name(dtype: str | None) -> str | None:
    """Canonical dtype name (``"bf16"`` -> ``"bfloat16"``); None for ``None``/``"auto"``."""
    if dtype is None or dtype.strip().lower() == AUTO:
        return None
    name = DTYPE_NAMES.get(dtype.strip().lower())
    if name is None:
        raise DeviceError(f"unknown dtype {dtype!r}: use auto, float32 (fp32), bfloat16 (bf16) "
                          "or float16 (fp16)")
    return name


def default_dtype(device: str, torch=None) -> str:
    """bf16 on a CUDA device that supports it, fp16 on other GPUs, fp32 on CPU."""
    kind = device_class(device)
    if kind == "cuda":
        torch = torch or require("torch", "eval")
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    if kind == "mps":
        return "float16"
    return "float32"


def default_device(torch=None) -> str:
    """``"cuda"`` when torch sees a GPU, else ``"cpu"``."""
    torch = torch or require("torch", "eval")
    return "cuda" if torch.cuda.is_available() else "cpu"


def placement(device: str | None = None, dtype: str | None = None) -> Placement:
    """Resolve a device (None/``"auto"``: found) and a dtype (None/``"auto"``: per device)."""
    torch = require("torch", "eval")
    chosen = default_device(torch) if device in (None, "", AUTO) else str(device).strip()
    kind = device_class(chosen)
    if kind not in BATCH_DEFAULTS:
        raise DeviceError(f"unknown device {device!r}: use auto, cpu, cuda or cuda:N")
    if kind == "cuda" and not torch.cuda.is_available():
        raise DeviceError(f"device {device!r} asked for, but torch sees no CUDA GPU here "
                          f"(torch {torch.__version__}); use --device cpu or a CUDA build")
    return Placement(chosen, dtype_name(dtype) or default_dtype(chosen, torch))


def batch_defaults(device: str) -> tuple[int, int]:
    """(texts per batch, tokens per batch) that suit a device class."""
    return BATCH_DEFAULTS.get(device_class(device), BATCH_DEFAULTS["cpu"])


@dataclass(frozen=True)
class EncodeOptions:
    """What the user chose for local models; None everywhere means the per-device defaults."""

    device: str | None = None
    dtype: str | None = None
    batch_size: int | None = None
    batch_tokens: int | None = None

    def __post_init__(self) -> None:
        dtype_name(self.dtype)  # fails early on a bad name
        if self.device not in (None, "", AUTO) and device_class(self.device) not in \
                BATCH_DEFAULTS:
            raise DeviceError(f"unknown device {self.device!r}: use auto, cpu, cuda or cuda:N")
        for field, value in (("batch_size", self.batch_size),
                             ("batch_tokens", self.batch_tokens)):
            if value is not None and value < 1:
                raise DeviceError(f"{field} must be at least 1, got {value}")


_OPTIONS: ContextVar[EncodeOptions | None] = ContextVar("irforge_encode_options", default=None)


def current_options() -> EncodeOptions:
    """The options set by the innermost :func:`encode_options` block (defaults outside)."""
    return _OPTIONS.get() or EncodeOptions()


@contextmanager
def encode_options(**changes) -> Iterator[EncodeOptions]:
    """Use these device/dtype/batch options for models built inside the block."""
    options = replace(current_options(), **changes)
    token = _OPTIONS.set(options)
    try:
        yield options
    finally:
        _OPTIONS.reset(token)


def torch_dtype(name: str, torch=None):
    """The torch dtype object of a canonical name."""
    torch = torch or require("torch", "eval")
    return getattr(torch, name)
