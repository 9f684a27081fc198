# mdqa: the two commands a newcomer runs are `make demo` and `make test`.
# Both bootstrap everything they need: a .venv, the Python packages (pyproject.toml is the single
# list), the offline LLM stack (llama-cpp-python compiled for this CPU) and the Debian packages the
# browser tests need.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
EXTRAS ?= dev,notebook,local,ray
PYTEST_ARGS ?=
# pytest-xdist workers for `make test`: the suite is mostly single-threaded Python, so two workers on two
# cores roughly halve it; each worker's llama.cpp runs on one thread (tests/conftest.py).
TEST_WORKERS ?= 2
DEMO_QUESTIONS ?= 3
# AGORA's agent loop for the bash-agent benchmark system (installed --no-deps; see pyproject.toml)
MINI_SWE_AGENT := 2.4.6
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

# llama.cpp: on x86-64 Linux never -march=native. Some VMs advertise AMX but fault on AMX tile loads
# (SIGILL on the first inference), so the build names the instruction sets this CPU really has and
# leaves AMX off. Other platforms (arm64, macOS) keep llama.cpp's default build.
CPU_FLAGS := $(shell grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2)
cpu_has = $(if $(strip $(foreach f,$(1),$(if $(filter $(f),$(CPU_FLAGS)),,missing))),OFF,ON)
ifeq ($(shell uname -sm),Linux x86_64)
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF \
  -DGGML_AVX=$(call cpu_has,avx) -DGGML_AVX2=$(call cpu_has,avx2) -DGGML_FMA=$(call cpu_has,fma) \
  -DGGML_F16C=$(call cpu_has,f16c) -DGGML_AVX_VNNI=$(call cpu_has,avx_vnni) \
  -DGGML_AVX512=$(call cpu_has,avx512f) -DGGML_AVX512_VNNI=$(call cpu_has,avx512_vnni) \
  -DGGML_AVX512_BF16=$(call cpu_has,avx512_bf16)
else
LLAMA_CMAKE_ARGS := -DLLAVA_BUILD=OFF
endif

.PHONY: install demo test lint format sysdeps clean-venv help

help:
	@echo "make demo   set everything up and run the example end to end"
	@echo "make test   set everything up and run lint + the whole test suite"

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --upgrade pip
	@if ! $(BIN)/python -c "import llama_cpp" 2>/dev/null; then \
	  echo ">> building llama-cpp-python from source for this CPU (takes 5-12 minutes, once; pip caches the wheel)"; \
	  echo ">> CMAKE_ARGS=$(strip $(LLAMA_CMAKE_ARGS))"; \
	fi
	CMAKE_ARGS="$(strip $(LLAMA_CMAKE_ARGS))" $(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	$(BIN)/python -m pip install -q --no-deps "mini-swe-agent==$(MINI_SWE_AGENT)"
	@touch $(STAMP)

# Debian packages: Chromium for the browser tests, an embeddable CJK TrueType font for rendering
# Chinese filings that every PDF reader extracts exactly, bubblewrap (bwrap) that isolates the
# sandbox's free polars code, tesseract with its English and simplified-Chinese data for the OCR of
# pages without a text layer (mdqa_kernel/parsing/ocr.py). Installed only when missing (root or sudo).
APT_PACKAGES := chromium fonts-dejavu-core fonts-wqy-microhei bubblewrap \
	tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim
sysdeps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo ">> installing Debian packages:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

# ruff (style), import-linter (the stage order of DESIGN.md, contracts in pyproject.toml) and mypy
# (the public stage APIs, files listed in pyproject.toml).
lint: $(STAMP)
	$(BIN)/ruff check mdqa_kernel tests
	$(BIN)/ruff format --check mdqa_kernel tests
	$(BIN)/lint-imports
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format mdqa_kernel tests
	$(BIN)/ruff check --fix mdqa_kernel tests

# pytest exits 5 when it collected no test: that is a broken suite, never a pass. The 25 slowest tests are
# listed at the end, so a CI log shows where the time went. --dist loadfile keeps a file's tests on one
# worker, so a module's shared fixtures are built once.
test: $(STAMP) sysdeps lint
	@set +e; $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=25 $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests (exit 5); the suite is broken" >&2; exit 1; fi; \
	exit $$rc

demo: $(STAMP)
	@$(MAKE) --no-print-directory sysdeps || echo "warning: could not install Debian packages (need root/sudo); Chinese PDFs fall back to a built-in font and pages without a text layer are not OCR'd"
	$(BIN)/mdqa demo --out demo-output --questions $(DEMO_QUESTIONS)

clean-venv:
	rm -rf $(VENV)
