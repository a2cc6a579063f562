# Two commands do all the set-up on a fresh machine with Python 3.11+:
#   make demo   builds .venv and renders the bundled example to out/handbook.html
#   make test   builds .venv (and installs Chromium for the browser tests) and runs every test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test bench browser-deps clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $@

demo: $(BIN)/.installed
	@mkdir -p out
	$(BIN)/citerender render examples/handbook/answer.md --sources examples/handbook/answer.sources.json --standalone -o out/handbook.html
	@echo "wrote out/handbook.html (open it in a browser)"

# Browser tests drive Debian's Chromium (never a downloaded browser).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; }

test: $(BIN)/.installed browser-deps
	$(BIN)/python -m pytest

bench: $(BIN)/.installed
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
