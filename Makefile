# Two commands do all the set-up on a fresh machine with Python 3.11+:
#   make demo   builds .venv with the package alone and renders the bundled example to out/handbook.html
#   make test   adds the test tool chain (and installs Chromium, pandoc, Pango if missing) and runs every test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test test-lowest bench system-deps clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# the package alone (what a user installs); the test tool chain only for make test
$(BIN)/.installed-package: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(BIN)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[test]"
	touch $@

demo: $(BIN)/.installed-package
	@mkdir -p out
	$(BIN)/citerender render examples/handbook/answer.md --sources examples/handbook/answer.sources.json --standalone -o out/handbook.html
	@echo "wrote out/handbook.html (open it in a browser)"
	@echo "the command line is $(BIN)/citerender (or run '. $(VENV)/bin/activate', then 'citerender --help'), e.g.:"
	@echo "  $(BIN)/citerender render ANSWER.md --sources SOURCES.json --style hovercard --standalone -o page.html"

# System tools the tests run for real: Debian's Chromium (browser tests, never a downloaded
# browser), pandoc (Markdown and CSL exports), Pango for WeasyPrint (PDF export), Java for
# Spark (docs/scale.md's Spark recipe; PySpark 4 wants Java 17+, Debian 12's default), and a
# second font set, Noto CJK (the reader's tests place cards in a CJK font too: placement must
# hold whatever the fonts' metrics).
system-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v java >/dev/null 2>&1 || missing="$$missing default-jre-headless"; \
	command -v pandoc >/dev/null 2>&1 || missing="$$missing pandoc"; \
	{ ldconfig -p 2>/dev/null | grep -q libpangoft2-1.0; } || missing="$$missing libpango-1.0-0 libpangoft2-1.0-0 fonts-dejavu-core"; \
	{ fc-list 2>/dev/null | grep -q "Noto Sans CJK"; } || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  echo "installing$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

test: $(BIN)/.installed-test system-deps
	$(BIN)/python -m pytest
	$(MAKE) --no-print-directory test-lowest

# The core suite again on the lowest markdown-it-py we support (pyproject: >=4.1).
LOW := .venv-lowest
$(LOW)/.installed: pyproject.toml
	$(PYTHON) -m venv $(LOW)
	$(LOW)/bin/python -m pip install -q --upgrade pip
	$(LOW)/bin/python -m pip install -q "markdown-it-py==4.1.0" -e ".[html]" pytest hypothesis html5lib
	touch $@

test-lowest: $(LOW)/.installed
	$(LOW)/bin/python -m pytest -p no:cacheprovider tests/test_markers.py tests/test_commonmark.py \
	  tests/test_render.py tests/test_diagnostics.py tests/test_sources.py

bench: $(BIN)/.installed-test
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) $(LOW) out .pytest_cache .hypothesis
