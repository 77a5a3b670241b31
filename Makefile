# SPDX-License-Identifier: BSD-3-Clause
# User-facing verbs. Every verb runs scripts/setup.sh first, so a fresh
# machine needs nothing but `make run` or `make test`.
BUILD   ?= build
ASAN    ?= build-asan
HPLANE  := $(BUILD)/apps/hplane/hplane
PY      := .venv/bin/python
RUN_ARGS ?= --scenario standard --duration 8 --app crypto --out out/run

.PHONY: all setup build run test unit unit-asan integration bench clean

all: build

# The CUDA compiler (pip's nvcc, compile only) is set up by default so the
# GPU plugin always compiles; SETUP_ARGS= skips it.
SETUP_ARGS ?= --with-cuda-compiler

setup:
	@bash scripts/setup.sh $(SETUP_ARGS)

$(BUILD)/build.ninja:
	@meson setup $(BUILD) --buildtype=release >/dev/null

build: setup $(BUILD)/build.ninja
	@ninja -C $(BUILD) >/dev/null || ninja -C $(BUILD)
	@echo "built: $(HPLANE)"

run: build
	$(HPLANE) run $(RUN_ARGS)

$(ASAN)/build.ninja:
	@meson setup $(ASAN) --buildtype=debug -Db_sanitize=address,undefined \
		-Db_lundef=false >/dev/null

unit: build
	meson test -C $(BUILD) --print-errorlogs --suite unit

unit-asan: setup $(ASAN)/build.ninja
	@ninja -C $(ASAN) >/dev/null || ninja -C $(ASAN)
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=$(abspath tests/ubsan.supp) ASAN_OPTIONS=detect_leaks=1 \
		meson test -C $(ASAN) --print-errorlogs --suite unit

integration: build
	HPLANE=$(abspath $(HPLANE)) BUILD_DIR=$(abspath $(BUILD)) $(PY) -m pytest -q tests/integration

test: build unit unit-asan integration

bench: build
	$(PY) bench/run_all.py --build $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN) out
