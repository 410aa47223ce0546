"""Run the embedded model once: a llama.cpp build made for another CPU dies here, not mid-run.

``make venv`` runs ``python -m irforge.llm.build_check`` in a child process; a non-zero exit
(132 is SIGILL: an instruction this CPU does not run) makes it rebuild llama-cpp-python.
"""

from __future__ import annotations

import sys
import time
from importlib.metadata import version


def main() -> int:
    """Load the embedded GGUF, decode a few tokens, print what ran; 1 when it cannot."""
    from irforge.core.errors import IrforgeError
    from irforge.llm.backends import load_llama
    from irforge.llm.settings import embedded_gguf

    try:
        path = embedded_gguf()
    except IrforgeError as exc:
        print(f"build check: {exc}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    llama = load_llama(path, n_ctx=256)
    out = llama.create_completion("The capital of France is", max_tokens=4, temperature=0.0)
    tokens = out["usage"]["completion_tokens"]
    print(f"build check: llama-cpp-python {version('llama_cpp_python')} ran {path.name} on this "
          f"CPU ({tokens} tokens in {time.perf_counter() - start:.1f} s)")
    return 0 if tokens > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
