"""Rerankers found by spec: cross-encoder, pointwise yes/no LLM, listwise LLM (engine)."""

from __future__ import annotations

from pathlib import Path

from irforge.retrievers.base import Reranker, UnknownRetrieverError, build


def _cross(argument: str | None):
    from irforge.eval.rerankers.cross import CrossEncoderReranker

    if not argument:
        raise UnknownRetrieverError("cross-encoder needs a model: cross-encoder:PATH_OR_NAME")
    return CrossEncoderReranker(argument)


def _pointwise_llama(argument: str | None):
    from irforge.eval.rerankers.pointwise import LlamaYesNo, PointwiseLLMReranker

    return PointwiseLLMReranker(LlamaYesNo(Path(argument) if argument else None))


def _pointwise_hf(argument: str | None):
    from irforge.eval.rerankers.pointwise import PointwiseLLMReranker, TransformersYesNo

    if not argument:
        raise UnknownRetrieverError("llm-pointwise-hf needs a model folder or .gguf file: "
                                    "llm-pointwise-hf:PATH")
    return PointwiseLLMReranker(TransformersYesNo(argument))


def _listwise(argument: str | None):
    from irforge.eval.rerankers.listwise import ListwiseReranker
    from irforge.llm import Engine

    return ListwiseReranker(Engine(model=argument))


RERANKERS = {
    "cross-encoder": _cross,
    "llm-pointwise": _pointwise_llama,
    "llm-pointwise-hf": _pointwise_hf,
    "llm-listwise": _listwise,
}


def get_reranker(spec: str) -> Reranker:
    """``"cross-encoder:PATH"``, ``"llm-pointwise"`` (embedded GGUF via llama.cpp),
    ``"llm-pointwise-hf:PATH"`` (transformers), ``"llm-listwise[:MODEL]"`` (LLM engine)."""
    return build(spec, RERANKERS, "reranker")  # type: ignore[return-value]
