# rocesim — a packet-level RoCE v2 network simulator.
# `make` builds ./rocesim, `make run` runs the default scenario, `make test`
# runs every test, `make asan` runs them under AddressSanitizer + UBSan,
# `make bench` prints performance numbers.  Missing Debian packages are
# installed by `make deps` (called automatically when a header is missing).

ifeq ($(origin CC),default)
CC      := gcc
endif
CSTD    := -std=c11 -D_GNU_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -I.
LDLIBS  := -lcjson -lm
BUILD   ?= build

LIB_SRC  := $(sort $(wildcard sim/*.c models/*.c topologies/*.c tools/*.c))
LIB_SRC  := $(filter-out tools/main.c,$(LIB_SRC))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC := $(sort $(wildcard tests/*.c))
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o)
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
BENCH_OBJ := $(BENCH_SRC:%.c=$(BUILD)/%.o)

DEFAULT_SCENARIO ?= scenarios/incast-16to1.json

.PHONY: all deps ensure-deps run test asan bench clean

all: rocesim

ensure-deps:
	@tools/deps.sh --if-missing

deps:
	@tools/deps.sh

$(BUILD)/%.o: %.c | ensure-deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/librocesim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

rocesim: $(BUILD)/tools/main.o $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/run_tests: $(TEST_OBJ) $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcunit

$(BUILD)/bench: $(BENCH_OBJ) $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

run: rocesim
	./rocesim run $(DEFAULT_SCENARIO)

# The tests run from the repository root: some of them run ./rocesim itself.
test: rocesim $(BUILD)/run_tests
	$(BUILD)/run_tests

asan:
	$(MAKE) BUILD=build/asan OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" CFLAGS_EXTRA= ROCESIM_BIN=build/asan/rocesim asan-inner

asan-inner: $(BUILD)/rocesim $(BUILD)/run_tests
	ROCESIM=$(BUILD)/rocesim ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 $(BUILD)/run_tests

$(BUILD)/rocesim: $(BUILD)/tools/main.o $(BUILD)/librocesim.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

bench: $(BUILD)/bench rocesim
	$(BUILD)/bench

clean:
	rm -rf build rocesim

-include $(LIB_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(BENCH_OBJ:.o=.d) $(BUILD)/tools/main.d
