"""Pointwise LLM reranking: P(yes) from the normalised "yes"/"no" logits of the next token.

The prompt is the template ``eval.pointwise_rerank`` (Qwen3-Reranker style, stage-aware
decomposition paper section 3). Two backends: llama.cpp for a GGUF (the embedded SmolLM2 by
default; demo grade) and transformers for a local model folder or GGUF file on CPU or GPU.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

from irforge.core.errors import require
from irforge.core.records import Doc, Query, Run
from irforge.eval.rerankers.base import DEFAULT_INSTRUCTION, pairs_for, run_from_pairs
from irforge.prompts import get_template

Messages = list[dict[str, str]]
TEMPLATE = "eval.pointwise_rerank"


def yes_probability(logit_yes: float, logit_no: float) -> float:
    """softmax over the two answer logits, taking "yes": ``1 / (1 + exp(no - yes))``."""
    return 1.0 / (1.0 + math.exp(logit_no - logit_yes))


class YesNoScorer(Protocol):
    """Something that reads the next-token logits of "yes" and "no" after a chat prompt."""

    name: str

    def logits(self, conversations: Sequence[Messages]) -> list[tuple[float, float]]: ...


def gpu_layers(llama_cpp) -> int:
    """Layers to offload: all (-1) when this llama.cpp build has GPU offload, else 0."""
    supports = getattr(llama_cpp, "llama_supports_gpu_offload", None)
    return -1 if supports is not None and bool(supports()) else 0


class LlamaYesNo:
    """llama.cpp backend (``logits_all=True`` so the last position's logits can be read);
    every layer on the GPU when the llama.cpp build can offload, none under ``--device cpu``
    (``n_gpu_layers`` overrides both)."""

    def __init__(self, gguf: Path | None = None, n_ctx: int = 2048, seed: int = 0,
                 n_gpu_layers: int | None = None) -> None:
        if gguf is None:
            from irforge.llm.settings import embedded_gguf

            gguf = embedded_gguf()
        self.path, self.n_ctx, self.seed = Path(gguf), n_ctx, seed
        from irforge.retrievers.device import current_options

        on_cpu = current_options().device == "cpu"
        self.n_gpu_layers = 0 if n_gpu_layers is None and on_cpu else n_gpu_layers
        self.name = f"llama-{self.path.stem}"
        self._llm = None

    def _load(self):
        if self._llm is None:
            llama_cpp = require("llama_cpp", "local")
            layers = gpu_layers(llama_cpp) if self.n_gpu_layers is None else self.n_gpu_layers
            self._llm = llama_cpp.Llama(model_path=str(self.path), n_ctx=self.n_ctx,
                                        logits_all=True, seed=self.seed, verbose=False,
                                        n_gpu_layers=layers)
        return self._llm

    def _prompt(self, llm, messages: Messages) -> list[int]:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        template = llm.metadata.get("tokenizer.chat_template")
        eos = llm.detokenize([llm.token_eos()]).decode("utf-8", "ignore")
        bos = llm.detokenize([llm.token_bos()]).decode("utf-8", "ignore")
        text = Jinja2ChatFormatter(template, eos_token=eos, bos_token=bos)(
            messages=messages).prompt
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return tokens[-(self.n_ctx - 1):]

    def logits(self, conversations: Sequence[Messages]) -> list[tuple[float, float]]:
        llm = self._load()
        yes = llm.tokenize(b"yes", add_bos=False, special=False)[0]
        no = llm.tokenize(b"no", add_bos=False, special=False)[0]
        out = []
        for messages in conversations:
            tokens = self._prompt(llm, messages)
            llm.reset()
            llm.eval(tokens)
            last = llm.scores[llm.n_tokens - 1]
            out.append((float(last[yes]), float(last[no])))
        return out


class TransformersYesNo:
    """transformers backend: a model folder, or a ``.gguf`` file (de-quantised on load); on a
    GPU in bf16/fp16, on CPU in fp32 (``device``/``dtype``, or ``--device``/``--dtype``)."""

    def __init__(self, model: str, batch_size: int = 8, max_length: int = 2048,
                 device: str | None = None, dtype: str | None = None) -> None:
        from irforge.retrievers.device import current_options

        options = current_options()
        self.model, self.batch_size, self.max_length = model, batch_size, max_length
        self.device, self.dtype = device or options.device, dtype or options.dtype
        self.name = f"hf-{Path(model).name}"
        self._loaded = None

    def _load(self):
        if self._loaded is None:
            torch = require("torch", "eval")
            transformers = require("transformers", "eval")
            from irforge.retrievers.device import placement

            where = placement(self.device, self.dtype)
            device, dtype = where.device, where.dtype
            path = Path(self.model)
            kwargs = ({"gguf_file": path.name} if path.suffix == ".gguf" else {})
            source = str(path.parent) if path.suffix == ".gguf" else self.model
            tokenizer = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
            tokenizer.padding_side = "left"
            if tokenizer.pad_token is None:
                tokenizer.pad_token = tokenizer.eos_token
            model = transformers.AutoModelForCausalLM.from_pretrained(
                source, dtype=getattr(torch, dtype), **kwargs).to(device).eval()
            self._loaded = (torch, tokenizer, model, device)
        return self._loaded

    def logits(self, conversations: Sequence[Messages]) -> list[tuple[float, float]]:
        torch, tokenizer, model, device = self._load()
        yes = tokenizer.encode("yes", add_special_tokens=False)[0]
        no = tokenizer.encode("no", add_special_tokens=False)[0]
        out: list[tuple[float, float]] = []
        for start in range(0, len(conversations), self.batch_size):
            texts = [tokenizer.apply_chat_template(m, add_generation_prompt=True, tokenize=False)
                     for m in conversations[start:start + self.batch_size]]
            batch = tokenizer(texts, return_tensors="pt", padding=True, truncation=True,
                              max_length=self.max_length, add_special_tokens=False).to(device)
            with torch.no_grad():
                last = model(**batch).logits[:, -1, :].float()
            out.extend((float(row[yes]), float(row[no])) for row in last)
        return out


class PointwiseLLMReranker:
    """Rerank by P(yes) that the document satisfies the query, one prompt per pair."""

    failed_calls = 0  # a local model either answers or raises

    def __init__(self, scorer: YesNoScorer, instruction: str = DEFAULT_INSTRUCTION,
                 max_chars: int = 2000) -> None:
        self.scorer, self.instruction, self.max_chars = scorer, instruction, max_chars
        self.template = get_template(TEMPLATE)
        self.name = f"pointwise-{scorer.name}"

    def conversation(self, query: str, document: str) -> Messages:
        """The rendered prompt for one pair (system + user messages)."""
        return self.template.render(instruction=self.instruction, query=query,
                                    document=document)

    def score_texts(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """P(yes) for (query, document) texts."""
        logits = self.scorer.logits([self.conversation(q, d) for q, d in pairs])
        return [yes_probability(y, n) for y, n in logits]

    def rerank(self, queries: Sequence[Query], docs_by_id: Mapping[str, Doc], run: Run,
               k: int) -> Run:
        pairs = pairs_for(queries, run, k, docs_by_id, self.max_chars)
        scores = self.score_texts([(p[2], p[3]) for p in pairs])
        return run_from_pairs(self.name, queries, pairs, scores, run)
