# rocesim — a packet-level RoCE v2 network simulator.
# `make` builds ./rocesim, `make run` runs the default scenario, `make test`
# runs every test (`make test SUITE=text`: the suites whose name holds it), `make asan` runs them under AddressSanitizer + UBSan,
# `make bench` prints performance numbers.  Missing Debian packages are
# installed by `make deps` (called automatically when a header is missing).

ifeq ($(origin CC),default)
CC      := gcc
endif
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -I. -pthread
CFLAGS  += $(MPI_DEFS)
LDLIBS  := -lcjson -lnlopt -lgsl -lgslcblas -lm -lev -lprotobuf-c
BUILD   ?= build

# tools/ holds one folder per application (docs/architecture.md); tools/main.c, the command line on top of
# them, stays out of the library.
LIB_SRC  := $(sort $(wildcard sim/*.c models/*.c topologies/*.c tools/*/*.c))
# C generated from the project's .proto files (protoc-c) into $(BUILD)/gen, which is on the include path.
PROTO    := $(wildcard models/*.proto)
GEN_SRC  := $(PROTO:%.proto=$(BUILD)/gen/%.pb-c.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_SRC:%.c=%.o)
CFLAGS  += -I$(BUILD)/gen
TEST_SRC := $(sort $(wildcard tests/*.c)) tests/validation/validation.c tests/validation/uec.c
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o)

DEFAULT_SCENARIO ?= scenarios/incast-16to1.json

.PHONY: FORCE all deps ensure-deps run test asan tsan bench bench-instructions clean validation regress-update labs mpi deps-mpi mpi-deps-optional test-deps layers \
	docs-update docs-check \
	deps-browser browser-optional capture-optional

all: rocesim

ensure-deps:
	@tools/deps.sh --if-missing

deps:
	@tools/deps.sh --capture

$(BUILD)/%.o: %.c | ensure-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/gen/%.pb-c.c $(BUILD)/gen/%.pb-c.h: %.proto | ensure-deps
	@mkdir -p $(BUILD)/gen
	protoc-c --proto_path=. --c_out=$(BUILD)/gen $<

$(BUILD)/gen/%.pb-c.o: $(BUILD)/gen/%.pb-c.c
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# Objects that include generated headers wait for them.
$(BUILD)/models/workload_chakra.o $(BUILD)/tests/test_workload.o: $(BUILD)/gen/models/chakra.pb-c.h

# The settings suite compiles a table that must not compile (tests/compile_fail/) with the same compiler.
$(BUILD)/tests/test_settings.o: CFLAGS += -DTEST_CC='"$(CC)"'

# The live view's page is assembled into the binary (.incbin): the object depends on it.
$(BUILD)/tools/live/live_page.o: tools/live/page.html

# The library is linked whole: the network's mechanisms register their hooks from constructors (models/mech.h),
# the modules (a congestion control, a flow control, a scheduler) from a linker section (sim/module.h), and an
# object nothing else calls would be left out of the program, its mechanism or module silently missing.
LINK_LIB = $(filter-out %.a,$^) -Wl,--whole-archive $(filter %.a,$^) -Wl,--no-whole-archive

# The list of the library's objects, rewritten only when it changes: a source file removed or renamed makes the
# library again, which would otherwise keep the old object (and link it whole, beside its successor).
FORCE:
$(BUILD)/librocesim.objs: FORCE
	@mkdir -p $(dir $@)
	@echo '$(LIB_OBJ)' | cmp -s - $@ || echo '$(LIB_OBJ)' > $@

$(BUILD)/librocesim.a: $(LIB_OBJ) $(BUILD)/librocesim.objs
	@rm -f $@
	ar rcs $@ $(LIB_OBJ)

rocesim: $(BUILD)/tools/main.o $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $(LINK_LIB) $(LDLIBS)

$(BUILD)/run_tests: $(TEST_OBJ) $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $(LINK_LIB) $(LDLIBS) -lcunit -Wl,--wrap=flock

$(BUILD)/bench: $(BENCH_OBJ) $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $(LINK_LIB) $(LDLIBS)

run: rocesim
	./rocesim run $(DEFAULT_SCENARIO)

# The tests run from the repository root: some of them run ./rocesim itself.
# `make test` first installs what is missing (test-deps), then builds on every core (JOBS: the machine's by
# default) and runs the suites, which take the cores too (tests/test_main.c, TEST_JOBS).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: layers test-deps
	@$(MAKE) --no-print-directory -j$(JOBS) rocesim $(BUILD)/run_tests $$($(HAVE_MPICC) && echo mpi)
	$(BUILD)/run_tests $(SUITE)

# What the tests use, installed one step at a time whatever -j says (apt-get takes one lock); each optional part
# that cannot be installed is skipped with a note.
test-deps:
	@$(MAKE) --no-print-directory -j1 ensure-deps mpi-deps-optional browser-optional capture-optional

# No file includes a header of a floor above its own (sim < topologies < models < tools), nor, inside tools/, of
# an application above its own (common < run < report < explore < ops < live < main.c).
layers:
	@tools/layers.sh

# Runs scenarios with faults, storms, a deadlock, collectives, HPCC's telemetry and heavy loss on 3 threads under
# ThreadSanitizer: any data race between partitions fails it (sim/parallel.h).
TSAN_SCENARIOS := allreduce-leafspine link-failure pfc-storm deadlock-ring hpcc-incast-16to1 \
	labs/10-bandwidth-far-below/mystery-a qos-training-checkpoint websearch-fattree \
	labs/01-one-config-ten-times/cluster-a ai/nccl-allreduce-leafspine ai/workload-tp2-dp2 \
	ai/rail-16x8 labs/12-allreduce-slow/mystery-a ai/workload-dp2-overlap ai/rail-checkpoint
tsan:
	$(MAKE) BUILD=build/tsan OPT="-O1 -g -fsanitize=thread" build/tsan/rocesim
	@for s in $(TSAN_SCENARIOS); do echo "== $$s"; \
		TSAN_OPTIONS="halt_on_error=1 exitcode=66" build/tsan/rocesim run scenarios/$$s.json --stop 2ms -q --no-plot \
		-o build/tsan/out/$$s --threads 3 --fixed-threads >/dev/null || exit 1; done

asan: test-deps
	@if $(HAVE_MPICC); then $(MAKE) --no-print-directory -j$(JOBS) mpi; fi
	$(MAKE) -j$(JOBS) BUILD=build/asan OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -DSIM_CHECK_ENTITY" \
		LDFLAGS="-fsanitize=address,undefined" CFLAGS_EXTRA= ROCESIM_BIN=build/asan/rocesim asan-inner

asan-inner: $(BUILD)/rocesim $(BUILD)/run_tests
	ROCESIM=$(BUILD)/rocesim ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $(BUILD)/run_tests $(SUITE)

$(BUILD)/rocesim: $(BUILD)/tools/main.o $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $(LINK_LIB) $(LDLIBS)

# Rewrites the golden-run references in tests/golden/ on purpose: review the diff before committing.
regress-update: rocesim $(BUILD)/run_tests
	$(BUILD)/run_tests --regress-update

# Rewrites every number and command output the docs quote from a run (tests/test_docnums.c), and
# docs/VALIDATION.md: review the diff before committing.  `make docs-check` only compares (slow sources too).
# A failing validation row is reported, not a reason to leave the other docs stale.
docs-update: rocesim $(BUILD)/run_tests $(BUILD)/validate
	$(BUILD)/validate docs/VALIDATION.md || echo "docs/VALIDATION.md: rows marked FAIL (see its notes)"
	$(BUILD)/run_tests --docs-update

docs-check: rocesim $(BUILD)/run_tests
	$(BUILD)/run_tests --docs-check

# Runs every lab (scenarios/labs/*/run.sh); outputs in out/labs/.
labs: rocesim
	@for d in scenarios/labs/*/; do echo "== $$d"; sh $$d/run.sh -q || exit 1; done

# Regenerates docs/VALIDATION.md from the validation runs.
validation: $(BUILD)/validate
	$(BUILD)/validate docs/VALIDATION.md

$(BUILD)/validate: $(BUILD)/tests/validation/validate_main.o $(BUILD)/tests/validation/validation.o $(BUILD)/tests/validation/uec.o $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $(LINK_LIB) $(LDLIBS)

# BENCH_REPEAT=N: each whole run N times (3 by default), the fastest kept (a shared machine's timings vary); then
# the instructions per packet-hop and per event of the main cases under callgrind (docs/performance.md; BENCH_CUT=TIME
# after each case's warm-up, 100us by default; BENCH_INSTRUCTIONS=0: not counted).
bench: $(BUILD)/bench rocesim
	@tools/deps.sh --if-missing --bench
	BENCH_CUT='$(BENCH_CUT)' BENCH_INSTRUCTIONS='$(BENCH_INSTRUCTIONS)' $(BUILD)/bench $(if $(BENCH_REPEAT),--repeat $(BENCH_REPEAT))

# Instructions per packet-hop and per event under callgrind, where wall time is noise (docs/performance.md):
# BENCH_CUT=TIME of each case after its warm-up (100us by default), BENCH_CASES=FILTER as build/bench takes it.
bench-instructions: $(BUILD)/bench rocesim
	@tools/deps.sh --if-missing --bench
	$(BUILD)/bench --instructions $(if $(BENCH_CUT),--cut $(BENCH_CUT)) $(BENCH_CASES)

# OpenMPI (optional): `make mpi` installs it when missing and builds ./rocesim-mpi, the same
# program compiled with mpicc, whose `sweep` spreads its runs over the ranks of mpirun
# (docs/sweep.md).  `make test` and `make asan` try it too, so that the MPI sweep test runs;
# where OpenMPI cannot be installed that test is skipped with a note.
MPICC ?= mpicc

deps-mpi:
	@tools/deps.sh --mpi

mpi:
	@tools/deps.sh --if-missing --mpi
	@$(MAKE) --no-print-directory BUILD=build/mpi CC=$(MPICC) MPI_DEFS=-DROCESIM_MPI build/mpi/rocesim-mpi
	@cmp -s build/mpi/rocesim-mpi rocesim-mpi || { cp build/mpi/rocesim-mpi rocesim-mpi.tmp && mv -f rocesim-mpi.tmp rocesim-mpi; }

# Whether OpenMPI's compiler is there (a shell test, run when a recipe needs it: after mpi-deps-optional).
HAVE_MPICC = command -v $(MPICC) >/dev/null 2>&1

mpi-deps-optional:
	@tools/deps.sh --if-missing --mpi || echo "note: OpenMPI could not be installed: the MPI tests will be skipped"

# The live view's browser test drives Debian's Chromium through ChromeDriver.
deps-browser:
	@tools/deps.sh --browser

browser-optional:
	@tools/deps.sh --if-missing --browser || \
	echo "note: Chromium could not be installed: the live view's browser test will be skipped"

# The capture tests read monitor.capture's pcap files with Debian's tshark and tcpdump.
capture-optional:
	@tools/deps.sh --if-missing --capture || \
	echo "note: tshark and tcpdump could not be installed: the capture tests' checks with them will be skipped"

# OpenMPI's libraries call libevent's event_add, and libev.so exports a libevent-compatible
# event_add that would win the dynamic lookup and crash MPI_Init: link libev statically, hidden.
MPI_LDLIBS = $(filter-out -lev,$(LDLIBS)) -l:libev.a -Wl,--exclude-libs,libev.a

$(BUILD)/rocesim-mpi: $(BUILD)/tools/main.o $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $(LINK_LIB) $(MPI_LDLIBS)

# Fuzzing (docs/RELIABILITY.md): libFuzzer harnesses built with clang, ASan and UBSan.  `make fuzz
# FUZZ_TIME=60` runs each for FUZZ_TIME seconds; the corpora grow in build/fuzz/corpus-*, crashes land in
# build/fuzz/ (crash-*, leak-*, timeout-*).  Every finding becomes a file in tests/fuzz/regressions/.
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 60
FUZZ_FLAGS := $(CSTD) $(WARN) -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=all -Wno-unknown-warning-option -I. -Ibuild/fuzz/gen
FUZZ_OBJ   := $(LIB_SRC:%.c=build/fuzz/obj/%.o) $(PROTO:%.proto=build/fuzz/gen/%.pb-c.o)
FUZZERS    := scenario run sonic nvsmi chakra htsim simai ns3rdma spec

build/fuzz/gen/%.pb-c.c build/fuzz/gen/%.pb-c.h: %.proto | ensure-deps
	@mkdir -p build/fuzz/gen
	protoc-c --proto_path=. --c_out=build/fuzz/gen $<

build/fuzz/gen/%.pb-c.o: build/fuzz/gen/%.pb-c.c
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

build/fuzz/obj/models/workload_chakra.o: build/fuzz/gen/models/chakra.pb-c.h

build/fuzz/obj/%.o: %.c | ensure-deps
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-build: $(FUZZERS:%=build/fuzz/fuzz_%)

fuzz: fuzz-build
	@for f in $(FUZZERS); do \
	  mkdir -p build/fuzz/corpus-$$f; \
	  cp -n $$(find scenarios -name '*.json') tests/sonic/*.json tests/data/nvsmi/*.txt tests/data/chakra/*.et scenarios/ai/workloads/*.txt tests/fuzz/seeds/* tests/fuzz/regressions/* build/fuzz/corpus-$$f/ 2>/dev/null; \
	  echo "fuzz_$$f: $(FUZZ_TIME) s"; \
	  build/fuzz/fuzz_$$f -max_total_time=$(FUZZ_TIME) -timeout=20 -rss_limit_mb=2048 -max_len=16384 \
	    -artifact_prefix=build/fuzz/$$f- -print_final_stats=1 build/fuzz/corpus-$$f || exit 1; \
	done

.PHONY: fuzz fuzz-build
.SECONDARY: $(FUZZ_OBJ)

clean:
	rm -rf build rocesim rocesim-mpi

-include $(wildcard $(FUZZ_OBJ:.o=.d))
-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BENCH_OBJ:.o=.d) $(BUILD)/tools/main.d
