# `make run`: set up .venv and run the demo; `make test`: set up with the test extra and run pytest + lit.
# `make fuzz N=1000`: the differential fuzzer on N programs, then fuzz/faults.py if present.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

N ?= 200

.PHONY: run test setup setup-test clean lint fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml setup.py
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): $(BIN)/python pyproject.toml setup.py
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP) $@

setup: $(STAMP)
setup-test: $(TEST_STAMP)

run: $(STAMP)
	$(BIN)/python examples/demo.py

test: $(TEST_STAMP)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/pytest -q -n auto --dist loadgroup tests
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/lit -sv tests/filecheck

fuzz: $(STAMP)
	@status=0; \
	$(BIN)/python fuzz/differential.py -n $(N) || status=1; \
	if [ -f fuzz/faults.py ]; then $(BIN)/python fuzz/faults.py || status=1; fi; \
	exit $$status

lint: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(BIN)/ruff check . && $(BIN)/ruff format --check .

clean:
	rm -rf $(VENV) build *.egg-info
