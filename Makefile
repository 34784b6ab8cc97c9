# Two entry points, each creating .venv when missing:
#   make demo   set up, then run the main job on the bundled example skill
#   make test   set up, then run lint, format check and the whole test suite
# and, for releases: make docs (the site, into build/site) and make dist (artefacts).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
VERSION = $(shell $(PY) -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')

.PHONY: setup demo test lint format docs dist

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 is required"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) scripts/demo.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

test: lint
	$(PY) -m pytest -q

docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The Python sdist and wheel (checked with twine), the VS Code extension and the Neovim
# plugin folder, all of one version, into dist/.
dist: $(STAMP)
	rm -rf dist && mkdir -p dist
	$(PY) -m build --outdir dist .
	$(VENV)/bin/twine check --strict dist/*
	cd editors/vscode && npm ci --no-audit --no-fund && npm run package
	cp editors/vscode/skillkit.vsix dist/skillkit-$(VERSION).vsix
	tar -czf dist/skillkit.nvim-$(VERSION).tar.gz -C editors --transform 's,^nvim,skillkit.nvim,' nvim
	ls -l dist
