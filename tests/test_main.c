/* The test runner: every suite, CUnit's basic interface, exit 1 on any failure. */
#include "tests/tests.h"

#include <CUnit/Basic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *test_rocesim_bin(void)
{
    const char *b = getenv("ROCESIM");
    return b && *b ? b : "./rocesim";
}

const char *test_mpi_bin(const char *what)
{
    const char *b = getenv("ROCESIM_MPI_BIN");
    b = b && *b ? b : "./rocesim-mpi";
    if (access(b, X_OK) == 0 && test_run("command -v mpirun >/dev/null", NULL) == 0)
        return b;
    fprintf(stderr, "\n  note: %s or mpirun missing (make mpi): %s skipped\n", b, what);
    return NULL;
}

int test_run(const char *cmdline, char **out)
{
    char full[8192];
    snprintf(full, sizeof full, "( %s ) 2>&1", cmdline);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 1024) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
    }
    if (buf)
        buf[len] = '\0';
    int st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--regress-update") == 0) {
        int bad = golden_check(true);
        printf("golden references %s in tests/golden/\n", bad ? "NOT all written" : "rewritten");
        return bad ? 1 : 0;
    }
    if (argc > 1 && (strcmp(argv[1], "--docs-update") == 0 || strcmp(argv[1], "--docs-check") == 0))
        return docnums_main(strcmp(argv[1], "--docs-update") == 0);
    if (argc > 2 && strcmp(argv[1], "--docs-eval") == 0)
        return docnums_eval(argv[2]);
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    test_units_register();
    test_event_register();
    test_parallel_register();
    test_scenario_register();
    test_settings_register();
    test_cli_register();
    test_topo_register();
    test_dcqcn_register();
    test_cc_register();
    test_cc_timely_register();
    test_dctcp_register();
    test_nscc_register();
    test_cc_swift_register();
    test_net_register();
    test_routing_runs_register();
    test_traffic_register();
    test_traffic_module_register();
    test_trigger_register();
    test_fault_module_register();
    test_validation_register();
    test_golden_register();
    test_sched_register();
    test_modules_register();
    test_transport_module_register();
    test_topology_module_register();
    test_rail_register();
    test_planes_register();
    test_server_register();
    test_checkpoint_register();
    test_port_register();
    test_switch_register();
    test_cells_register();
    test_nic_register();
    test_labs_register();
    test_docs_register();
    test_docnums_register();
    test_outputs_register();
    test_sweep_register();
    test_robustness_register();
    test_pathologies_register();
    test_lossy_register();
    test_ns3_import_register();
    test_link_slow_register();
    test_ib_register();
    test_selective_register();
    test_lb_register();
    test_trim_register();
    test_uet_register();
    test_rccc_register();
    test_reads_register();
    test_observers_register();
    test_observer_module_register();
    test_capture_register();
    test_counters_register();
    test_stats_register();
    test_flowset_register();
    test_runpool_register();
    test_tune_register();
    test_tune_plot_register();
    test_profiles_register();
    test_sonic_register();
    test_nvsmi_register();
    test_uet_import_register();
    test_doctor_register();
    test_hpcc_register();
    test_live_register();
    test_nccl_register();
    test_workload_register();
    /* Arguments: -v (verbose), then optionally SUITE: only the suites whose name contains it. */
    int a = 1;
    bool verbose = argc > a && strcmp(argv[a], "-v") == 0;
    if (verbose)
        a++;
    const char *only = argc > a ? argv[a] : NULL;
    CU_basic_set_mode(verbose ? CU_BRM_VERBOSE : CU_BRM_NORMAL);
    if (only && *only) {
        unsigned matched = 0;
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
            bool on = strstr(s->pName, only) != NULL;
            matched += on;
            CU_set_suite_active(s, on ? CU_TRUE : CU_FALSE);
        }
        if (!matched) {
            fprintf(stderr, "no suite name contains \"%s\"; the suites are:\n", only);
            for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
                fprintf(stderr, "  %s\n", s->pName);
            CU_cleanup_registry();
            return 2;
        }
    }
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned ran = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (ran == 0) {
        fprintf(stderr, "no test ran\n");
        return 1;
    }
    return failed ? 1 : 0;
}
