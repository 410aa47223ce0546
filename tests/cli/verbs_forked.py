"""Run ``irforge`` verbs as forked children of one process that imported irforge and the heavy
libraries its verbs load (torch, sentence-transformers) once.

Each verb still runs in a process of its own, with its own folder, environment and output
files, and dies of its own SIGKILL as ``python -m irforge`` would; only the imports, which
cost most of a small verb's seconds, are paid once per test module instead of once per run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO

# the server: imports once, then per request forks a child that runs the verb and exits
SERVER = r"""
import atexit, importlib, json, os, signal, sys, traceback

for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
from irforge.cli.app import main

requests = os.fdopen(0, "r", encoding="utf-8")
replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
print(json.dumps({"ready": True}), file=replies, flush=True)
for line in requests:
    ask = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            signal.alarm(ask["timeout"])  # a verb that hangs dies (SIGALRM)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            for fd, name in ((1, "stdout"), (2, "stderr")):
                os.dup2(os.open(ask[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
            os.chdir(ask["cwd"])
            os.environ.clear()
            os.environ.update(ask["env"])
            sys.argv = ["irforge", *ask["argv"]]
            main(ask["argv"])
            code = 0
        except SystemExit as stop:
            if stop.code is None or isinstance(stop.code, int):
                code = stop.code or 0
            else:
                print(stop.code, file=sys.stderr)
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                atexit._run_exitfuncs()
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), file=replies,
          flush=True)
"""

#: imported once by the server: every verb module, and the libraries verbs import lazily
PRELOAD = ("irforge.cli.app", "numpy", "torch", "sentence_transformers")


class ForkedVerbs:
    """One server process; :meth:`run` runs one verb in a forked child and waits for it."""

    def __init__(self, env: dict[str, str], preload: tuple[str, ...] = PRELOAD) -> None:
        from irforge.cli.app import COMMANDS

        modules = [*preload, *sorted({target.split(":")[0] for _, _, target in COMMANDS})]
        self.output = Path(tempfile.mkdtemp(prefix="irforge-verbs-"))
        self.process = subprocess.Popen([sys.executable, "-c", SERVER, *modules], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, encoding="utf-8")
        self._read()

    def _read(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the verb server exited ({self.process.wait()})")
        return json.loads(line)

    def run(self, argv: list[str], cwd: Path, env: dict[str, str], timeout: int = 300
            ) -> subprocess.CompletedProcess[str]:
        """``irforge ARGV`` in ``cwd`` with exactly ``env``: its exit code (-9 when killed),
        stdout and stderr, as :func:`subprocess.run` gives them."""
        out, err = self.output / "stdout", self.output / "stderr"
        stdin: IO[str] | None = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps({"argv": argv, "cwd": str(cwd), "env": env, "timeout": timeout,
                                "stdout": str(out), "stderr": str(err)}) + "\n")
        stdin.flush()
        code = self._read()["returncode"]
        return subprocess.CompletedProcess(argv, code, out.read_text(errors="replace"),
                                           err.read_text(errors="replace"))

    def close(self) -> None:
        import shutil

        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.output, ignore_errors=True)
