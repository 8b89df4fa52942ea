# Gantry build. `make` builds build/gantry; `make test` runs every test;
# `make demo` runs the simulator on the bundled example.
CC      ?= cc
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wstrict-prototypes \
           -Wmissing-prototypes -Wvla -Wimplicit-fallthrough
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -Isrc -Itests
LDLIBS  := -lyaml -ljansson -lcurl -lmicrohttpd -lzip -lgnutls -lpthread -lm
SAN     ?=
ifneq ($(SAN),)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
# the sanitizer build also checks every job-queue pop against the queue order computed afresh
CPPFLAGS += -DGT_CHECK_ORDER
endif

# every module directory under src/ goes into the library; src/main.c is the program
CORE_SRC := $(wildcard src/core/*.c)
LIB_SRC  := $(filter-out $(EXCLUDE),$(wildcard src/*/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# cluster builders the unit tests and the benchmarks share (KAI's benchmark shapes)
SHAPES_SRC := $(wildcard tests/shapes/*.c)
SHAPES_OBJ := $(SHAPES_SRC:%.c=$(BUILD)/%.o)
SCENARIOS ?= ../shared/scenarios
# the scenario runner needs PyYAML: prefer a python3 that has it
PYTHON ?= $(shell for p in python3 /usr/bin/python3; do $$p -c 'import yaml' 2>/dev/null && echo $$p && break; done)

# keep object files make would see as intermediate (and delete after the last line of output)
.SECONDARY:

.PHONY: fuzz fuzz-regress fuzz-bins torture soak valgrind
.PHONY: all test unit scenarios demo bench clean check-purity check-deploy cli kube-test kube-podgrouper-test binder-test kube-bench report-test image control-plane e2e
all: $(BUILD)/gantry

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libgantry.a: $(LIB_OBJ)
	@rm -f $@	# a module moved or deleted must not linger in the archive
	$(AR) rcs $@ $^

# The allocation-failure torture build (TORTURE=1, `make torture`) links tests/torture/failalloc.c
# into every program: its malloc fails when told to (GANTRY_FAIL_ALLOC=k).
ifeq ($(TORTURE),1)
TORTURE_OBJ := $(BUILD)/tests/torture/failalloc.o
endif
$(BUILD)/tests/torture/failalloc.o: tests/torture/failalloc.c
	@mkdir -p $(dir $@)
	$(CC) $(WARN) -O1 -g -fno-omit-frame-pointer -c $< -o $@	# not instrumented: it fronts ASan's malloc

$(BUILD)/gantry: $(BUILD)/src/main.o $(BUILD)/libgantry.a $(TORTURE_OBJ)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/tests/unit/harness.o $(SHAPES_OBJ) $(BUILD)/libgantry.a $(TORTURE_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(SHAPES_OBJ) $(BUILD)/libgantry.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Fuzz targets (tests/fuzz/fuzz_<name>.c, one public entry point each). With FUZZ_LIBFUZZER=1
# (clang, what `make fuzz` asks for) they link with libFuzzer; otherwise with regress_main.c,
# which replays files through them (what `make fuzz-regress` runs under gcc's sanitizers).
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_SECONDS ?= 60
FUZZ_BUILD ?= build-fuzz
FUZZ_REGRESS_BUILD ?= build-asan
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	       -fno-omit-frame-pointer
ifeq ($(FUZZ_LIBFUZZER),1)
$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/libgantry.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer,address,undefined $^ $(LDLIBS) -o $@
else
$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/regress_main.o $(BUILD)/libgantry.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@
endif
fuzz-bins: $(FUZZ_BIN)

# Every target under libFuzzer for FUZZ_SECONDS each (niced: the machine is shared), from its seed
# corpus tests/fuzz/corpus/<name>; what it finds goes to $(FUZZ_BUILD)/corpus and crashes to
# $(FUZZ_BUILD)/crashes. Needs clang (tools/install-deps --test).
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang: tools/install-deps --test"; exit 1; }
	$(MAKE) --no-print-directory CC=clang BUILD=$(FUZZ_BUILD) FUZZ_LIBFUZZER=1 CFLAGS='$(FUZZ_CFLAGS)' fuzz-bins
	tests/fuzz/run-fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)

# Every corpus file (seeds and past crashes) through every target, under ASan, UBSan and LSan.
fuzz-regress:
	$(MAKE) --no-print-directory SAN=1 BUILD=$(FUZZ_REGRESS_BUILD) fuzz-bins
	tests/fuzz/run-regress $(FUZZ_REGRESS_BUILD) $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)

# Allocation k fails, for every k, in a few unit suites and `gantry simulate` scenarios, under
# ASan/UBSan/LSan: each run must stop with a message (or succeed with the same output), never
# crash or leak (tests/torture/run-torture, docs/reliability.md). TORTURE_JOBS runs in parallel.
TORTURE_BUILD ?= build-torture
TORTURE_UNITS ?= test_num test_time test_doc test_kube_config test_replay_trace
TORTURE_JOBS ?= 2
torture:
	$(MAKE) --no-print-directory SAN=1 TORTURE=1 BUILD=$(TORTURE_BUILD) $(TORTURE_BUILD)/gantry \
		$(TORTURE_UNITS:%=$(TORTURE_BUILD)/tests/%)
	$(PYTHON) tests/torture/run-torture --build $(TORTURE_BUILD) --jobs $(TORTURE_JOBS) $(TORTURE_UNITS)

# The core must stay pure: no I/O, no clock, no environment, no randomness.
check-purity: $(CORE_SRC:%.c=$(BUILD)/%.o)
	@bad=$$(nm -u $^ | grep -Ew 'f?open|f?printf|puts|fwrite|read|write|time|clock_gettime|gettimeofday|getenv|rand|random|socket|curl_.*|yaml_.*|json_.*' || true); \
	if [ -n "$$bad" ]; then echo "src/core is not pure:"; echo "$$bad"; exit 1; fi; \
	echo "check-purity: src/core references no I/O, clock or environment"

# Every suite runs; the last line sums them up for CI.
unit: $(UNIT_BIN)
	@p=0; f=0; for t in $(UNIT_BIN); do out=$$($$t 2>&1); rc=$$?; echo "$$out"; \
	  line=$$(echo "$$out" | tail -n 1); \
	  p=$$((p + $$(echo "$$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/'))); \
	  f=$$((f + $$(echo "$$line" | sed -E 's/.* ([0-9]+) failed.*/\1/'))); \
	  [ $$rc -eq 0 ] || [ $$f -gt 0 ] || f=$$((f + 1)); done; \
	  echo "unit: $$p passed, $$f failed"; [ $$f -eq 0 ]

# Every unit suite under valgrind's memcheck (CI runs it), then `gantry simulate` on the demo and
# on a generated cluster of 1,200 nodes and 12,000 pods as YAML and as JSON (17 MB: the file read
# in parts, the documents parsed by several threads): an invalid read or write, a jump on an
# uninitialised value or a leak fails it, with valgrind's report. The property suite takes 60 of
# its 1,200 seeds here, each being some fifty times slower.
VALGRIND := valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
VALGRIND_SIM := simulate --now 2026-01-01T09:00:00Z -o json -f
valgrind: $(UNIT_BIN) $(BUILD)/gantry $(BUILD)/bench/bench_decode
	@$(BUILD)/bench/bench_decode --nodes 1200 --pods 12000 --write-yaml $(BUILD)/valgrind-cluster.yaml \
	  --write-json $(BUILD)/valgrind-cluster.json > /dev/null
	@f=0; for t in $(UNIT_BIN) "$(BUILD)/gantry $(VALGRIND_SIM) examples/demo-cluster.yaml" \
	  "$(BUILD)/gantry $(VALGRIND_SIM) $(BUILD)/valgrind-cluster.yaml" \
	  "$(BUILD)/gantry $(VALGRIND_SIM) $(BUILD)/valgrind-cluster.json"; do \
	  if GT_PROPERTY_SEEDS=60 $(VALGRIND) $$t > $(BUILD)/valgrind.out 2>&1; then echo "valgrind: $$t clean"; \
	  else cat $(BUILD)/valgrind.out; echo "valgrind: $$t FAILED"; f=$$((f + 1)); fi; done; \
	  echo "valgrind: $$f runs with errors"; [ $$f -eq 0 ]

scenarios: $(BUILD)/gantry
	$(PYTHON) tools/scenario-gate $(SCENARIOS) $(BUILD)/gantry

# Static checks of deploy/: CRD schemas against KAI's, least-privilege RBAC, the Helm chart, and the
# libraries build/gantry links against the Dockerfile's runtime stage (hence after the build).
check-deploy: $(BUILD)/gantry
	$(PYTHON) tools/check-deploy

# The container image without a container engine: a release build (no machine paths in it), then
# an OCI image archive of the binary, its Debian libraries and CA certificates, checked
# self-contained and run once (tools/build-image; docs/deploy.md "Building the image"). The same
# sources and Debian packages give the same digest. Load it with docker/podman load, kind load
# image-archive, or push it with skopeo.
IMAGE ?= gantry
IMAGE_BUILD := build/image
image:
	$(MAKE) --no-print-directory SAN= BUILD=$(IMAGE_BUILD) CFLAGS='-O2 -ffile-prefix-map=$(CURDIR)=.' $(IMAGE_BUILD)/gantry
	$(PYTHON) tools/build-image --binary $(IMAGE_BUILD)/gantry --name $(IMAGE)

# What a user of the command line sees: exit codes, messages, the demo's story.
cli: $(BUILD)/gantry
	tests/cli/run.sh $(BUILD)/gantry

# The Kubernetes layer against the API-server double (tests/kube): faults, TLS, leader
# failover, same placements as simulate. Loopback only, about 20 s.
kube-test: $(BUILD)/gantry
	$(PYTHON) tests/kube/run-tests --gantry $(BUILD)/gantry

# gantry podgrouper against the same double: the kinds KAI groups, bounded owner reads, warnings,
# restarts, --podgrouper in the scheduler. Loopback only, about 25 s.
kube-podgrouper-test: $(BUILD)/gantry
	$(PYTHON) tests/kube/run-podgrouper-tests --gantry $(BUILD)/gantry

# GPU sharing (reservation pods), BindRequests and node pools against the double; about 12 s.
binder-test: $(BUILD)/gantry
	$(PYTHON) tests/kube/run-binder-tests --gantry $(BUILD)/gantry

# A C API-server double that answers fast enough to measure the scheduler's bind rate.
$(BUILD)/bench/fastdouble: tests/kube/fastdouble.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) $(LDFLAGS) $< -ljansson -o $@

# Binds per second and the scheduler's CPU time: 10,000 pods on 1,000 nodes through the fast double.
kube-bench: $(BUILD)/gantry $(BUILD)/bench/fastdouble
	bench/kube_binds.sh --gantry $(BUILD)/gantry

# The scheduler for SOAK_SECONDS against the API-server double under random faults and restarts:
# zero double binds, partial gangs and lost pods, memory flat (bench/soak, docs/reliability.md).
SOAK_SECONDS ?= 60
soak: $(BUILD)/gantry
	$(PYTHON) bench/soak --gantry $(BUILD)/gantry --seconds $(SOAK_SECONDS) $(SOAK_ARGS)

# The real control plane (kube-apiserver, etcd, kube-controller-manager, kubectl, helm) built from
# the Go modules pinned in tests/k8s, cached outside the repository by go.sum (first build: ~10 min).
control-plane:
	tools/control-plane build

# Gantry against the real control plane on loopback (tests/e2e): install, RBAC, controllers,
# Jobs, gangs, reclaim through PDBs, leader election, garbage collection, Helm; and the image
# installed with Helm on a bare cluster with a real node (test_node, tools/control-plane up --node).
e2e: $(BUILD)/gantry control-plane image
	$(PYTHON) tests/e2e/run-e2e --gantry $(BUILD)/gantry

# The replay's HTML report drawn by headless Chromium (tools/install-deps --test installs it).
report-test: $(BUILD)/gantry
	GANTRY=$(BUILD)/gantry tools/check-report-in-browser

test: all $(BENCH_BIN) check-purity check-deploy image cli kube-test kube-podgrouper-test binder-test report-test scenarios unit fuzz-regress e2e

demo: $(BUILD)/gantry
	$(BUILD)/gantry simulate -f examples/demo-cluster.yaml --cycles 3 --now 2026-01-01T09:00:00Z --show-cycles

# KAI v0.17's benchmarks, every shape, in one table (BENCH_ARGS=--instr adds callgrind's
# instruction counts, a few minutes more). bench/bench_allocate and bench/replay are run by hand.
bench: $(BENCH_BIN) $(BUILD)/gantry
	$(BUILD)/bench/kai_bench --gantry $(BUILD)/gantry $(BENCH_ARGS)

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJ:.o=.d) $(BUILD)/src/main.d $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%.d) \
	$(BENCH_SRC:bench/%.c=$(BUILD)/bench/%.d) $(SHAPES_OBJ:.o=.d) $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%.d)
