# The two commands a newcomer needs (README.md): `make demo` and `make test`. Everything else is plumbing.
# All real components are built or fetched by the project's own scripts into a cache keyed by version
# (~/.cache/kubectl-offsets-testbin), so only the first run on a machine is slow.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | sha256sum | cut -c1-12)

.PHONY: demo test test-eras fault-matrix unit lint setup provision clean-env krew-install

DEMO_ARGS ?=
demo: setup provision  ## set everything up and run the demo on real components (DEMO_ARGS=--keep leaves it running)
	$(PY) examples/demo.py $(DEMO_ARGS)

# A rerun of any test fails the run. For a local run only, SUITE_ARGS=--forgive-reruns lists reruns without failing
# (.ci/run clears SUITE_ARGS: CI never forgives one).
SUITE_ARGS ?=
test: setup provision  ## lint, then the whole suite on real components (parallel, one environment), and the Strimzi era matrix
	$(PY) -m tests.suite $(SUITE_ARGS)

ERAS ?= 0.45 0.51 1.2
test-eras: setup provision  ## the black-box online, MirrorMaker 2 and GitOps-trigger scenarios on every Strimzi profile
	$(PY) -m tests.run_eras --eras $(ERAS)

FAULT_ARGS ?=
fault-matrix: setup provision  ## the whole fault matrix on Strimzi's real operator, every fault at every step (hours; FAULT_ARGS="--strimzi 0.45")
	$(PY) benchmarks/fault_matrix.py --operator-faults $(FAULT_ARGS)
	$(PY) benchmarks/fault_matrix.py $(FAULT_ARGS)

unit: setup  ## the fast loop: no real components
	$(PY) -m pytest tests/unit -q

lint: setup  ## ruff and mypy as configured in pyproject.toml (tests/suite.py runs them first, too)
	$(PY) -m ruff check kubectl_offsets tests examples benchmarks packaging
	$(PY) -m mypy

krew-install: setup  ## build the self-contained binary for this machine and install it with your krew (before any release)
	$(PY) packaging/krew_install.py

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[spark,kafka,test,release]'
	touch $@

provision: setup
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" bash tests/provision.sh
	bash packaging/provision-krew.sh

clean-env:  ## stop environments left running by interrupted runs
	-$(PY) -m tests.env down
