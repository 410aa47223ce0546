# Two commands do everything on a fresh machine: `make demo` and `make test`.
# Each bootstraps its own virtual environment first.

PYTHON ?= python3
VENV ?= .venv
LS_VENV ?= .venv-labelstudio
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
DEMO_DIR ?= demo-bench
PYTEST_ARGS ?=
# tested versions of every dependency (make constraints regenerates it on purpose)
CONSTRAINTS ?= constraints.txt
LATEST_VENV ?= .venv-latest
# the CPU build of torch, installed first (an unpinned torch pulls CUDA wheels)
TORCH_PIN ?= torch==2.13.0

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True
export TOKENIZERS_PARALLELISM := false
# llama-cpp-python compiles from source with -march=native, which also turns on whatever the
# CPU advertises: in a VM that advertises AMX (recent Xeons) without granting it, the embedded
# model dies with 'Illegal instruction' (SIGILL in tileloadd). On x86-64 the build keeps every
# other native instruction and leaves AMX out (on a CPU without AMX the flags change nothing).
# Set your own CMAKE_ARGS (CUDA, Metal, a portable build, ...) to override.
ifeq ($(shell uname -m),x86_64)
NO_AMX := -mno-amx-tile -mno-amx-int8 -mno-amx-bf16
export CMAKE_ARGS ?= -DCMAKE_C_FLAGS="$(NO_AMX)" -DCMAKE_CXX_FLAGS="$(NO_AMX)"
endif

LLAMA_CHECK := $(PY) -m irforge.llm.build_check

.PHONY: demo demo-check test test-fast test-latest constraints lint venv clean chromium

$(VENV)/.installed: pyproject.toml $(CONSTRAINTS)
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip wheel setuptools
	# torch first, pinned: 2.13.0 is the local CPU build (an unpinned torch pulls CUDA wheels);
	# the [eval] extra asks only torch>=2.1,<3, so a user's own CUDA build is kept
	$(PIP) install -q $(TORCH_PIN)
	# every other package at the version the tests passed with (constraints.txt)
	$(PIP) install -q -c $(CONSTRAINTS) -e ".[all,dev]"
	# pip reuses a llama-cpp-python wheel it built before, whatever CPU and CMAKE_ARGS it was
	# built for: run the embedded model once in a child process and, when that build dies on
	# this CPU (132: SIGILL), drop pip's cached wheel and build it again here
	$(LLAMA_CHECK) || { echo "make: rebuilding llama-cpp-python for this CPU (the build above failed to run)"; \
	  $(PIP) cache remove llama_cpp_python || true; \
	  $(PIP) install -q --force-reinstall --no-deps -c $(CONSTRAINTS) llama-cpp-python && $(LLAMA_CHECK); }
	touch $@

# Regenerate constraints.txt from the current environment, on purpose, after `make test`
# passed on it (local version labels such as +cpu are dropped: ==2.13.0 matches 2.13.0+cpu).
constraints:
	@test -x $(PY) || { echo "no $(VENV) to read versions from: run make venv first"; exit 1; }
	{ echo "# Tested versions of irforge's dependencies (pip constraints), generated $$(date -u +%Y-%m-%d)"; \
	  echo "# from $(VENV), the environment make test runs in. Regenerate on purpose: make constraints"; \
	  echo "# (then run make test again). make test-latest shows what the newest releases break."; \
	  $(PIP) freeze --exclude-editable | grep -v -i '^irforge[ =@]' | sed -E 's/\+[A-Za-z0-9.]+$$//'; \
	} > $(CONSTRAINTS).new && mv $(CONSTRAINTS).new $(CONSTRAINTS)
	@echo "wrote $(CONSTRAINTS): $$(grep -vc '^#' $(CONSTRAINTS)) pins"

# The newest releases of every dependency, upper bounds in pyproject.toml ignored, in a venv of
# their own: shows what a future install would break. Not part of `make test`.
test-latest:
	rm -rf $(LATEST_VENV)
	$(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install -q --upgrade pip wheel setuptools
	$(LATEST_VENV)/bin/python -m pip install -q $(TORCH_PIN)
	$(LATEST_VENV)/bin/python -m pip install -q -e ".[all,dev]"
	$(LATEST_VENV)/bin/python -m pip install -q --upgrade $$($(LATEST_VENV)/bin/python -c \
	  "import re, sys; toml = __import__('tomllib' if sys.version_info >= (3, 11) else 'tomli'); \
	  p = toml.load(open('pyproject.toml', 'rb'))['project']; \
	  deps = p['dependencies'] + [d for ds in p['optional-dependencies'].values() for d in ds]; \
	  names = {re.split(r'[<>=!~;\[ ]', d, maxsplit=1)[0] for d in deps}; \
	  print(' '.join(sorted(n for n in names if n not in ('irforge', 'torch'))))") \
	  || echo "note: the newest releases of some packages could not be installed together (above)"
	$(LATEST_VENV)/bin/python -m pip list --format=freeze | grep -v -i '^irforge' > $(LATEST_VENV)/versions.txt
	@echo "newest releases installed: $(LATEST_VENV)/versions.txt (diff it with $(CONSTRAINTS))"
	IRFORGE_LABEL_STUDIO_BIN=$(abspath $(LS_VENV))/bin/label-studio \
	  $(LATEST_VENV)/bin/python -m pytest -m "not slow" $(PYTEST_ARGS)

# Label Studio's server pins old Django/openai packages: it gets its own environment.
$(LS_VENV)/.installed:
	$(PYTHON) -m venv $(LS_VENV)
	$(LS_VENV)/bin/python -m pip install -q --upgrade pip
	$(LS_VENV)/bin/python -m pip install -q label-studio==1.23.2
	touch $@

venv: $(VENV)/.installed

demo: $(VENV)/.installed
	$(VENV)/bin/irforge demo --out $(DEMO_DIR)

# every run the demo evaluated, exported as TREC, scored alike by irforge, ranx, pytrec_eval and
# ir_measures (per query, 1e-9): exit 1 names a disagreement, 3 when no run was evaluated
demo-check: $(VENV)/.installed
	$(PY) benchmarks/export_agreement.py $(DEMO_DIR)

# the viewer test drives a real headless Chromium (Debian's package; playwright's own
# browser download is not used)
chromium:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium; }

test: $(VENV)/.installed $(LS_VENV)/.installed chromium
	IRFORGE_LABEL_STUDIO_BIN=$(abspath $(LS_VENV))/bin/label-studio \
	  $(PY) -m pytest -m "slow or not slow" $(PYTEST_ARGS)

test-fast: $(VENV)/.installed
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check irforge tests benchmarks

clean:
	rm -rf $(VENV) $(LS_VENV) $(LATEST_VENV) $(DEMO_DIR)
