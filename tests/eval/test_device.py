"""Device and dtype resolution: per-device defaults, explicit choices, clear errors."""

from __future__ import annotations

import pytest
import torch

from irforge.retrievers.device import (
    DeviceError,
    EncodeOptions,
    batch_defaults,
    current_options,
    dtype_name,
    encode_options,
    placement,
)


class FakeCuda:
    """torch.cuda as a machine with a GPU would show it."""

    def __init__(self, bf16: bool) -> None:
        self.bf16 = bf16

    def is_available(self) -> bool:
        return True

    def is_bf16_supported(self) -> bool:
        return self.bf16


@pytest.mark.parametrize(("bf16", "dtype"), [(True, "bfloat16"), (False, "float16")])
def test_an_explicit_cuda_device_gets_half_precision(monkeypatch, bf16, dtype):
    monkeypatch.setattr(torch, "cuda", FakeCuda(bf16))
    assert placement("cuda:1") == placement("cuda:1", "auto")
    assert (placement("cuda:1").device, placement("cuda:1").dtype) == ("cuda:1", dtype)
    assert placement().device == "cuda" and placement().dtype == dtype
    assert placement("cuda", "fp32").dtype == "float32"
    assert placement("cpu").dtype == "float32"


def test_cpu_defaults_to_fp32_and_accepts_an_explicit_dtype():
    assert placement("cpu").dtype == "float32"
    assert placement("cpu", "bf16").dtype == "bfloat16"
    assert placement("cpu").device_class == "cpu" and not placement("cpu").half
    assert batch_defaults("cpu") == (64, 8_192)
    assert batch_defaults("cuda:0")[1] > batch_defaults("cpu")[1]


def test_bad_names_and_missing_gpus_are_explained(monkeypatch):
    with pytest.raises(DeviceError, match=r"unknown dtype 'float8'.*bfloat16"):
        dtype_name("float8")
    with pytest.raises(DeviceError, match="unknown device 'tpu'"):
        placement("tpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(DeviceError, match=r"sees no CUDA GPU.*--device cpu"):
        placement("cuda")
    with pytest.raises(DeviceError, match="batch_size must be at least 1"):
        EncodeOptions(batch_size=0)
    with pytest.raises(DeviceError, match="unknown device 'gpu0'"):
        EncodeOptions(device="gpu0")


def test_encode_options_apply_inside_the_block_only():
    assert current_options() == EncodeOptions()
    with encode_options(dtype="fp16", batch_size=8) as options:
        assert current_options() is options
        assert (options.dtype, options.batch_size) == ("fp16", 8)
        with encode_options(batch_tokens=100):
            assert current_options().batch_size == 8
            assert current_options().batch_tokens == 100
    assert current_options() == EncodeOptions()
