"""How a request asks for structured output: the JSON schema field, or instructions only.

Shared by the litellm, llama.cpp and direct backends and the batch path, in a module of its own
so none of them imports another for it.
"""

from __future__ import annotations

from typing import Any

from irforge.llm.litellm_setup import silence_litellm
from irforge.llm.settings import ModelSpec


def schema_name(schema: dict[str, Any]) -> str:
    title = str(schema.get("title") or "output")
    return "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in title)[:64] or "output"


def choose_response_format(spec: ModelSpec, wanted: str) -> str:
    """``json_schema`` where the endpoint supports it (any api_base, or litellm's map says
    so), else ``instructions``; an explicit choice wins."""
    if wanted != "auto":
        return wanted
    if spec.api_base:
        return "json_schema"
    silence_litellm()
    import litellm

    try:
        supported = litellm.supports_response_schema(model=spec.name)
    except Exception:  # unknown model in the price map
        supported = False
    return "json_schema" if supported else "instructions"


def response_format_field(response_format: str, schema: dict[str, Any]) -> Any:
    """The ``response_format`` request field for a mode, or None to send none."""
    if response_format == "json_schema":
        return {"type": "json_schema", "json_schema": {
            "name": schema_name(schema), "schema": schema, "strict": False}}
    if response_format == "json_object":
        return {"type": "json_object"}
    return None
