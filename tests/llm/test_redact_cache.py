"""Redaction follows the environment and registered keys even though the secrets are cached."""

from __future__ import annotations

import pytest

from irforge.core.redact import MASK, known_secrets, redact, register_secret


def test_a_secret_set_changed_or_removed_after_a_first_redaction_is_followed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IRFORGE_TEST_API_KEY", raising=False)
    assert redact("value alpha-0123456789") == "value alpha-0123456789"
    monkeypatch.setenv("IRFORGE_TEST_API_KEY", "alpha-0123456789")
    assert redact("value alpha-0123456789") == f"value {MASK}"
    monkeypatch.setenv("IRFORGE_TEST_API_KEY", "beta-0123456789")
    assert redact("alpha-0123456789 beta-0123456789") == f"alpha-0123456789 {MASK}"
    monkeypatch.delenv("IRFORGE_TEST_API_KEY")
    assert "beta-0123456789" not in known_secrets()
    monkeypatch.setenv("IRFORGE_TEST_LABEL", "gamma-0123456789")
    assert redact("gamma-0123456789") == "gamma-0123456789", "only secret-named variables"


def test_a_key_registered_after_a_first_redaction_is_blanked() -> None:
    assert redact("delta-registered-0123") == "delta-registered-0123"
    register_secret("delta-registered-0123")
    assert redact("x delta-registered-0123 y") == f"x {MASK} y"
    assert known_secrets() is known_secrets(), "unchanged: not recomputed"
