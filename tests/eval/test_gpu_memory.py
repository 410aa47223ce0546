"""Importing the BM25 retriever (and so bm25s, which may pull in JAX) never lets JAX
preallocate the GPU, unless the user chose JAX's allocation themselves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from irforge.retrievers.gpu_memory import XLA_SETTINGS, no_jax_preallocation

ROOT = Path(__file__).resolve().parents[2]
SHOW = ("import os, irforge.retrievers.bm25 as b, bm25s; "
        "print(os.environ.get('XLA_PYTHON_CLIENT_PREALLOCATE'), "
        "os.environ.get('XLA_PYTHON_CLIENT_ALLOCATOR'))")


def python(**extra: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in XLA_SETTINGS}
    env.update(PYTHONPATH=str(ROOT), **extra)
    done = subprocess.run([sys.executable, "-c", SHOW], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_the_bm25_retriever_turns_jax_preallocation_off():
    assert python() == "false None"


def test_the_users_own_jax_settings_are_kept():
    assert python(XLA_PYTHON_CLIENT_PREALLOCATE="true") == "true None"
    assert python(XLA_PYTHON_CLIENT_ALLOCATOR="platform") == "None platform"
    assert python(XLA_PYTHON_CLIENT_MEM_FRACTION=".5") == "None None"


def test_no_jax_preallocation_says_whether_it_set_the_variable(monkeypatch):
    for name in XLA_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    assert no_jax_preallocation() is True
    assert os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] == "false"
    monkeypatch.setenv("XLA_PYTHON_CLIENT_PREALLOCATE", "true")
    assert no_jax_preallocation() is False
    assert os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] == "true"
