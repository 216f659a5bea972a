# Two entry points (see README.md):
#   make conformance   install, then run the conformance suite against the reference
#                      and write reports/conformance-reference/report.{html,json,md}
#   make test          install, then run every check of the project (what CI runs)
#
# Everything is installed into .venv from pinned versions; the kit is installed
# as a wheel (not editable) so tests exercise the packaged distribution.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The kit's wheel, built once: installed into .venv, and the one the fresh-venv
# tests install (DSH_KIT_WHEEL) instead of building it again.
WHEEL_DIR := $(VENV)/wheel
REPORTS := reports

# pytest caches its assertion-rewritten modules as bytecode; an environment
# that forbids bytecode makes every run rewrite the suite again (about 2 s of CPU).
unexport PYTHONDONTWRITEBYTECODE

# pytest exits 5 when it collected nothing: scripts/pytest-strict makes that fail.
pytest_strict = PYTEST=$(BIN)/pytest bash scripts/pytest-strict $(1)

# The official npm build runs behind a Node bridge (bridge/README.md); npm ci
# installs its pinned packages, the Node runtime included.
BRIDGE_STAMP := bridge/node_modules/.package-lock.json
# The bridge also ships in the wheel (package data pytest_dsh/_bridge).
BRIDGE_FILES := $(wildcard bridge/*.mjs bridge/lib/*.mjs bridge/protocol.json bridge/package.json bridge/package-lock.json)
export DSH_BRIDGE_DIR := $(CURDIR)/bridge

.PHONY: install conformance conformance-official test lint typecheck unit mutants bridge clean

$(STAMP): pyproject.toml requirements/constraints.txt $(shell find pytest_dsh reference conformance fixtures specification -type f -not -path '*/__pycache__/*' 2>/dev/null) $(BRIDGE_FILES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	rm -rf build $(WHEEL_DIR)  # a stale build/ folder can carry deleted modules into the wheel
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements/constraints.txt 'ruff' 'mypy'
	$(BIN)/python -m pip wheel --quiet --disable-pip-version-check --no-deps -w $(WHEEL_DIR) .
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps $(WHEEL_DIR)/pytest_dsh-*.whl
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c requirements/constraints.txt "$$(echo $(WHEEL_DIR)/pytest_dsh-*.whl)[dev]"
	touch $(STAMP)

install: $(STAMP)

$(BRIDGE_STAMP): bridge/package.json bridge/package-lock.json
	cd bridge && npm ci --no-audit --no-fund --loglevel=error

bridge: $(BRIDGE_STAMP)

# dsh-conformance exits 0 only for "conforms" (with or without known failures):
# 1 does not conform, 6 not assessed (nothing ran), 4 usage error.
# It runs the tests on every usable CPU (pytest-xdist); inside `make test`, whose
# jobs already share the cores, it runs them in one process (CONFORMANCE_WORKERS=1).
CONFORMANCE_WORKERS ?= auto
conformance: $(STAMP)
	$(BIN)/dsh-conformance --impl reference --report $(REPORTS)/conformance-reference --workers $(CONFORMANCE_WORKERS) -- -ra

lint: $(STAMP)
	$(BIN)/ruff check .

# mypy checks the sources under their import names through a folder of links,
# and the benchmark scripts beside them.
typecheck: $(STAMP)
	@mkdir -p .typecheck
	@ln -sfn ../pytest_dsh .typecheck/pytest_dsh; ln -sfn ../reference .typecheck/dsh_reference
	@ln -sfn ../fixtures .typecheck/dsh_fixtures; ln -sfn ../conformance .typecheck/dsh_conformance
	@ln -sfn ../specification .typecheck/dsh_spec
	cd .typecheck && ../$(BIN)/mypy --config-file ../pyproject.toml -p pytest_dsh -p dsh_reference -p dsh_fixtures -p dsh_spec
	cd .typecheck && ../$(BIN)/mypy --config-file ../pyproject.toml ../benchmarks/run.py ../benchmarks/instructions.py ../benchmarks/interpreter.py ../benchmarks/machine_share.py ../benchmarks/node_share.py

# The HTML report is checked in a headless Chromium (Debian package).
# The mutant catalog (one pytest process per mutant) is its own target so that
# `make test` can run it on the other core. The kit's tests are the longest
# job: two workers, each taking the next test when it is free (worksteal), keep
# both cores busy once the other jobs are done.
UNIT_WORKERS ?= 2
unit: $(STAMP) $(BRIDGE_STAMP)
	bash scripts/ensure-chromium
	DSH_KIT_WHEEL=$(abspath $(wildcard $(WHEEL_DIR)/pytest_dsh-*.whl)) $(call pytest_strict,tests --ignore=tests/mutants -ra -n $(UNIT_WORKERS) --dist worksteal)

mutants: $(STAMP)
	$(call pytest_strict,tests/mutants -ra)

conformance-official: $(STAMP) $(BRIDGE_STAMP)
	@mkdir -p $(REPORTS)
	$(call pytest_strict,--pyargs dsh_conformance --dsh-impl=official -ra --dsh-report=$(REPORTS)/conformance-official.md)

# The jobs are independent: on two cores they run side by side, longest first,
# each one's output printed whole when it ends (--output-sync). lint and
# typecheck (mypy on a clean clone: about 10 s of one core) share the pool
# rather than run before it, which would leave the other core idle. The
# set-up is the pool's too: npm ci for the bridge (mostly waiting on the
# registry) runs beside the kit's pip install, and the mutants start once
# the kit is installed.
test:
	$(MAKE) --no-print-directory -j2 --output-sync=target CONFORMANCE_WORKERS=1 unit mutants conformance-official conformance typecheck lint

clean:
	rm -rf $(VENV) $(REPORTS) build *.egg-info .typecheck bridge/node_modules
