/*
 * Test suites.  Each tests/test_*.c file defines one register function that
 * adds its suite(s) to the CUnit registry; test_main.c calls them all.
 */
#ifndef TESTS_H
#define TESTS_H

#include <CUnit/CUnit.h>
#include <stdbool.h>
#include <stdint.h>

void test_units_register(void);
void test_event_register(void);
void test_parallel_register(void);
void test_scenario_register(void);
void test_settings_register(void);
void test_cli_register(void);
void test_topo_register(void);
void test_dcqcn_register(void);
void test_cc_register(void);
void test_cc_timely_register(void);
void test_dctcp_register(void);
void test_nscc_register(void);
void test_cc_swift_register(void);
void test_net_register(void);
void test_routing_runs_register(void);
void test_traffic_register(void);
void test_traffic_module_register(void);
void test_fault_module_register(void);
void test_ns3_import_register(void);
void test_link_slow_register(void);
void test_validation_register(void);
void test_golden_register(void);
void test_sched_register(void);
void test_port_register(void);
void test_switch_register(void);
void test_cells_register(void);
void test_nic_register(void);
void test_labs_register(void);
void test_docs_register(void);
void test_docnums_register(void);
/* The numbers and outputs the docs quote from runs (tests/test_docnums.c), from every source, slow ones too:
 * checked (exit 1 on a drift) or rewritten in place (write).  Exit 2: a tag is wrong. */
int docnums_main(bool write);
/* Prints the value of a tag's expression (ROCESIM_DOCNUMS_DIR keeps the runs between calls). */
int docnums_eval(const char *expr);

/* Runs every scenario against tests/golden/ (update: rewrite the references).  Returns the mismatches. */
int golden_check(bool update);
void test_outputs_register(void);
void test_sweep_register(void);
void test_robustness_register(void);
void test_live_register(void);
void test_nccl_register(void);
void test_workload_register(void);
void test_server_register(void);
void test_checkpoint_register(void);
void test_pathologies_register(void);
void test_lossy_register(void);
void test_trigger_register(void);
void test_ib_register(void);
void test_selective_register(void);
void test_lb_register(void);
void test_trim_register(void);
void test_uet_register(void);
void test_rccc_register(void);
void test_reads_register(void);
void test_observers_register(void);
void test_observer_module_register(void);
void test_capture_register(void);
void test_counters_register(void);
void test_stats_register(void);
void test_flowset_register(void);
void test_runpool_register(void);
void test_tune_register(void);
void test_tune_plot_register(void);
void test_profiles_register(void);
void test_sonic_register(void);
void test_nvsmi_register(void);
void test_uet_import_register(void);
void test_doctor_register(void);
void test_hpcc_register(void);
void test_modules_register(void);
void test_transport_module_register(void);
void test_topology_module_register(void);
void test_rail_register(void);
void test_planes_register(void);

struct scenario;
struct run;
struct port;

/*
 * Whole-run helpers: loads scenario text (named "test.json" in messages) with
 * an optional --set override and builds the run; returns false, with the
 * message on stderr, when either fails.
 */
bool test_setup(const char *json, const char *set_path, const char *set_value, struct scenario *scn, struct run *r);
/* The same from a scenario file (text NULL) or from text named `file`, with n_ov overrides. */
struct scn_override;
bool test_setup_from(const char *file, const char *text, const struct scn_override *ov, int n_ov,
                     struct scenario *scn, struct run *r);
/* What a finished run produced, as one text to compare byte for byte: flows.csv, summary.json without the
 * wall-clock fields, and the end time (caller frees). */
char *test_run_text(const struct run *r);
void test_teardown(struct scenario *scn, struct run *r);
/* Runs scenario file `file` twice on one thread and once on two, asserts the three texts (test_run_text) equal,
 * and returns the first (caller frees). */
char *test_same_each_run(const char *file);
/* The same for scenario text json, written to file for the runs and removed after them. */
char *test_same_each_run_json(const char *file, const char *json);
/* A refusal at build time: `rocesim check` of a two-host star with one flow, written to file, with the overrides sets
 * ("--set PATH=VALUE ...") exits 2 and prints msg. */
void test_build_refused(const char *file, const char *sets, const char *msg);
/* Runs to the end (or the stop time) and asserts the invariants that hold after every run. */
void test_run_checked(struct run *r);
struct graph;
/* Loads scenario text (file name t.json); false, with the loader's message on stderr, when it refuses it. */
bool test_load(const char *text, struct scenario *s);
/* Whether scenario JSON o (an importer's) loads as `rocesim run` would load it (test_load); freed again. */
struct cJSON;
bool test_json_loads(const struct cJSON *o);
/* The loader's message for text, which it must refuse with exit status 2. */
void test_load_err(const char *text, char *err, size_t len);
/* A scenario text that must be refused, and the whole message ("t.json: PATH: expected ..."). */
struct test_bad {
    const char *json, *err;
};
/* Loads each of bad[0..n) and asserts its message; prints what came and what was wanted when they differ. */
void test_load_errors(const struct test_bad *bad, size_t n);
/* Each of bad[0..n) loads (as t.json) and is refused when the network is built, exit status 2, with that message. */
void test_build_errors(const struct test_bad *bad, size_t n);
/* The node at the other end of local port i of node n. */
uint32_t test_peer_of(const struct graph *g, uint32_t n, uint32_t i);
/* A topology's table and its docs agree: text has an unknown field, so the loader lists the module's fields;
 * docs/scenario.md's section `heading` ("\n### rail\n") must list the same in its table, in order. */
void test_topology_documented(const char *text, const char *heading);

/* Node id by name in a built run (the test fails when it is missing). */
uint32_t test_node(const struct run *r, const char *name);
/* The flow of run r with this name (the test stops when there is none). */
const struct flow *test_flow_named(const struct run *r, const char *name);
/* The runtime port of node a towards node b (the test fails when they are not linked). */
struct port *test_port_to(struct run *r, const char *a, const char *b);

/* A whole file (NUL after its bytes; caller frees) and its length in *len (when not NULL), or NULL. */
char *test_read_file(const char *path, size_t *len);

/* Writes text to path (the test fails when it cannot). */
void test_write_text(const char *path, const char *text);

/* Each file of dir whose name starts with prefix and ends with suffix through a fuzzing harness's one-input function
 * (tests/fuzz), which must return 0; how many there were. */
int test_fuzz_replay(const char *dir, const char *prefix, const char *suffix, int (*one)(const uint8_t *, size_t));

/*
 * Whether the tests run under AddressSanitizer (`make asan`), which reserves terabytes of address space and
 * aborts on an allocation it cannot make, so a test of behaviour under `ulimit -v` or RLIMIT_AS would test
 * ASan's, not rocesim's.  When true it prints a note naming `what`, the test that is skipped.
 */
bool test_skip_under_asan(const char *what);
/* The same, silent: for a test that only drops its address-space limit under ASan. */
bool test_under_asan(void);

/* Whether body(), run in a child process with stderr silenced, ends it with SIGABRT (a bug the engine catches). */
bool test_child_aborts(void (*body)(void));

/* Path of the rocesim binary under test ($ROCESIM, default ./rocesim). */
const char *test_rocesim_bin(void);

/* Path of rocesim-mpi ($ROCESIM_MPI_BIN, default ./rocesim-mpi) when it and mpirun are there; else NULL, after a
 * note on stderr that `what` is skipped. */
const char *test_mpi_bin(const char *what);

/*
 * Runs a shell command line; returns its exit status (or -1) and, when out
 * is not NULL, its stdout+stderr (caller frees).
 */
int test_run(const char *cmdline, char **out);

#endif
