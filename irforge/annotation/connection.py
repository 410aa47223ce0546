"""Connect to a Label Studio server (SDK 2.x) and turn its failures into clear errors.

Settings come from, in order: explicit arguments, the environment (``LABEL_STUDIO_URL``,
``LABEL_STUDIO_API_KEY``), then a YAML or JSON file with ``url`` and ``api_key`` keys (given
explicitly, or ``IRFORGE_LABEL_STUDIO_CONFIG``, or ``~/.config/irforge/label_studio.yaml``).
The token is never written to a benchmark folder, manifest or log.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from irforge.annotation.errors import (
    AnnotationError,
    AuthenticationFailed,
    ProjectNotFound,
    ServerUnreachable,
)
from irforge.core.errors import FormatError, Problem, require

DEFAULT_CONFIG = Path("~/.config/irforge/label_studio.yaml")
T = TypeVar("T")


@dataclass(frozen=True)
class LabelStudioSettings:
    """Where the server is and the token to use (the token is hidden from repr)."""

    url: str
    api_key: str = field(repr=False)
    timeout: float = 60.0

    @property
    def base_url(self) -> str:
        return self.url.rstrip("/")


def _read_config_file(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix == ".json" else _yaml(text)
    except Exception as exc:
        raise FormatError(Problem(path, f"unreadable config: {exc}",
                                  hint="write 'url: ...' and 'api_key: ...'")) from exc
    if not isinstance(data, dict):
        raise FormatError(Problem(path, "config must be a mapping with url and api_key"))
    return data


def _yaml(text: str) -> Any:
    import yaml

    return yaml.safe_load(text)


def load_settings(url: str | None = None, api_key: str | None = None,
                  config_file: Path | None = None) -> LabelStudioSettings:
    """Resolve the server URL and token from arguments, environment, then a config file."""
    path = config_file or (Path(os.environ["IRFORGE_LABEL_STUDIO_CONFIG"])
                           if os.environ.get("IRFORGE_LABEL_STUDIO_CONFIG") else None)
    if path is None and DEFAULT_CONFIG.expanduser().is_file():
        path = DEFAULT_CONFIG.expanduser()
    if path is not None and not Path(path).is_file():
        raise AnnotationError(f"Label Studio config file {path} not found")
    from_file = _read_config_file(Path(path)) if path is not None else {}
    url = url or os.environ.get("LABEL_STUDIO_URL") or from_file.get("url")
    api_key = api_key or os.environ.get("LABEL_STUDIO_API_KEY") or from_file.get("api_key")
    where = (f"the config file {path}" if path is not None else
             f"a config file ({DEFAULT_CONFIG}, or one named by --settings or "
             f"IRFORGE_LABEL_STUDIO_CONFIG)")
    if not url:
        raise AnnotationError(f"no Label Studio URL: set LABEL_STUDIO_URL (for example "
                              f"http://127.0.0.1:8080) or put 'url: ...' in {where}")
    if not api_key:
        raise AnnotationError(f"no Label Studio token: set LABEL_STUDIO_API_KEY (Account & "
                              f"Settings > Access Token) or put 'api_key: ...' in {where}")
    return LabelStudioSettings(url=checked_url(str(url)), api_key=str(api_key))


def checked_url(url: str) -> str:
    """``url`` when it is a usable http(s) server address; otherwise an AnnotationError."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port  # raises for a malformed port
    except ValueError as exc:
        raise AnnotationError(f"Label Studio URL {url!r} is malformed ({exc}); give it like "
                              "http://127.0.0.1:8080 or http://[::1]:8080") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise AnnotationError(f"Label Studio URL {url!r} must be http(s)://HOST[:PORT], e.g. "
                              "http://127.0.0.1:8080")
    del port
    return url


@contextmanager
def explained(settings: LabelStudioSettings, doing: str,
              project: int | None = None) -> Iterator[None]:
    """Translate connection, auth and not-found failures of the SDK into AnnotationErrors."""
    import httpx
    from label_studio_sdk.core.api_error import ApiError

    try:
        yield
    except httpx.TransportError as exc:
        raise ServerUnreachable(
            f"while {doing}: no Label Studio answers at {settings.base_url} ({exc}); start it "
            f"(`label-studio start --internal-host 127.0.0.1 --port 8080`) or fix "
            f"LABEL_STUDIO_URL. Nothing local was changed.") from exc
    except ApiError as exc:
        status = exc.status_code
        if status == 401 or (status == 403 and project is None):
            raise AuthenticationFailed(
                f"while {doing}: Label Studio at {settings.base_url} rejected the token "
                f"(HTTP {status}); copy the token from Account & Settings into "
                f"LABEL_STUDIO_API_KEY. Nothing local was changed.") from exc
        if status == 404 and project is not None:
            raise ProjectNotFound(
                f"while {doing}: project {project} does not exist at {settings.base_url}; "
                f"check --project or run `irforge annotate push` to create it.") from exc
        raise AnnotationError(f"while {doing}: Label Studio answered HTTP {status}: "
                              f"{_short(exc.body)}") from exc


def _short(body: Any) -> str:
    text = json.dumps(body) if not isinstance(body, str) else body
    return text[:300]


class LabelStudio:
    """A checked connection: the SDK client plus the settings used to explain failures."""

    def __init__(self, settings: LabelStudioSettings) -> None:
        sdk = require("label_studio_sdk", "annotation")
        self.settings = settings
        self.client = sdk.LabelStudio(base_url=settings.base_url, api_key=settings.api_key,
                                      timeout=settings.timeout)

    def call(self, doing: str, function: Callable[..., T], *args: Any,
             project: int | None = None, **kwargs: Any) -> T:
        """Run one SDK call with failures explained."""
        with explained(self.settings, doing, project):
            return function(*args, **kwargs)

    def whoami(self) -> Any:
        return self.call("checking the token", self.client.users.whoami)

    def project(self, project_id: int) -> Any:
        return self.call(f"opening project {project_id}", self.client.projects.get,
                         project_id, project=project_id)


def connect(settings: LabelStudioSettings | None = None) -> LabelStudio:
    """Open a connection and check the token once, so failures surface before any work."""
    connection = LabelStudio(settings or load_settings())
    connection.whoami()
    return connection
