"""Local rerankers pick device and precision like the dense retriever: half precision on a GPU
(even when the device is named), fp32 on CPU; llama.cpp offloads every layer when it can."""

from __future__ import annotations

from typing import ClassVar

import pytest
import torch

from irforge.eval.rerankers import cross, pointwise
from irforge.eval.rerankers.cross import CrossEncoderReranker
from irforge.eval.rerankers.pointwise import LlamaYesNo, TransformersYesNo, gpu_layers
from irforge.retrievers.device import encode_options


class FakeCuda:
    def __init__(self, bf16: bool) -> None:
        self.bf16 = bf16

    def is_available(self) -> bool:
        return True

    def is_bf16_supported(self) -> bool:
        return self.bf16


class Recorder:
    """Stands in for a model class: keeps the arguments it was built with."""

    built: ClassVar[list[dict]] = []
    pad_token = "<pad>"  # what a tokenizer has

    def __init__(self, *args, **kwargs) -> None:
        Recorder.built.append({"args": args, **kwargs})

    @classmethod
    def from_pretrained(cls, *args, **kwargs):
        return cls(*args, **kwargs)

    def to(self, device):
        Recorder.built[-1]["to"] = device
        return self

    def eval(self):
        return self


@pytest.fixture
def recorder(monkeypatch):
    import sentence_transformers
    import transformers

    Recorder.built = []
    monkeypatch.setattr(sentence_transformers, "CrossEncoder", Recorder)
    monkeypatch.setattr(transformers, "AutoModelForCausalLM", Recorder)
    monkeypatch.setattr(transformers, "AutoTokenizer", Recorder)
    return Recorder.built


def test_cross_encoder_runs_in_half_precision_on_a_gpu_with_bigger_batches(monkeypatch,
                                                                             recorder):
    monkeypatch.setattr(torch, "cuda", FakeCuda(bf16=True))
    reranker = CrossEncoderReranker("model")
    reranker._load()
    assert recorder[-1]["device"] == "cuda"
    assert recorder[-1]["model_kwargs"]["dtype"] is torch.bfloat16
    assert reranker.batch_size == cross.GPU_BATCH
    named = CrossEncoderReranker("model", device="cuda:0", batch_size=16)
    named._load()
    assert recorder[-1]["device"] == "cuda:0"
    assert recorder[-1]["model_kwargs"]["dtype"] is torch.bfloat16  # not fp32
    assert named.batch_size == 16


def test_cross_encoder_on_cpu_is_fp32_unless_asked(monkeypatch, recorder):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    CrossEncoderReranker("model")._load()
    assert (recorder[-1]["device"], recorder[-1]["model_kwargs"]["dtype"]) == ("cpu",
                                                                               torch.float32)
    with encode_options(dtype="bf16"):
        CrossEncoderReranker("model")._load()
    assert recorder[-1]["model_kwargs"]["dtype"] is torch.bfloat16


def test_transformers_pointwise_named_gpu_gets_half_precision(monkeypatch, recorder):
    monkeypatch.setattr(torch, "cuda", FakeCuda(bf16=False))
    scorer = TransformersYesNo("folder", device="cuda:1")
    scorer._load()
    model = recorder[-1]
    assert model["dtype"] is torch.float16 and model["to"] == "cuda:1"


def test_llama_cpp_offloads_all_layers_when_it_has_a_gpu(monkeypatch, tmp_path):
    import llama_cpp

    built: list[dict] = []
    monkeypatch.setattr(llama_cpp, "Llama", lambda **kwargs: built.append(kwargs) or object())
    gguf = tmp_path / "m.gguf"
    for offload, layers in ((True, -1), (False, 0)):
        monkeypatch.setattr(llama_cpp, "llama_supports_gpu_offload", lambda o=offload: o)
        assert gpu_layers(llama_cpp) == layers
        LlamaYesNo(gguf)._load()
        assert built[-1]["n_gpu_layers"] == layers
    LlamaYesNo(gguf, n_gpu_layers=12)._load()
    assert built[-1]["n_gpu_layers"] == 12
    monkeypatch.setattr(llama_cpp, "llama_supports_gpu_offload", lambda: True)
    with encode_options(device="cpu"):
        on_cpu = LlamaYesNo(gguf)
    on_cpu._load()
    assert built[-1]["n_gpu_layers"] == 0  # --device cpu keeps llama.cpp off the GPU
    assert pointwise.gpu_layers(object()) == 0  # a build without the function
