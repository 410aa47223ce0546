"""Which transport carries a remote model's requests: the direct OpenAI-compatible path or litellm.

``auto`` picks the direct path (irforge/llm/direct.py) for OpenAI itself and any
OpenAI-compatible endpoint, and litellm for every other provider; ``IRFORGE_TRANSPORT``,
``[llm] transport`` or ``Engine(transport=...)`` force either. See docs/llm.md.
"""

from __future__ import annotations

import os

from irforge.core.errors import IrforgeError

TRANSPORT_ENV = "IRFORGE_TRANSPORT"
TRANSPORTS = ("auto", "direct", "litellm")
OPENAI_BASE = "https://api.openai.com/v1"

# litellm routing prefixes whose endpoint speaks the OpenAI chat API, and the variable that
# holds their key when none is configured
DIRECT_PREFIXES: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "hosted_vllm": "HOSTED_VLLM_API_KEY",
    "lm_studio": "LM_STUDIO_API_KEY",
    "llamafile": "LLAMAFILE_API_KEY",
    "openai_like": "OPENAI_LIKE_API_KEY",
    "custom_openai": "OPENAI_API_KEY",
}


def provider_prefix(name: str) -> str | None:
    """The litellm provider prefix of ``name`` (``openai`` in ``openai/gpt-4o``), if any."""
    head, sep, _ = name.partition("/")
    return head if sep else None


def is_litellm_provider(prefix: str) -> bool:
    """Whether litellm routes ``prefix/...`` to a provider of its own (imports litellm)."""
    from irforge.llm.litellm_setup import silence_litellm

    silence_litellm()
    import litellm

    return prefix in {str(getattr(p, "value", p)) for p in litellm.provider_list}


def openai_compatible(name: str, api_base: str | None) -> bool:
    """True when the requests for ``name`` can go to an OpenAI chat completions endpoint.

    ``openai/...`` and the other OpenAI-compatible prefixes always; with an ``api_base``
    also a bare name or a name whose prefix is no litellm provider (``Qwen/Qwen2.5-7B``).
    """
    prefix = provider_prefix(name)
    if prefix in DIRECT_PREFIXES:
        return True
    if not api_base:
        return False
    return prefix is None or not is_litellm_provider(prefix)


def choose_transport(name: str, api_base: str | None, wanted: str) -> str:
    """``direct`` or ``litellm`` for a remote model, honouring a forced choice."""
    if wanted not in TRANSPORTS:
        raise IrforgeError(f"unknown transport {wanted!r}: use one of {', '.join(TRANSPORTS)} "
                           f"(--transport, {TRANSPORT_ENV} or [llm] transport)")
    if wanted == "litellm":
        return "litellm"
    compatible = openai_compatible(name, api_base)
    if wanted == "direct" and not compatible and not api_base:
        raise IrforgeError(
            f"transport 'direct' speaks the OpenAI chat API, but {name} is routed by litellm "
            "to another provider: give --api-base for an OpenAI-compatible endpoint or use "
            "transport 'litellm'")
    return "direct" if wanted == "direct" or compatible else "litellm"


def provider_model(name: str) -> str:
    """The model name the endpoint knows: an OpenAI-compatible routing prefix removed."""
    prefix = provider_prefix(name)
    return name[len(prefix) + 1:] if prefix in DIRECT_PREFIXES else name


def provider_key(name: str, configured: str | None) -> str | None:
    """The key for the direct path: the configured one, else the provider's own variable."""
    if configured:
        return configured
    variable = DIRECT_PREFIXES.get(provider_prefix(name) or "openai", "OPENAI_API_KEY")
    return os.environ.get(variable) or None


def url_credentials(api_base: str) -> tuple[str, str | None]:
    """``api_base`` without its ``user:password@`` part, and that part as the value of an
    ``Authorization: Basic`` header (None when the URL holds no credentials). Every transport
    sends it as a header: aiohttp refuses a URL with credentials beside a header."""
    from base64 import b64encode
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(api_base)
    if parts.username is None and parts.password is None:
        return api_base, None
    user, password = unquote(parts.username or ""), unquote(parts.password or "")
    host = parts.netloc.rsplit("@", 1)[1]
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    token = b64encode(f"{user}:{password}".encode()).decode("ascii")
    return clean, f"Basic {token}"


def endpoint_base(api_base: str | None) -> str:
    """The base URL of the direct path: ``api_base``, else ``OPENAI_BASE_URL``, else OpenAI."""
    return (api_base or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE).rstrip("/")
