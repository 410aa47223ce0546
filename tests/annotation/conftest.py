"""A real Label Studio server for the session (tests/label_studio_server.py starts it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.label_studio_server import LabelStudioServer, started_label_studio


@pytest.fixture(scope="session")
def label_studio() -> Iterator[LabelStudioServer]:
    with started_label_studio() as server:
        yield server
