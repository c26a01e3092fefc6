# Every target creates or reuses .venv and installs the project from
# pyproject.toml first (with the pinned test and proof tools and the Dask
# cluster runner, the extras "test", "proofs" and "cluster"), so a fresh
# machine needs nothing but Python 3.11.
# `pip install .` alone gives the oracle and the tools, no prover.
PYTHON ?= python3
# Python's own default: compiled modules cached in __pycache__ (git-ignored).
# An environment that sets PYTHONDONTWRITEBYTECODE (this project's CI does)
# makes every one of the suite's thousands of `verified` processes compile
# the package again: about 0.04 s of CPU each (`verified conform --help`:
# 0.10 s without the cache, 0.06 s with it).
unexport PYTHONDONTWRITEBYTECODE
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: test verify test-slow test-huge proofs proofs-claims crosshair bench mutation fuzz clean fast fast-agree fast-test

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test,proofs,cluster]"
	touch $(STAMP)

## make test: the test suite (exhaustive n <= 6, Hypothesis, mutants). CI runs this.
## It runs over 2 pytest processes (pytest-xdist; CI has 2 cores, and two
## cost little more CPU than one: docs/testing.md); make test PYTEST_JOBS=0
## runs the tests in this process, one after another.  --dist loadgroup: the
## tests that share a conform run (xdist_group, tests/support.py) share a worker.
PYTEST_JOBS ?= 2
test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(PYTEST_JOBS) --dist loadgroup -m "not slow and not huge"

## make test-slow: the long exhaustive runs (n = 7 for every algorithm);
## PYTEST_JOBS spreads them over processes as for make test.
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n $(PYTEST_JOBS) -m "slow and not huge"

## make test-huge: runs too long for `make verify` (permi: all 117,649 RTGs on 6 registers).
test-huge: $(STAMP)
	$(BIN)/python -m pytest -q -s -m huge --timeout 0

## make proofs: Z3 proofs; prints the table claim / n / result / seconds
## (docs/proofs.md), then checks each planted bug of mutants/proofs.py is
## caught (python -m proofs --mutants --quick).  Both run on every core
## (--jobs, default the core count; the table and verdicts do not depend on it).
proofs: proofs-claims
	$(BIN)/python -m proofs --mutants --quick

## make proofs-claims: the Z3 proofs' table alone (what make verify runs);
## with PROOFS_JSON=FILE it also saves the rows there (make verify does, and
## its tests then compare docs/proofs.md with them instead of a second run).
proofs-claims: $(STAMP)
	$(BIN)/python -m proofs $(if $(PROOFS_JSON),--json $(PROOFS_JSON))

## make crosshair: CrossHair over every public algorithm's contracts, the real
## GREEDY / greedy_length and the SSRA allocator's 18 two-input states (each
## family with planted twins; budgets in CPU s per condition: docs/proofs.md),
## one target per core at once (--jobs; the verdicts do not depend on it).
crosshair: $(STAMP)
	$(BIN)/python -m proofs.crosshair_run

## make verify: everything; non-zero exit on any failure or unknown.  Its
## proofs part is the claims' table alone: make test and make test-slow have
## already run every planted bug of mutants/proofs.py with the same command
## as python -m proofs --mutants --quick (stopped at the first claim not as
## expected), and pinned the claim that catches each
## (tests/proofs/test_proof_mutants.py), so the mutants pass would repeat
## them (docs/proofs.md).  The same parts as make proofs-claims, make
## crosshair, make test and make test-slow, run so that both cores stay
## busy (docs/testing.md): proofs-claims and crosshair side by side (neither
## has a test with a wall-clock bound), then make test's and make
## test-slow's selections in one pytest session, which starts as soon as
## crosshair (the shorter) is done, beside proofs-claims' last modules, so
## that no core waits for the stage boundary; the one test that reads the
## rows proofs-claims saved in $(VERIFY_DIR) (it compares docs/proofs.md
## with them) runs last, on its own, once they are there.
VERIFY_DIR := .verify
#: the test of make verify that reads proofs-claims' rows ($(PROOFS_JSON))
VERIFY_DOC_TEST := tests/proofs/test_proofs_doc.py::test_doc_rows_are_the_claims_the_code_makes
verify: $(STAMP)
	rm -rf $(VERIFY_DIR) && mkdir -p $(VERIFY_DIR)
	$(MAKE) --no-print-directory -j2 --output-sync=target proofs-claims verify-tests PROOFS_JSON=$(CURDIR)/$(VERIFY_DIR)/proofs.json
	PROOFS_JSON=$(CURDIR)/$(VERIFY_DIR)/proofs.json $(BIN)/python -m pytest -q -p no:cacheprovider $(VERIFY_DOC_TEST)

# make verify's pytest session: every test but the one that needs
# proofs-claims' rows, started once crosshair is done (not a target to run
# alone: make test and make test-slow are).  Without this make's MAKEFLAGS:
# they name a jobserver whose descriptors this recipe does not get, and
# rustc (the Rust kit tests) warns about it on stderr, which they reject.
.PHONY: verify-tests
verify-tests: crosshair
	env -u PROOFS_JSON -u MAKEFLAGS -u MFLAGS $(BIN)/python -m pytest -q -n $(PYTEST_JOBS) --dist loadgroup -m "not huge" --deselect $(VERIFY_DOC_TEST)

## make mutation: a seeded sample of cosmic-ray mutants of verified/, each run
## against its module's tests (mutation/tests.toml); kills per module, survivors'
## diffs in .mutation/seed-SEED/.  Not part of `make verify` (docs/mutation.md
## gives its time).  make mutation SEED=2 SAMPLE=150 BUDGET=3600
## MODULES='verified/core/machine/*.py verified/tools/conform/*.py' (space-
## separated globs) samples only those files.
SEED    ?= 1
SAMPLE  ?= 150
BUDGET  ?= 3600
MODULES ?=
MUTATION_STAMP := $(VENV)/.mutation-stamp

$(MUTATION_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e ".[test,proofs,mutation]"
	touch $(MUTATION_STAMP)

mutation: $(MUTATION_STAMP)
	$(BIN)/python -m mutation --seed $(SEED) --sample $(SAMPLE) --budget $(BUDGET) \
		$(foreach m,$(MODULES),--modules '$(m)')

## make fuzz: coverage-guided fuzzing (Atheris, the extra "fuzz") of every
## entry point that reads outside data (fuzz/targets.py), FUZZ_SECONDS each,
## from the seed corpus in fuzz/corpus/; prints inputs tried, coverage and
## crashes per target (crash inputs in .fuzz/crashes/), exits 1 on a crash.
## Not part of `make verify`.  make fuzz FUZZ_SECONDS=600
FUZZ_SECONDS ?= 60
FUZZ_STAMP := $(VENV)/.fuzz-stamp

$(FUZZ_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -e ".[test,proofs,fuzz]"
	touch $(FUZZ_STAMP)

fuzz: $(FUZZ_STAMP)
	$(BIN)/python fuzz/run.py --seconds $(FUZZ_SECONDS)

## make bench: throughput and timing figures (never asserted in tests).
bench: $(STAMP)
	$(BIN)/python -m bench

## make fast: the optional compiled build in .venv-fast (docs/fast.md): the
## modules listed under [tool.verified.mypyc] in pyproject.toml compiled by
## the pinned mypyc from the same source (needs a C compiler and the Python
## headers); `make test` and `pip install .` never need it.
FAST_VENV  := .venv-fast
FAST_BIN   := $(FAST_VENV)/bin
FAST_STAMP := $(FAST_VENV)/.installed-stamp
MYPY_PIN    = $(shell $(PYTHON) -c "import tomllib; print(tomllib.load(open('pyproject.toml', 'rb'))['tool']['verified']['mypyc']['mypy'])")

$(FAST_STAMP): pyproject.toml setup.py $(shell find verified -name '*.py')
	$(PYTHON) -m venv $(FAST_VENV)
	$(FAST_BIN)/python -m pip install -q --upgrade pip
	$(FAST_BIN)/python -m pip install -q "$(MYPY_PIN)" setuptools wheel
	rm -rf build
	VERIFIED_MYPYC=1 $(FAST_BIN)/python -m pip install -q --no-build-isolation ".[test,proofs]"
	touch $(FAST_STAMP)

fast: $(FAST_STAMP)

## make fast-agree: the same corpus (vectors, solve, check, goldens, explain,
## conform reports, ssra) through .venv and .venv-fast, every output compared
## byte for byte; prints the count compared.  make fast-agree AGREE_ARGS=--quick
AGREE_ARGS ?=
fast-agree: $(STAMP) $(FAST_STAMP)
	$(BIN)/python -m fast.agree --a $(VENV) --b $(FAST_VENV) $(AGREE_ARGS)

## make fast-test: the test suite against the compiled build (run outside
## the source tree so that the installed, compiled package is imported).
FAST_TESTS ?= tests
fast-test: $(FAST_STAMP)
	cd $$(mktemp -d) && $(CURDIR)/$(FAST_BIN)/python -m pytest -q -p no:cacheprovider \
	  --rootdir=$(CURDIR) -c $(CURDIR)/pyproject.toml --import-mode=append \
	  -m "not slow and not huge" $(addprefix $(CURDIR)/,$(FAST_TESTS))

clean:
	rm -rf $(VENV) $(FAST_VENV) build .pytest_cache .hypothesis *.egg-info .mutation .fuzz .verify
