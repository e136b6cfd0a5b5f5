# Buddy Compression hardware models: the two commands of the README are
# `make run` (main job on the bundled workload) and `make test` (every test).
# Both install what they need on a fresh Debian machine.

SHELL   := /bin/bash
CARGO   ?= cargo
BUDDY   := target/release/buddy
OUT     ?= out
WORKLOAD ?=
SHARED_DATA ?= ../shared/data
# Every test command selects the whole workspace (then names its test
# target): with `-p PACKAGE` cargo resolves features for that package alone
# (syn without `full`, serde without `alloc`) and rebuilds every crate.
TEST    := $(CARGO) test --release --workspace
STUDY_OUT ?= $(OUT)/study
DEBIAN_TOOLS := verilator iverilog yosys g++
# The cocotb suite of verilog-out/ and the virtual environment it runs in.
COCOTB_DIR  := verilog-out/cocotb
COCOTB_VENV := target/venv-cocotb
# The open FPGA flow of `make pnr` (YoWASP Yosys and nextpnr-ecp5 from PyPI).
PNR_VENV := target/venv-pnr
PNR_ARGS ?= --jobs 2

.PHONY: all run test deps build verilog synth pnr pnr-venv lint cosim cocotb cocotb-venv waves formal soak soak-sim bench fuzz study clean help

all: build

help:
	@echo "make run      - emit Verilog, check hardware == golden, compress the bundled workload; results in $(OUT)/"
	@echo "make test     - every test (golden, HDL equivalence, Verilog lint/co-simulation, CLI)"
	@echo "make verilog  - regenerate verilog-out/ (commit the result)"
	@echo "make synth    - Yosys synthesis report into verilog-out/synth/"
	@echo "make pnr      - place and route every module on an ECP5-85 (YoWASP Yosys + nextpnr-ecp5 in $(PNR_VENV)): post-route Fmax and critical paths into verilog-out/synth/report.md (PNR_ARGS picks modules, jobs, time limit)"
	@echo "make study    - the paper's profiler and memory-system studies (Fig. 3, 7, 8, 9, 10, 12, 13, 14 with ETC, 15) and cDMA's (Fig. 11, 12, 13) on every workload of SHARED_DATA; report in $(STUDY_OUT)/"
	@echo "make formal   - formal proofs of verilog-out/ with Yosys and ABC (yosys-abc): codec round trips, size classes, valid/ready protocol of every module, mutants; report in verilog-out/formal/ (FORMAL_ARGS=\"--skip controller\" leaves out the slices)"
	@echo "make soak     - long property-test runs and soak-sim (not part of make test)"
	@echo "make soak-sim - the memory system on every shared trace from 3 snapshots with 3 algorithms"
	@echo "make bench    - criterion throughput of every golden codec, the fast-mode memory system and the HBM2 model; buddy speed (fast, RTL and Verilator in one run)"
	@echo "make fuzz     - cargo-fuzz targets round_trip and corrupt_stream (nightly), FUZZ_SECONDS each"
	@echo "make lint     - Verilator lint and the Yosys latch/driver/loop check of every module, the controller slices included"
	@echo "make cosim    - every Verilog co-simulation at full size, the Verilator builds of the controller slices included, and make cocotb (about an hour)"
	@echo "make cocotb   - the cocotb suite of verilog-out/cocotb/: every AXI4-Stream codec wrapper on every shipped vector in Icarus and Verilator"
	@echo "make cocotb-venv - the suite's Python packages (cocotb, cocotbext-axi, pytest) in $(COCOTB_VENV)"
	@echo "make waves    - load every module's GTKWave save file (.gtkw) in GTKWave itself, headless (installs gtkwave and xvfb)"
	@echo "make deps     - install verilator, iverilog and yosys from Debian when missing"

# Installs the Debian tools when one is missing; stops with a clear message
# when that is impossible (not root, no apt-get).
deps:
	@missing=""; for t in $(DEBIAN_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing missing Debian tools:$$missing"; \
	  if ! command -v apt-get >/dev/null 2>&1; then echo "error: need$$missing and apt-get is not available; install them by hand" >&2; exit 1; fi; \
	  SUDO=""; if [ "$$(id -u)" != 0 ]; then if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else echo "error: need$$missing; run 'make deps' as root" >&2; exit 1; fi; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || { echo "error: apt-get could not install$$missing" >&2; exit 1; }; \
	fi
	@for t in $(DEBIAN_TOOLS); do command -v $$t >/dev/null 2>&1 || { echo "error: $$t still missing after install" >&2; exit 1; }; done
	@# A test runs FuseSoC (from PyPI) in a virtual environment: Debian's python3-venv.
	@if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then \
	  echo "installing missing Debian package: python3-venv"; \
	  SUDO=""; if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null \
	    || { echo "error: apt-get could not install python3-venv" >&2; exit 1; }; \
	fi

# Only the `buddy` binary: what `make run` and the other targets call.
build:
	$(CARGO) build --release -p buddy-cli --bin buddy

run: deps build
	$(BUDDY) run $(WORKLOAD) --out $(OUT) --force

# Simulation-heavy tests run optimized (rust-hdl simulates 10-40x slower in debug).
# The last line sums every test binary's result (cargo's own last line is
# often a crate's empty doctest run).
test: deps cocotb-venv pnr-venv
	@mkdir -p target
	set -o pipefail; $(TEST) --no-fail-fast 2>&1 | tee target/test.log
	@awk '/^test result:/ { gsub(";", ""); p += $$4; f += $$6 } END { printf "make test: %d passed, %d failed\n", p, f }' target/test.log

# Every workload folder (with manifest.json) of SHARED_DATA, or the bundled
# default when there is none.
study: build
	@workloads=""; for w in $(SHARED_DATA)/*/; do [ -f "$$w/manifest.json" ] && workloads="$$workloads $${w%/}"; done; \
	if [ -z "$$workloads" ]; then echo "no workloads in $(SHARED_DATA); using the bundled data/minife-small"; workloads=data/minife-small; fi; \
	echo "buddy study all$$workloads --out $(STUDY_OUT)"; \
	$(BUDDY) study all $$workloads --out $(STUDY_OUT) --force

verilog: build
	$(BUDDY) verilog

synth: deps build
	$(BUDDY) synth

# Place and route every module on an ECP5-85 (verilog-out/synth/report.md,
# "Place and route"); PNR_ARGS="--module read_planner --seconds 600" picks.
pnr: build pnr-venv
	$(BUDDY) pnr --tools $(PNR_VENV)/bin $(PNR_ARGS)

# The flow's pinned PyPI packages in a virtual environment (Debian's
# python3-venv, which `make deps` installs); remade when the pins change.
pnr-venv: $(PNR_VENV)/.installed
$(PNR_VENV)/.installed: delivery/pnr/requirements.txt | deps
	@command -v python3 >/dev/null 2>&1 || { echo "error: python3 is missing (Debian: apt-get install python3 python3-venv)" >&2; exit 1; }
	@[ -x $(PNR_VENV)/bin/python ] || python3 -m venv $(PNR_VENV) \
	  || { echo "error: python3 -m venv failed: run 'make deps' (Debian's python3-venv)" >&2; rm -rf $(PNR_VENV); exit 1; }
	$(PNR_VENV)/bin/pip install -q -r $< || { echo "error: pip could not install $< into $(PNR_VENV)" >&2; exit 1; }
	@touch $@

# Verilator's lint and Yosys's latch/driver/loop check of every module,
# the six controller slices included (make test checks the slices' blocks).
lint: deps
	$(TEST) --test verilog_out -- --include-ignored verilator_lint yosys_finds

# Icarus co-simulation of every module at full size (make test: a spread
# share of the BPC and MAG-BDI codecs' inputs), the controller slices in
# lock step in Icarus and Verilator with 300 requests each (make test: 60
# for the ZVC and MAG-BDI serial slices, every slice in Icarus only); cDMA's
# ZVC engines over 10,000 lines in both (make test: 600); Yosys on the six
# controller slices; then the cocotb suite in Icarus and Verilator.
cosim: deps cocotb-venv
	BUDDY_COSIM=full BUDDY_COSIM_REQUESTS=300 $(TEST) --test verilog_out -- --include-ignored icarus lock_step yosys_finds
	$(MAKE) cocotb

# The cocotb suite (verilog-out/cocotb/README.md) on every shipped vector of
# every AXI4-Stream codec wrapper, in Icarus and in Verilator (make test: a
# spread share of each file, Icarus only, in testbenches/tests/cocotb.rs).
cocotb: deps cocotb-venv
	cd $(COCOTB_DIR) && ../../$(COCOTB_VENV)/bin/python -m pytest -q --sim=icarus --sim=verilator

# The suite's pinned PyPI packages in a virtual environment (Debian's
# python3-venv, which `make deps` installs); remade when the pins change.
# cocotb loads libpython into the simulator: Debian's libpython3-dev
# when the venv's Python has none.
cocotb-venv: $(COCOTB_VENV)/.installed
$(COCOTB_VENV)/.installed: $(COCOTB_DIR)/requirements.txt | deps
	@command -v python3 >/dev/null 2>&1 || { echo "error: python3 is missing (Debian: apt-get install python3 python3-venv)" >&2; exit 1; }
	@[ -x $(COCOTB_VENV)/bin/python ] || python3 -m venv $(COCOTB_VENV) \
	  || { echo "error: python3 -m venv failed: run 'make deps' (Debian's python3-venv)" >&2; rm -rf $(COCOTB_VENV); exit 1; }
	$(COCOTB_VENV)/bin/pip install -q -r $< || { echo "error: pip could not install $< into $(COCOTB_VENV)" >&2; exit 1; }
	@if ! $(COCOTB_VENV)/bin/python -c 'import sys, find_libpython; sys.exit(find_libpython.find_libpython() is None)'; then \
	  echo "installing missing Debian package: libpython3-dev (cocotb loads libpython)"; \
	  SUDO=""; if [ "$$(id -u)" != 0 ]; then SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libpython3-dev >/dev/null \
	    || { echo "error: cocotb needs libpython3.x.so and apt-get could not install libpython3-dev" >&2; exit 1; }; \
	  $(COCOTB_VENV)/bin/python -c 'import sys, find_libpython; sys.exit(find_libpython.find_libpython() is None)' \
	    || { echo "error: cocotb needs libpython3.x.so of $(COCOTB_VENV)/bin/python and none is found" >&2; exit 1; }; \
	fi
	@touch $@

# GTKWave itself (headless, under xvfb-run) loads every module's save file:
# it must show exactly the save file's traces, codes by name (make test
# checks the save files against the VCDs without GTKWave).
WAVES_DEBIAN := gtkwave:gtkwave xvfb-run:xvfb xauth:xauth
waves: deps
	@missing=""; for tp in $(WAVES_DEBIAN); do command -v $${tp%%:*} >/dev/null 2>&1 || missing="$$missing $${tp#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing missing Debian packages:$$missing"; \
	  if ! command -v apt-get >/dev/null 2>&1; then echo "error: need$$missing and apt-get is not available; install them by hand" >&2; exit 1; fi; \
	  SUDO=""; if [ "$$(id -u)" != 0 ]; then if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else echo "error: need$$missing; run 'make waves' as root" >&2; exit 1; fi; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || { echo "error: apt-get could not install$$missing" >&2; exit 1; }; \
	fi
	$(TEST) --test waves -- --include-ignored

# Formal proofs of the delivered Verilog (docs/formal.md): every codec
# pair's round trip and size classes (bounded, ABC bmc3), every module's
# valid/ready protocol (unbounded with ABC pdr where it converges, else
# bounded), and flipped-gate mutants that must fail. yosys-abc ships in
# Debian's yosys package. make test runs the quick subset
# (testbenches/tests/formal.rs). FORMAL_ARGS passes options to
# formal/formal.py, e.g. FORMAL_ARGS="--skip controller" (the six slices
# take 4-9 min of Yosys each).
formal: deps
	python3 formal/formal.py --report verilog-out/formal $(FORMAL_ARGS)

# Long property-test runs: 2,000 batches of 200 entries per codec module,
# 2,000 runs of 1,000 accesses / operations for the translator and the
# metadata cache, 1,000,000 golden round trips of every algorithm, and the
# pipelined metadata cache's cycle model against its block over 64 runs.
soak: deps
	PROPTEST_CASES=2000 $(TEST) --test bpc -- equals_golden
	PROPTEST_CASES=2000 $(TEST) --test zvc -- equals_golden
	PROPTEST_CASES=2000 $(TEST) --test cdma_zvc -- equals_golden
	PROPTEST_CASES=2000 $(TEST) --test mag_bdi -- equals_golden
	PROPTEST_CASES=2000 $(TEST) --test translation -- equals_golden
	PROPTEST_CASES=2000 $(TEST) --test metadata_cache -- equals_golden
	PROPTEST_CASES=1000 $(TEST) --test pipelined_metadata_cache -- equals_golden
	PROPTEST_CASES=1000 $(TEST) --test request_contexts -- equal_the_model
	PROPTEST_CASES=300 $(TEST) --test sector_gather -- equals_the_model
	PROPTEST_CASES=2000 $(TEST) --test read_planner -- equals_the_model
	PROPTEST_CASES=1000 $(TEST) --test write_planner -- equals_the_model
	PROPTEST_CASES=1000 $(TEST) --test memory_port -- equals_the_model
	PROPTEST_CASES=1000000 $(TEST) --test roundtrip
	$(TEST) --lib -- --ignored pipelined_metadata_cache::tests::soak
	$(MAKE) soak-sim

# The memory system (fast mode) on every shared trace, from three initial
# snapshots each, with every algorithm: over 1.5 million trace accesses per
# mode, every read checked against the shadow memory.
soak-sim: build
	@for w in $(SHARED_DATA)/*/; do [ -f "$$w/trace.bin" ] || continue; \
	  for s in 0 2 7; do for a in bpc zvc mag-bdi; do \
	    echo "buddy sim $${w%/} --snapshot $$s --algo $$a"; \
	    $(BUDDY) sim $${w%/} --snapshot $$s --algo $$a --out $(OUT)/soak-sim >/dev/null || exit 1; \
	  done; done; done; echo "soak-sim: every run matched the shadow memory"

bench: deps build
	$(CARGO) bench -p buddy-golden --bench codecs
	$(CARGO) bench -p buddy-sim --bench fast_mode
	$(CARGO) bench -p buddy-sim --bench hbm
	$(BUDDY) speed --out $(OUT)/speed

# cargo-fuzz needs the nightly toolchain; FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz:
	@command -v cargo-fuzz >/dev/null 2>&1 || $(CARGO) install cargo-fuzz --locked
	cd fuzz && for t in round_trip corrupt_stream; do $(CARGO) +nightly fuzz run $$t -- -max_total_time=$(FUZZ_SECONDS) || exit 1; done

clean:
	$(CARGO) clean
	rm -rf $(OUT)
