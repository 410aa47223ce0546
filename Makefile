# Two commands do everything on a fresh machine: `make demo` and `make test`.
# Each bootstraps its own virtual environment first.

PYTHON ?= python3
VENV ?= .venv
LS_VENV ?= .venv-labelstudio
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
DEMO_DIR ?= demo-bench
PYTEST_ARGS ?=

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export LITELLM_LOCAL_MODEL_COST_MAP := True
export TOKENIZERS_PARALLELISM := false

.PHONY: demo test test-fast lint venv clean chromium

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip wheel setuptools
	# torch first, pinned: 2.13.0 is the local CPU build (an unpinned torch pulls CUDA wheels);
	# the [eval] extra asks only torch>=2.1,<3, so a user's own CUDA build is kept
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[all,dev]"
	touch $@

# Label Studio's server pins old Django/openai packages: it gets its own environment.
$(LS_VENV)/.installed:
	$(PYTHON) -m venv $(LS_VENV)
	$(LS_VENV)/bin/python -m pip install -q --upgrade pip
	$(LS_VENV)/bin/python -m pip install -q label-studio==1.23.2
	touch $@

venv: $(VENV)/.installed

demo: $(VENV)/.installed
	$(VENV)/bin/irforge demo --out $(DEMO_DIR)

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
	rm -rf $(VENV) $(LS_VENV) $(DEMO_DIR)
