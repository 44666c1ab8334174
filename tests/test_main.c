/* The test runner: every suite, CUnit's basic interface, exit 1 on any failure. */
#include "tests/tests.h"

#include <CUnit/Basic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
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

/*
 * The suites on several processes at once.  Most suites run one scenario at a time, so on one process a run of
 * them all leaves a core idle for minutes; the golden runs and docnums start their scenarios one per core
 * themselves.  Each worker takes the next suite not yet taken (the slow ones first, so that none is left to run
 * alone at the end), writes what it prints to a file of that suite's, and tells the parent, which prints the
 * suite's lines whole as it ends, and the counts of all of them at the end.  Suites share nothing in memory;
 * those that write files use paths of their own.
 */
#define MAX_SUITES 256
#define MAX_JOBS 8 /* processes at most, whatever the cores */

/* The suites that take longest (the test log's times), started first. */
static const char *const slow_first[] = {"golden runs", "docnums", "validation", "tune", "labs", "capture",
                                         "server inside", "robustness", "outputs"};

struct counts {
    unsigned suites, suites_failed, tests, tests_failed, asserts, asserts_failed;
};

struct shared {
    unsigned next;                  /* the next suite of the order to take */
    int running[MAX_JOBS];          /* the suite each worker runs, -1: none */
    struct counts c[MAX_SUITES];    /* each suite's counts, filled when it ends */
    unsigned char done[MAX_SUITES]; /* ... and set then */
};

static int suite_rank(const char *name)
{
    for (size_t i = 0; i < sizeof slow_first / sizeof *slow_first; i++)
        if (strstr(name, slow_first[i]))
            return (int)i;
    return (int)(sizeof slow_first / sizeof *slow_first);
}

static void log_path(char *buf, size_t len, const char *dir, unsigned i)
{
    snprintf(buf, len, "%s/%03u.log", dir, i);
}

/* A worker: runs suites until none is left; each suite's output goes to its own file. */
static void worker(struct shared *sh, int w, CU_pSuite *order, unsigned n, const char *dir, int tell)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* what a suite printed before a crash is in its file */
    for (;;) {
        unsigned i = __atomic_fetch_add(&sh->next, 1, __ATOMIC_SEQ_CST);
        if (i >= n)
            break;
        __atomic_store_n(&sh->running[w], (int)i, __ATOMIC_SEQ_CST);
        char path[4200];
        log_path(path, sizeof path, dir, i);
        fflush(NULL);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd < 0)
            _exit(3);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        CU_run_suite(order[i]); /* no handlers set: prints nothing of its own */
        struct counts c = {CU_get_number_of_suites_run(),    CU_get_number_of_suites_failed(),
                           CU_get_number_of_tests_run(),     CU_get_number_of_tests_failed(),
                           CU_get_number_of_asserts(),       CU_get_number_of_failures()};
        for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext)
            printf("\n  FAILED %s: %s: %s:%u - %s", f->pSuite ? f->pSuite->pName : "?",
                   f->pTest ? f->pTest->pName : "(suite set-up)", f->strFileName ? f->strFileName : "",
                   f->uiLineNumber, f->strCondition ? f->strCondition : "");
        fflush(NULL);
        sh->c[i] = c;
        __atomic_store_n(&sh->done[i], 1, __ATOMIC_SEQ_CST);
        __atomic_store_n(&sh->running[w], -1, __ATOMIC_SEQ_CST);
        ssize_t wr;
        do
            wr = write(tell, &i, sizeof i); /* a write of 4 bytes to a pipe is whole */
        while (wr < 0 && errno == EINTR);
    }
    _exit(0);
}

/* Prints suite i's lines and counts as it ended (or what it wrote before its worker died). */
static void show_suite(const struct shared *sh, CU_pSuite *order, unsigned i, const char *dir)
{
    const struct counts *c = &sh->c[i];
    if (!sh->done[i])
        printf("FAIL %-44s did not end\n", order[i]->pName);
    else if (c->tests_failed || c->asserts_failed || c->suites_failed)
        printf("FAIL %-44s %3u tests %7u asserts  <-- failed\n", order[i]->pName, c->tests, c->asserts);
    else
        printf("ok   %-44s %3u tests %7u asserts\n", order[i]->pName, c->tests, c->asserts);
    char path[4200];
    log_path(path, sizeof path, dir, i);
    char *text = test_read_file(path, NULL);
    if (text && *text)
        printf("%s\n", text);
    free(text);
    remove(path);
    fflush(stdout);
}

/* Runs the active suites on `jobs` processes; returns main's exit status. */
static int run_suites_parallel(int jobs)
{
    CU_pSuite order[MAX_SUITES];
    unsigned n = 0, inactive = 0;
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
        if (!s->fActive) {
            inactive++;
            continue;
        }
        if (n == MAX_SUITES) {
            fprintf(stderr, "more than %d suites: raise MAX_SUITES in tests/test_main.c\n", MAX_SUITES);
            return 2;
        }
        order[n++] = s;
    }
    /* slow first, otherwise in the registry's order (a stable insertion sort) */
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && suite_rank(order[j]->pName) < suite_rank(order[j - 1]->pName); j--) {
            CU_pSuite t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    if (jobs > (int)n)
        jobs = (int)n;
    char dir[] = "/tmp/rocesim-tests-XXXXXX";
    int pfd[2];
    struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED || !mkdtemp(dir) || pipe(pfd)) {
        perror("run_tests");
        return 2;
    }
    memset(sh, 0, sizeof *sh);
    for (int w = 0; w < MAX_JOBS; w++)
        sh->running[w] = -1;
    printf("%u suites on %d processes (TEST_JOBS=1: one)\n", n, jobs);
    fflush(NULL);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid[MAX_JOBS];
    for (int w = 0; w < jobs; w++) {
        pid[w] = fork();
        if (pid[w] == 0) {
            close(pfd[0]);
            worker(sh, w, order, n, dir, pfd[1]);
        }
    }
    close(pfd[1]);
    unsigned shown = 0, i;
    ssize_t r;
    while ((r = read(pfd[0], &i, sizeof i)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof i || i >= n)
            break;
        show_suite(sh, order, i, dir);
        shown++;
    }
    close(pfd[0]);
    bool died = false;
    for (int w = 0; w < jobs; w++) {
        int st;
        while (waitpid(pid[w], &st, 0) < 0 && errno == EINTR)
            ;
        int at = sh->running[w];
        if (!WIFEXITED(st) || WEXITSTATUS(st) || at >= 0) {
            fprintf(stdout, "FAIL a worker %s %d during suite \"%s\"\n",
                    WIFSIGNALED(st) ? "died of signal" : "exited with", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
                    at >= 0 ? order[at]->pName : "(none)");
            died = true;
        }
    }
    /* a suite whose worker ended inside it (a crash, a test that called exit): what it printed */
    for (i = 0; i < n; i++)
        if (!sh->done[i] && sh->next > i)
            show_suite(sh, order, i, dir);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct counts sum = {0};
    unsigned ended = 0;
    for (i = 0; i < n; i++) {
        if (!sh->done[i])
            continue;
        ended++;
        sum.suites += sh->c[i].suites;
        sum.suites_failed += sh->c[i].suites_failed;
        sum.tests += sh->c[i].tests;
        sum.tests_failed += sh->c[i].tests_failed;
        sum.asserts += sh->c[i].asserts;
        sum.asserts_failed += sh->c[i].asserts_failed;
    }
    rmdir(dir);
    printf("\nRun Summary:    Type  Total    Ran Passed Failed Inactive\n");
    printf("              suites %6u %6u    n/a %6u %8u\n", n + inactive, sum.suites, sum.suites_failed, inactive);
    printf("               tests %6u %6u %6u %6u %8s\n", sum.tests, sum.tests, sum.tests - sum.tests_failed,
           sum.tests_failed, "-");
    printf("             asserts %6u %6u %6u %6u      n/a\n", sum.asserts, sum.asserts,
           sum.asserts - sum.asserts_failed, sum.asserts_failed);
    printf("\nElapsed time = %8.3f seconds (%d processes)\n",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, jobs);
    munmap(sh, sizeof *sh);
    if (ended < n) {
        printf("%u of %u suites did not end\n", n - ended, n);
        return 1;
    }
    if (died || sum.tests == 0)
        return 1;
    return sum.tests_failed || sum.asserts_failed || sum.suites_failed ? 1 : 0;
}

/* TEST_JOBS, or the machine's cores (at most MAX_JOBS). */
static int test_jobs(void)
{
    const char *e = getenv("TEST_JOBS");
    long j = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return j < 1 ? 1 : j > MAX_JOBS ? MAX_JOBS : (int)j;
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
    unsigned active = 0;
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
        active += s->fActive != CU_FALSE;
    int jobs = test_jobs();
    if (!verbose && jobs > 1 && active > 1) {
        int rc = run_suites_parallel(jobs);
        CU_cleanup_registry();
        return rc;
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
