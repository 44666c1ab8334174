/*
 * rocesim — command line.  Exit status: 0 success; 1 the run found a fatal
 * condition the user asked to fail on; 2 bad usage or bad scenario; 3 I/O error.
 */
#include "models/cc.h"
#include "models/ecn.h"
#include "models/fabric.h"
#include "models/pfc.h"
#include "models/switch.h"
#include "sim/scenario.h"
#include "sim/mem.h"
#include "sim/units.h"
#include "sim/settings.h"
#include "tools/common/dirlock.h"
#include "tools/run/monitor.h"
#include "tools/report/compare.h"
#include "tools/ops/doctor.h"
#include "tools/live/httpd.h"
#include "tools/common/jsonout.h"
#include "tools/live/live.h"
#include "tools/ops/nicconfig.h"
#include "tools/run/plot.h"
#include "tools/run/limits.h"
#include "tools/run/run.h"
#include "tools/ops/sonic.h"
#include "tools/ops/nvsmi.h"
#include "tools/ops/htsim.h"
#include "tools/ops/ns3rdma.h"
#include "tools/ops/show.h"
#include "tools/common/signals.h"
#include "tools/explore/sweep.h"
#include "tools/explore/sweep_spec.h"
#include "tools/explore/tune.h"
#include "tools/explore/nccltests.h"
#include "tools/common/text.h"
#include "topologies/topo.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SETS 256

static const char usage[] =
    "usage:\n"
    "  rocesim run SCENARIO.json [-o DIR] [--set PATH=VALUE]... [--seed N] [--stop TIME] [--no-plot] [-q]\n"
    "              [--max-wall TIME] [--threads N [--fixed-threads]]\n"
    "              [--fail-on-deadlock] [--live [ADDR:]PORT [--live-hold start|end|both]] [--format ns3-rdma]\n"
    "  rocesim check SCENARIO.json [--set PATH=VALUE]...\n"
    "  rocesim topo SCENARIO.json [--format dot|json] [--set PATH=VALUE]...\n"
    "  rocesim plot DIR\n"
    "  rocesim sweep SWEEP.json [-j N] [-o DIR] [--timeout TIME] [-q]\n"
    "  rocesim tune TUNE.json [-j N] [-o DIR] [--budget RUNS] [--timeout TIME] [-q] [--no-plot]\n"
    "  rocesim nccl-tests SCENARIO.json --op OP --sizes MIN:MAX [--step xF|+B] [--hosts SEL]\n"
    "                     [--algorithm ring|tree|auto] [--channels N] [--chunk SIZE] [-o DIR] [-q]\n"
    "  rocesim nic-config [SCENARIO.json] [--set PATH=VALUE]... [--from best.json [--allow-incomplete]]\n"
    "                     [--iface IF]\n"
    "  rocesim switch-config [SCENARIO.json] [--set PATH=VALUE]... [--from best.json [--allow-incomplete]]\n"
    "                        --format sonic [--node NAME]\n"
    "  rocesim import sonic CONFIG_DB.json [--ports PORT=NODE:N,...]\n"
    "  rocesim import nvidia-smi-topo FILE [-o OUT.json] [--nvlink-rate PER_LINK] [--gdr-level LEVEL]\n"
    "  rocesim import uet-htsim -tm MATRIX.cm [-topo FILE.topo] [OPTION]... [--out SCENARIO.json]\n"
    "  rocesim export uet-htsim SCENARIO.json -o DIR\n"
    "  rocesim import ns3-rdma CONFIG.txt [--topology FILE] [--flows FILE] [--out SCENARIO.json]\n"
    "  rocesim export ns3-rdma SCENARIO.json -o DIR\n"
    "  rocesim compare DIR [DIR]... [--fct receiver|sender] [--plot OUT.png] [--goodput OUT.png] [--title TEXT]\n"
    "  rocesim doctor SCENARIO.json [--set PATH=VALUE]... [-o DIR] | rocesim doctor DIR\n"
    "  rocesim show DIR interfaces counters | pfc counters | queue counters | ib counters [--node NAME]\n"
    "  rocesim view DIR [--live [ADDR:]PORT]\n"
    "  rocesim --help | --version\n"
    "\n"
    "  run    simulate; writes summary.json, flows.csv, queues.csv (the ports of monitor.queues, none by\n"
    "         default), rates.csv and pfc.csv (a bounded sample by default: monitor.flows, monitor.pfc),\n"
    "         counters.csv (with monitor.counters) and plots/*.png to DIR (default out/<scenario name>);\n"
    "         -q: no progress line; --no-plot: no plots;\n"
    "         --fail-on-deadlock: exit status 1 when the run found a PFC deadlock;\n"
    "         --format ns3-rdma: also fct.txt and pfc.txt as the ns-3 RDMA simulator writes them;\n"
    "         --threads N: cut the network into N partitions, each on a thread of its own (1 to 64; the\n"
    "         results are the same for every N); mpirun -np R rocesim-mpi run ... (make mpi): R x N\n"
    "         partitions over R processes, with the same results; while other processes take the cores,\n"
    "         the partitions run on one thread (said at the end), unless --fixed-threads;\n"
    "         --live: serve a live view of the run in the browser (127.0.0.1 unless ADDR is given; PORT 0: any\n"
    "         free port), the URL on stderr; --live-hold: wait for the viewer at the start, keep serving the\n"
    "         final state after the end (until Ctrl-C), or both\n"
    "  check  validate and print the resolved scenario (defaults filled in) as JSON\n"
    "  topo   print the built topology (nodes, links, rates, delays)\n"
    "  plot   redraw the plots of a finished run from the files in its DIR\n"
    "  sweep  run every grid point x seed of a sweep file, N at a time; results.csv, best.json, plots\n"
    "  tune   search the parameters of a tune file for the best setting (design, racing on seeds, local\n"
    "         search), compared with a baseline; tune.csv, best.json with 95 % intervals, plots\n"
    "  nccl-tests  nccl-tests' table (size, count, type, redop, root, time, algbw, busbw) for one collective\n"
    "              of the traffic kind nccl per size on the scenario's fabric (its traffic replaced), run\n"
    "              one after the other in this process; nccl-tests.csv and nccl-tests.png to DIR\n"
    "              (default out/nccl-tests)\n"
    "  nic-config  DCQCN/CNP settings as ConnectX sysfs writes, ECN/PFC thresholds as switch settings\n"
    "  switch-config  one switch's buffer, PFC, ECN, scheduler and watchdog as SONiC config_db.json tables\n"
    "  import sonic   a SONiC config_db.json's QoS tables as a scenario's switch object and profiles\n"
    "  import nvidia-smi-topo  the matrix nvidia-smi topo -m prints as a topology.server description (GPUs,\n"
    "                 NICs, NUMA nodes, PCIe switches, NVLink); -o: to a file instead of stdout\n"
    "  import uet-htsim  the scenario that reproduces a run of htsim_uec, the UEC reference simulator, from\n"
    "                 its command line (its options and units); --out: to a file instead of stdout\n"
    "  export uet-htsim  a scenario as htsim_uec's NAME.cm, NAME.topo and cmdline.txt in DIR, listing what\n"
    "                 they cannot express\n"
    "  import ns3-rdma  the scenario that reproduces a run of the HPCC paper's ns-3 RDMA simulator from its\n"
    "                 config.txt, topology and flow files; --out: to a file instead of stdout\n"
    "  export ns3-rdma  a scenario as that simulator's config.txt, topology.txt and flow.txt in DIR, listing\n"
    "                 what they cannot express\n"
    "  compare  the key numbers of finished runs side by side (columns named by their DIRs), with\n"
    "           each run's ratio to the first; runs that did not complete are flagged; --fct sender: FCTs\n"
    "           to the last ACK at the sender (default: to the last byte at the receiver); --plot: their\n"
    "           FCT slowdown p50/p95 against flow size as a PNG\n"
    "  doctor  the misconfigurations of a scenario (before a run) or what went wrong in a finished run's\n"
    "          DIR, each with why it matters and what to change; doctor.json to DIR (-o DIR for a scenario);\n"
    "          exit status 1 when it found something\n"
    "  show   a run's counters.csv as SONiC's show interfaces / pfc / queue counters print theirs\n"
    "  view   replay a finished run's DIR in the live view's page, with a time slider, until Ctrl-C\n"
    "         (default 127.0.0.1:8600)\n"
    "See README.md and docs/scenario.md.\n";

struct cli {
    const char *cmd, *scenario, *out_dir, *format;
    struct scn_override sets[MAX_SETS];
    int n_sets;
    char seed_buf[32], stop_buf[64];
    bool quiet, no_plot, fail_on_deadlock;
    const char *max_wall; /* --max-wall TIME as given, or NULL */
    double max_wall_s;
    const char *live;     /* --live [ADDR:]PORT, or NULL */
    int live_hold;        /* --live-hold: enum live_hold bits */
    unsigned threads;     /* --threads N, or 0 */
    bool fixed_threads;   /* --fixed-threads */
};

static int bad_usage(const char *fmt, const char *arg)
{
    return usage_error(NULL, usage, fmt, arg);
}

static int add_set(struct cli *c, const char *arg, char *storage)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg)
        return bad_usage("--set expects PATH=VALUE, got \"%s\"", arg);
    if (c->n_sets == MAX_SETS)
        return bad_usage("too many --set options (at most 256), at \"%s\"", arg);
    size_t plen = (size_t)(eq - arg);
    /* only the path has a limit (the loader's); a value may be as long as the command line allows */
    if (plen >= SETTING_PATH_MAX) {
        char fmt[160];
        snprintf(fmt, sizeof fmt, "--set expects a PATH of at most %d characters, got %zu: \"%%.60s...\"",
                 SETTING_PATH_MAX - 1, plen);
        return bad_usage(fmt, arg);
    }
    memcpy(storage, arg, plen);
    storage[plen] = '\0';
    c->sets[c->n_sets].path = storage;
    c->sets[c->n_sets].value = eq + 1;
    c->n_sets++;
    return 0;
}

static int parse_args(int argc, char **argv, struct cli *c, char (*set_paths)[SETTING_PATH_MAX])
{
    memset(c, 0, sizeof *c);
    if (argc < 2)
        return bad_usage("%s", "missing command");
    c->cmd = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        bool has_next = i + 1 < argc;
        if (strcmp(a, "-o") == 0 || strcmp(a, "--out") == 0) {
            if (!has_next)
                return bad_usage("%s needs a directory", a);
            c->out_dir = argv[++i];
        } else if (strcmp(a, "--set") == 0) {
            if (!has_next)
                return bad_usage("%s needs PATH=VALUE", a);
            int rc = add_set(c, argv[i + 1], set_paths[c->n_sets]);
            i++;
            if (rc)
                return rc;
        } else if (strcmp(a, "--seed") == 0) {
            if (!has_next)
                return bad_usage("%s needs a number", a);
            const char *v = argv[++i];
            uint64_t s;
            if (scn_seed_parse(v, strlen(v), &s))
                return bad_usage("--seed expects an integer from 0 to " SCN_SEED_MAX_TEXT ", got \"%s\"", v);
            snprintf(c->seed_buf, sizeof c->seed_buf, "%llu", (unsigned long long)s);
        } else if (strcmp(a, "--stop") == 0) {
            if (!has_next)
                return bad_usage("%s needs a time like \"10ms\"", a);
            const char *v = argv[++i];
            int64_t ps;
            char err[256];
            if (units_parse_time(v, &ps, err, sizeof err))
                return bad_usage("--stop: %s", err);
            snprintf(c->stop_buf, sizeof c->stop_buf, "\"%s\"", v);
        } else if (strcmp(a, "--format") == 0) {
            if (!has_next)
                return bad_usage("%s needs dot or json", a);
            c->format = argv[++i];
            if (strcmp(c->format, "dot") && strcmp(c->format, "json") && strcmp(c->format, "ns3-rdma"))
                return bad_usage("--format expects dot or json (topo) or ns3-rdma (run), got \"%s\"", c->format);
        } else if (strcmp(a, "--max-wall") == 0) {
            if (!has_next)
                return bad_usage("%s needs a time like \"10s\"", a);
            const char *v = argv[++i];
            int64_t ps;
            char err[256];
            if (units_parse_time(v, &ps, err, sizeof err))
                return bad_usage("--max-wall: %s", err); /* what is wrong with it: no unit, too large (the most) */
            if (ps <= 0)
                return bad_usage("--max-wall expects a positive time like \"10s\", got \"%s\"", v);
            c->max_wall = v;
            c->max_wall_s = (double)ps * 1e-12;
        } else if (strcmp(a, "--threads") == 0) {
            if (!has_next)
                return bad_usage("%s needs a number of threads", a);
            const char *v = argv[++i];
            char *end;
            errno = 0;
            unsigned long t = strtoul(v, &end, 10);
            if (errno || *end || !*v || v[0] == '-' || t < 1 || t > SIM_PAR_MAX)
                return bad_usage("--threads expects a number from 1 to 64, got \"%s\"", v);
            c->threads = (unsigned)t;
        } else if (strcmp(a, "--live") == 0) {
            if (!has_next)
                return bad_usage("%s needs [ADDR:]PORT, like 8600 or 127.0.0.1:8600", a);
            c->live = argv[++i];
            char addr[64], err[200];
            int port;
            if (!httpd_parse_addr(c->live, addr, sizeof addr, &port, err, sizeof err))
                return bad_usage("--live: %s", err);
        } else if (strcmp(a, "--live-hold") == 0) {
            if (!has_next || !live_parse_hold(argv[i + 1], &c->live_hold))
                return bad_usage("--live-hold expects start, end or both, got \"%s\"", has_next ? argv[i + 1] : "");
            i++;
        } else if (strcmp(a, "--fixed-threads") == 0) {
            c->fixed_threads = true;
        } else if (strcmp(a, "--no-plot") == 0) {
            c->no_plot = true;
        } else if (strcmp(a, "--fail-on-deadlock") == 0) {
            c->fail_on_deadlock = true;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            c->quiet = true;
        } else if (a[0] == '-' && a[1]) {
            return bad_usage("unknown option \"%s\"", a);
        } else if (!c->scenario) {
            c->scenario = a;
        } else {
            return bad_usage("unexpected argument \"%s\"", a);
        }
    }
    /* --seed and --stop are overrides like any other, applied last. */
    if (c->seed_buf[0] && c->n_sets < MAX_SETS)
        c->sets[c->n_sets++] = (struct scn_override){"seed", c->seed_buf};
    if (c->stop_buf[0] && c->n_sets < MAX_SETS)
        c->sets[c->n_sets++] = (struct scn_override){"stop", c->stop_buf};
    /* pfc.txt is made from every PAUSE and RESUME frame, which pfc.csv then holds */
    if (c->format && !strcmp(c->format, "ns3-rdma") && c->n_sets < MAX_SETS)
        c->sets[c->n_sets++] = (struct scn_override){"monitor.pfc", "\"all\""};
    return 0;
}

static int load(const struct cli *c, struct scenario *scn)
{
    char err[SCN_ERR_MAX];
    if (!c->scenario)
        return bad_usage("%s needs a scenario file", c->cmd);
    int rc = scn_load(c->scenario, c->sets, c->n_sets, scn, err, sizeof err);
    if (rc)
        fprintf(stderr, "rocesim: %s\n", err);
    return rc;
}


/* Names of the nodes ids[0..n) as runs of consecutive numbers ("tor0-tor3, spine0"), the range selector's form. */
static void node_runs(const struct graph *g, const uint32_t *ids, uint32_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n;) {
        const char *first = g->nodes[ids[i]].name;
        size_t fl = strlen(first), st = fl;
        while (st > 0 && first[st - 1] >= '0' && first[st - 1] <= '9')
            st--;
        long num = st < fl ? atol(first + st) : -1;
        uint32_t e = i + 1;
        for (; num >= 0 && e < n; e++) {
            const char *nx = g->nodes[ids[e]].name;
            if (strncmp(nx, first, st) != 0 || strlen(nx) <= st || atol(nx + st) != num + (long)(e - i) ||
                strspn(nx + st, "0123456789") != strlen(nx + st))
                break;
        }
        const char *last = g->nodes[ids[e - 1]].name;
        int k = snprintf(buf + used, len - used, "%s%s%s%s", used ? ", " : "", first, e - 1 > i ? "-" : "",
                         e - 1 > i ? last : "");
        if (k < 0 || (size_t)k >= len - used)
            return;
        used += (size_t)k;
        i = e;
    }
}

/* A switch port setting set (struct port_cfg) as check shows it, with how many of the group's ports have it. */
static cJSON *port_cfg_json(const struct port_cfg *pc, uint32_t ports)
{
    char a[32], b[32];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "rate", units_fmt_rate(pc->rate_bps, a, sizeof a));
    cJSON_AddNumberToObject(o, "ports", ports);
    cJSON *pr = cJSON_AddArrayToObject(o, "pfc_priorities");
    for (int p = 0; p < NPRIO; p++)
        if (pc->lossless & (1u << p))
            cJSON_AddItemToArray(pr, cJSON_CreateNumber(p));
    if (pc->lossless) {
        if (pc->xoff_static)
            cJSON_AddStringToObject(o, "xoff", units_fmt_size(pc->xoff, a, sizeof a));
        else
            cJSON_AddNumberToObject(o, "dynamic_alpha", pc->alpha);
        cJSON_AddStringToObject(o, "xon_delta", units_fmt_size(pc->xon_delta, a, sizeof a));
        cJSON_AddStringToObject(o, "headroom", units_fmt_size(pc->headroom, b, sizeof b));
    }
    cJSON_AddBoolToObject(o, "ecn", pc->ecn.enabled);
    if (pc->ecn.enabled) {
        cJSON_AddStringToObject(o, "kmin", units_fmt_size(pc->ecn.kmin, a, sizeof a));
        cJSON_AddStringToObject(o, "kmax", units_fmt_size(pc->ecn.kmax, b, sizeof b));
        cJSON_AddNumberToObject(o, "pmax", pc->ecn.pmax);
    }
    cJSON_AddStringToObject(o, "lossy_queue_limit", units_fmt_size(pc->lossy_limit, a, sizeof a));
    return o;
}

/*
 * What a host group's congestion control makes of its settings on those hosts (cc_ops.host_values: values scaled
 * to the line rate), one entry per line rate among the k hosts ids[] (their indexes in net.hosts); nothing when
 * its algorithm has no such values.
 */
static void add_cc_values(cJSON *o, const struct net *n, const struct scn_host *cfg, const uint32_t *ids, uint32_t k)
{
    int cc = cc_params_of(cfg)->cc;
    if (cc < 0 || !cc_registry[cc]->host_values)
        return;
    cJSON *arr = cJSON_AddArrayToObject(o, "cc_values");
    for (uint32_t i = 0; i < k; i++) {
        const struct host *h = &n->hosts[ids[i]];
        uint32_t same = 0, j = 0;
        while (j < i && n->hosts[ids[j]].rate_bps != h->rate_bps)
            j++;
        if (j < i)
            continue; /* that rate has its entry */
        for (j = i; j < k; j++)
            same += n->hosts[ids[j]].rate_bps == h->rate_bps;
        struct cc_value v[16];
        int nv = cc_registry[cc]->host_values(h, v, 16);
        char a[32];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "rate", units_fmt_rate(h->rate_bps, a, sizeof a));
        cJSON_AddNumberToObject(e, "hosts", same);
        cJSON *vals = cJSON_AddObjectToObject(e, cc_registry[cc]->name);
        for (int q = 0; q < nv; q++)
            cJSON_AddStringToObject(vals, v[q].name, v[q].text);
        cJSON_AddItemToArray(arr, e);
    }
}

/*
 * The resolved settings per group of nodes that share them (profiles, docs/scenario.md): each switch group with
 * its ports' values per distinct set (rates, thresholds), each host group with its host object.
 */
static cJSON *groups_json(const struct run *r)
{
    const struct graph *g = &r->g;
    const struct net *n = &r->net;
    cJSON *arr = cJSON_CreateArray();
    uint32_t *ids = mem_xcalloc(g->n_nodes ? g->n_nodes : 1, sizeof *ids, "reporting the settings per node");
    uint32_t *cnt = mem_xcalloc(n->n_pcfg ? n->n_pcfg : 1, sizeof *cnt, "reporting the settings per node");
    char *names = mem_xmalloc(4096, "reporting the settings per node");
    for (uint32_t c = 0; c < n->n_sw_cfgs; c++) {
        uint32_t k = 0;
        memset(cnt, 0, sizeof *cnt * n->n_pcfg);
        for (uint32_t i = 0; i < g->n_switches; i++)
            if (n->sws[i].cfg == &n->sw_cfgs[c]) {
                ids[k++] = n->sws[i].node;
                for (uint32_t j = 0; j < n->sws[i].n_ports; j++)
                    cnt[n->sws[i].ports[j].cfg]++;
            }
        node_runs(g, ids, k, names, 4096);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "nodes", names);
        scn_dump_group(n->scn, settings_find("switch"), &n->sw_cfgs[c], cJSON_AddObjectToObject(o, "switch"));
        cJSON *ports = cJSON_AddArrayToObject(o, "ports");
        for (uint32_t q = 0; q < n->n_pcfg; q++)
            if (cnt[q])
                cJSON_AddItemToArray(ports, port_cfg_json(&n->pcfg[q], cnt[q]));
        cJSON_AddItemToArray(arr, o);
    }
    for (uint32_t c = 0; c < n->n_host_cfgs; c++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < g->n_hosts; i++)
            if (n->hosts[i].cfg == &n->host_cfgs[c])
                ids[k++] = n->hosts[i].node;
        node_runs(g, ids, k, names, 4096);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "nodes", names);
        scn_dump_group(n->scn, settings_find("host"), &n->host_cfgs[c], cJSON_AddObjectToObject(o, "host"));
        k = 0;
        for (uint32_t i = 0; i < g->n_hosts; i++)
            if (n->hosts[i].cfg == &n->host_cfgs[c])
                ids[k++] = i;
        add_cc_values(o, n, &n->host_cfgs[c], ids, k);
        cJSON_AddItemToArray(arr, o);
    }
    free(ids);
    free(cnt);
    free(names);
    return arr;
}

/*
 * What check reports beyond the scenario itself: the size of the built
 * network, and the PFC headroom per class of port (same rate, delay and headroom), with
 * the largest reservation on any one switch.
 */
/* One threshold of a switch that counts cells: as set, in cells, and in the bytes of whole cells it compares as. */
static void add_cells_threshold(cJSON *o, const char *name, int64_t set, int64_t cell)
{
    char a[32], b[32];
    int64_t cells = (set + cell - 1) / cell;
    cJSON *t = cJSON_AddObjectToObject(o, name);
    cJSON_AddStringToObject(t, "set", units_fmt_size(set, a, sizeof a));
    cJSON_AddNumberToObject(t, "cells", (double)cells);
    cJSON_AddStringToObject(t, "compared_as", units_fmt_size(cells * cell, b, sizeof b));
}

/* The switch thresholds in both units, when the switch counts its buffer in cells (switch.cell_size). */
static void add_cells(cJSON *d, const struct scn_switch *sw)
{
    const struct switch_params *own = switch_params_of(sw);
    int64_t c = own->cell_size;
    cJSON *o = cJSON_AddObjectToObject(d, "cells");
    cJSON_AddNumberToObject(o, "cell_size", (double)c);
    add_cells_threshold(o, "buffer", own->buffer, c);
    if (!own->lossy_queue_limit_map.n) /* a map's values per rate: derived.groups */
        add_cells_threshold(o, "lossy_queue_limit", own->lossy_queue_limit, c);
    const struct pfc_settings *pfc = pfc_settings_of(sw);
    const struct ecn_settings *ecn = ecn_settings_of(sw);
    if (pfc->enabled) {
        if (pfc->xoff_mode == PFC_XOFF_STATIC)
            add_cells_threshold(o, "xoff", pfc->xoff_bytes, c);
        add_cells_threshold(o, "xon_delta", pfc->xon_delta, c);
        if (!pfc->headroom_auto)
            add_cells_threshold(o, "headroom", pfc->headroom_bytes, c);
    }
    if (ecn->enabled) {
        add_cells_threshold(o, "kmin", ecn->kmin, c);
        add_cells_threshold(o, "kmax", ecn->kmax, c);
    }
}

static cJSON *derived_json(const struct run *r)
{
    const struct graph *g = &r->g;
    const struct net *n = &r->net;
    cJSON *d = cJSON_CreateObject();
    cJSON_AddNumberToObject(d, "hosts", g->n_hosts);
    cJSON_AddNumberToObject(d, "switches", g->n_switches);
    cJSON_AddNumberToObject(d, "links", g->n_links);
    cJSON_AddNumberToObject(d, "flows", net_flows_made(n));
    cJSON_AddItemToObject(d, "groups", groups_json(r));
    int cell = switch_params_of(&r->scn->sw)->cell_size;
    if (cell)
        add_cells(d, &r->scn->sw);
    if (!pfc_settings_of(&r->scn->sw)->enabled)
        return d;
    cJSON *classes = cJSON_AddArrayToObject(d, "pfc_headroom");
    struct hdrm_report rep;
    run_headroom_classes(r, &rep);
    for (int k = 0; k < rep.n; k++) {
        char a[32], b[32], h[32];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "rate", units_fmt_rate(rep.cls[k].rate_bps, a, sizeof a));
        cJSON_AddStringToObject(o, "delay", units_fmt_time(rep.cls[k].delay_ps, b, sizeof b));
        cJSON_AddNumberToObject(o, "ports", rep.cls[k].ports);
        cJSON_AddStringToObject(o, "headroom_per_priority", units_fmt_size(rep.cls[k].headroom, h, sizeof h));
        if (cell)
            cJSON_AddNumberToObject(o, "headroom_cells_per_priority", (double)(rep.cls[k].headroom / cell));
        cJSON_AddItemToArray(classes, o);
    }
    char m[32];
    cJSON *mr = cJSON_AddObjectToObject(d, "largest_headroom_reservation");
    cJSON_AddStringToObject(mr, "switch", rep.max_switch);
    cJSON_AddStringToObject(mr, "bytes", units_fmt_size(rep.max_reserved, m, sizeof m));
    free(rep.cls);
    return d;
}

/* Whether file is a sweep file (a JSON object with a top-level `key`: "grid" for a sweep, "params" for a tune
 * file); false when unreadable. */
static bool is_sweep_file(const char *file, const char *key)
{
    char *buf;
    if (read_text_file(file, &buf, NULL, 0))
        return false;
    size_t unclosed;
    char *clean = scn_strip_comments(buf, &unclosed);
    free(buf);
    cJSON *j = clean ? cJSON_Parse(clean) : NULL;
    bool sweep = cJSON_IsObject(j) && cJSON_GetObjectItemCaseSensitive(j, key) != NULL;
    cJSON_Delete(j);
    free(clean);
    return sweep;
}

/*
 * `check` on a sweep file: the sweep is valid and every grid point gives a
 * valid scenario.  Prints a short JSON description; returns 0, or 2 naming the
 * first point that does not load.
 */
static int check_sweep(const char *file)
{
    struct sweep_spec sp;
    char err[SCN_ERR_MAX];
    int rc = sweep_load(file, &sp, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    for (int p = 0; p < sp.n_points && !rc; p++) {
        struct scn_override ov[64];
        int n = sweep_point_overrides(&sp, p, ov, 64);
        struct scenario scn;
        if (n < 0 || scn_load(sp.scenario, ov, n, &scn, err, sizeof err)) {
            fprintf(stderr, "rocesim: %s: grid point %d: %s\n", file, p, n < 0 ? "too many values" : err);
            rc = SCN_EUSAGE;
            break;
        }
        scn_free(&scn);
    }
    if (!rc) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "sweep", file);
        cJSON_AddStringToObject(o, "scenario", sp.scenario);
        cJSON_AddNumberToObject(o, "points", sp.n_points);
        cJSON_AddNumberToObject(o, "seeds", sp.n_seeds);
        cJSON_AddNumberToObject(o, "runs", (double)sp.n_points * sp.n_seeds);
        cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "objective"), sp.maximize ? "maximize" : "minimize",
                                sp.objective);
        char *txt = cJSON_Print(o);
        if (txt)
            printf("%s\n", txt);
        free(txt);
        cJSON_Delete(o);
    }
    sweep_spec_free(&sp);
    return rc;
}

/* `check` on a tune file: tune_load's checks (the baseline and the middle of the box load); a short JSON
 * description.  Returns 0 or the load's status. */
static int check_tune(const char *file)
{
    struct tune_spec ts;
    char err[SCN_ERR_MAX + 256];
    int rc = tune_load(file, &ts, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "tune", file);
    cJSON_AddStringToObject(o, "scenario", ts.scenario);
    cJSON *p = cJSON_AddArrayToObject(o, "params");
    for (int i = 0; i < ts.n_params; i++)
        cJSON_AddItemToArray(p, cJSON_CreateString(ts.params[i].path));
    cJSON_AddNumberToObject(o, "seeds", ts.n_seeds);
    cJSON_AddNumberToObject(o, "budget", ts.budget);
    char *txt = cJSON_Print(o);
    if (txt)
        printf("%s\n", txt);
    free(txt);
    cJSON_Delete(o);
    tune_spec_free(&ts);
    return 0;
}

static int cmd_check(const struct cli *c)
{
    if (c->scenario && c->n_sets == 0 && is_sweep_file(c->scenario, "grid"))
        return check_sweep(c->scenario);
    if (c->scenario && c->n_sets == 0 && is_sweep_file(c->scenario, "params"))
        return check_tune(c->scenario);
    struct scenario scn;
    int rc = load(c, &scn);
    if (rc)
        return rc;
    /* Build the network too: node names in paths and faults are only known then. */
    struct run r;
    char err[SCN_ERR_MAX];
    rc = run_setup(&r, &scn, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        scn_free(&scn);
        return rc;
    }
    struct port **mq;
    uint32_t n_mq;
    rc = monitor_resolve_queues(&r, &mq, &n_mq, err, sizeof err);
    free(mq);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        run_free(&r);
        scn_free(&scn);
        return rc;
    }
    char *json = scn_to_json(&scn);
    cJSON *root = scn_parse_json(scn.file, json, NULL, 0); /* keeps a seed above 2^53 exact (scenario.h) */
    free(json);
    if (!root)
        mem_oom("printing the resolved scenario");
    cJSON_AddItemToObject(root, "derived", derived_json(&r));
    char *out = jsonout_print(root);
    cJSON_Delete(root);
    if (!out)
        mem_oom("printing the resolved scenario");
    printf("%s\n", out);
    free(out);
    run_free(&r);
    scn_free(&scn);
    return 0;
}

static int cmd_topo(const struct cli *c)
{
    if (c->format && !strcmp(c->format, "ns3-rdma"))
        return bad_usage("topo's --format is dot or json, got \"%s\"", c->format);
    struct scenario scn;
    int rc = load(c, &scn);
    if (rc)
        return rc;
    struct graph g;
    char err[SCN_ERR_MAX];
    rc = topo_build(&scn, &g, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        scn_free(&scn);
        return rc;
    }
    /* A fabric that routes on its own (InfiniBand's subnet manager) shows its forwarding tables too. */
    const struct fabric_ops *fab = fabric_of(&scn);
    struct sm_layers sm = {0};
    char *more = NULL;
    size_t len = 0;
    if (fab->route) {
        if ((rc = fab->route(&scn, &g, &sm, err, sizeof err))) {
            fprintf(stderr, "rocesim: %s\n", err);
            graph_free(&g);
            scn_free(&scn);
            return rc;
        }
        FILE *ms = open_memstream(&more, &len);
        if (ms) {
            sm_write_json(ms, &g, &sm);
            fclose(ms);
        }
    }
    if (c->format && strcmp(c->format, "dot") == 0)
        topo_write_dot(stdout, &g);
    else
        topo_write_json_more(stdout, &g, more);
    free(more);
    sm_layers_free(&sm);
    graph_free(&g);
    scn_free(&scn);
    return 0;
}

/* The ranks a run is spread over (`rocesim-mpi run` under mpirun), NULL in one process. */
static const struct sim_par_comm *run_comm;

/* A peer rank's own stderr, and what it said while it set up (held: rank 0 says it for all, unless the peer
 * alone failed). */
static int saved_stderr = -1;
static FILE *held;
/* The output directory's lock (tools/common/dirlock.h): rank 0 holds it from before the run claims the directory on. */
static struct dirlock run_lock = {.fd = -1};
static int cmd_run_body(const struct cli *c, bool peer);

/* A failing peer's held messages, to its own stderr. */
static void tell_held(void)
{
    fflush(stderr);
    char buf[4096];
    ssize_t k;
    if (!held || saved_stderr < 0 || lseek(fileno(held), 0, SEEK_SET) != 0)
        return;
    while ((k = read(fileno(held), buf, sizeof buf)) > 0)
        if (write(saved_stderr, buf, (size_t)k) != k)
            return;
}

/*
 * Over MPI ranks, the largest of the ranks' rc: a rank that cannot start makes them all stop before the run.
 * Rank 0 says what failed; when it alone did not fail, the ranks that did say it themselves.
 */
static int agree(int rc)
{
    if (!run_comm)
        return rc;
    uint64_t v[2] = {(uint64_t)rc, run_comm->rank == 0 ? (uint64_t)rc : 0};
    run_comm->max(run_comm->ctx, v, 2);
    if (v[0] && !v[1]) {
        if (run_comm->rank == 0)
            fprintf(stderr, "rocesim: another MPI rank could not set up the run (exit %d); it says why\n", (int)v[0]);
        else if (rc)
            tell_held();
    }
    return (int)v[0];
}

static int cmd_run(const struct cli *c)
{
    if (c->format && strcmp(c->format, "ns3-rdma"))
        return bad_usage("run's --format is ns3-rdma (fct.txt and pfc.txt besides the usual outputs), got \"%s\"",
                         c->format);
    /* Over MPI ranks rank 0 reports and writes; the others take part in the run, holding back what they say
     * while they set it up (every rank meets the same error in a bad scenario). */
    bool peer = run_comm && run_comm->rank != 0;
    if (peer && (held = tmpfile())) {
        saved_stderr = dup(STDERR_FILENO);
        dup2(fileno(held), STDERR_FILENO);
    }
    int rc = cmd_run_body(c, peer);
    dirlock_release(&run_lock);
    if (saved_stderr >= 0) {
        dup2(saved_stderr, STDERR_FILENO);
        close(saved_stderr);
        saved_stderr = -1;
    }
    if (held) {
        fclose(held);
        held = NULL;
    }
    return rc;
}

static int cmd_run_body(const struct cli *c, bool peer)
{
    struct scenario scn;
    int rc = agree(load(c, &scn));
    if (rc)
        return rc;
    char dir[4096];
    if (c->out_dir)
        snprintf(dir, sizeof dir, "%s", c->out_dir);
    else
        snprintf(dir, sizeof dir, "out/%s", scn.name);
    struct run r;
    char err[SCN_ERR_MAX];
    /* From here a first SIGINT/SIGTERM or the --max-wall deadline stops the run with its outputs written,
     * marked incomplete; a second signal kills at once (tools/common/signals.h). */
    if (sig_install())
        fprintf(stderr, "rocesim: cannot install signal handlers: %s\n", strerror(errno));
    limits_set_max_wall(c->max_wall_s, c->max_wall);
    rc = run_setup(&r, &scn, err, sizeof err);
    int all = agree(rc);
    if (rc || all) {
        if (rc)
            fprintf(stderr, "rocesim: %s\n", err);
        else
            run_free(&r);
        scn_free(&scn);
        return rc ? rc : all;
    }
    if (!peer && (rc = dirlock_take(&run_lock, dir, err, sizeof err)))
        fprintf(stderr, "rocesim: %s\n", err);
    if ((all = agree(rc))) {
        run_free(&r);
        scn_free(&scn);
        return all;
    }
    /* The observers (tools/run/observer.h) watch the run: the time series stream into dir while the run goes, so
     * it exists from here on, emptied of whatever an earlier run left (run_claim_dir, by the monitor); the resolved
     * scenario goes first of the final files, saying what this directory is. */
    const struct run_options ro = {.dir = peer ? NULL : dir, .quiet = c->quiet, .ranks = run_comm != NULL,
                                   .live = c->live, .live_hold = c->live_hold};
    if (!(rc = run_observers_open(&r, &ro, err, sizeof err)) && !peer &&
        (rc = plot_save_inputs(&scn, dir, err, sizeof err))) {
        run_observers_finish(&r, false, NULL, 0);
        run_observers_close(&r, false);
    }
    all = agree(rc);
    if (!rc && all) {
        run_observers_finish(&r, false, NULL, 0);
        run_observers_close(&r, false);
    }
    if (rc || all) {
        if (rc)
            fprintf(stderr, "rocesim: %s\n", err);
        run_free(&r);
        scn_free(&scn);
        return rc ? rc : all;
    }
    if (saved_stderr >= 0)
        dup2(saved_stderr, STDERR_FILENO); /* from here a peer's messages are its own (an internal error) */
    if (run_execute(&r)) {
        fprintf(stderr, "rocesim: internal error (a bug): invariant violated: %s\n", r.invariant_error);
        abort();
    }
    if (peer) {
        run_observers_finish(&r, false, NULL, 0);
        run_observers_close(&r, false);
        run_free(&r);
        scn_free(&scn);
        return 0;
    }
    rc = run_write_outputs(&r, dir, err, sizeof err);
    char err2[SCN_ERR_MAX];
    int mrc = run_observers_finish(&r, rc == 0, err2, sizeof err2);
    if (!rc && mrc) {
        rc = mrc;
        snprintf(err, sizeof err, "%s", err2);
    }
    /* after the monitor's files are final: pfc.txt is made from pfc.csv */
    if (!rc && c->format && !strcmp(c->format, "ns3-rdma"))
        rc = ns3rdma_write_outputs(&r, dir, err, sizeof err);
    bool whole = false;
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
    } else {
        /* Plots are a view of the data: a gnuplot failure is reported, and the run still succeeds. */
        struct plot_result pr;
        const char *plots = "not drawn (--no-plot)";
        /* No plot of an earlier run is left to mislead: claiming the directory removed them (run_claim_dir). */
        if (sig_received()) {
            /* Interrupted: the user wants out now, not after gnuplot. */
            plots = "not drawn (interrupted)";
        } else if (!c->no_plot) {
            plot_draw(dir, &pr, stderr);
            plots = pr.summary;
        }
        run_print_summary(&r, stdout, dir, plots);
        monitor_print_cuts(&r, stderr); /* a time series a bound cut short, said where a pipeline shows it */
        /* The outputs are all written: a deadlock is a finding of the run, an error only when asked for. */
        if (c->fail_on_deadlock && r.net.dl.detected)
            rc = 1;
        if (sig_received())
            rc = sig_exit_status(sig_received()); /* 130 SIGINT, 143 SIGTERM, as a shell reports them */
        else
            whole = true; /* the run is whole: a signal now only ends the viewing (--live-hold end) */
    }
    run_observers_close(&r, whole);
    run_free(&r);
    scn_free(&scn);
    return rc;
}

static int cmd_view(const struct cli *c)
{
    if (!c->scenario)
        return bad_usage("%s needs the directory of a finished run", c->cmd);
    if (c->n_sets || c->out_dir)
        return bad_usage("%s takes a directory and --live only", c->cmd);
    char err[SCN_ERR_MAX + 256];
    int rc = live_view(c->scenario, c->live ? c->live : "8600", err, sizeof err);
    if (rc)
        fprintf(stderr, "rocesim: %s\n", err);
    return rc;
}

static int cmd_plot(const struct cli *c)
{
    if (!c->scenario)
        return bad_usage("%s needs the directory of a finished run", c->cmd);
    char err[SCN_ERR_MAX];
    int rc = plot_check_dir(c->scenario, err, sizeof err);
    if (rc) {
        fprintf(stderr, "rocesim: %s\n", err);
        return rc;
    }
    struct plot_result pr;
    rc = plot_draw(c->scenario, &pr, stderr);
    printf("plots: %s\n", pr.summary);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        puts("rocesim 0.1");
        return 0;
    }
    /* These commands have options of their own (tools/explore/sweep.c and tune.c, tools/ops/nicconfig.c and
     * sonic.c). */
    if (argc >= 2 && strcmp(argv[1], "compare") == 0)
        return compare_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "show") == 0)
        return show_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "sweep") == 0)
        return sweep_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "tune") == 0)
        return tune_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "nccl-tests") == 0)
        return nccltests_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "nic-config") == 0)
        return nicconfig_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "switch-config") == 0)
        return sonic_export_main(argc, argv);
    if (argc >= 3 && strcmp(argv[1], "import") == 0 && strcmp(argv[2], "nvidia-smi-topo") == 0)
        return nvsmi_import_main(argc, argv);
    if (argc >= 3 && strcmp(argv[1], "import") == 0 && strcmp(argv[2], "uet-htsim") == 0)
        return htsim_import_main(argc, argv);
    if (argc >= 3 && strcmp(argv[1], "import") == 0 && strcmp(argv[2], "ns3-rdma") == 0)
        return ns3rdma_import_main(argc, argv);
    if (argc >= 3 && strcmp(argv[1], "export") == 0 && strcmp(argv[2], "ns3-rdma") == 0)
        return ns3rdma_export_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "export") == 0)
        return htsim_export_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "import") == 0)
        return sonic_import_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "doctor") == 0)
        return doctor_main(argc, argv);
    if (argc == 3 && strcmp(argv[1], "plot") == 0 && sweep_is_dir(argv[2]))
        return sweep_plot_main(argv[2]);
    static char set_paths[MAX_SETS][SETTING_PATH_MAX];
    struct cli c;
    int rc = parse_args(argc, argv, &c, set_paths);
    if (rc)
        return rc;
    if ((c.live && strcmp(c.cmd, "run") && strcmp(c.cmd, "view")) || (c.live_hold && strcmp(c.cmd, "run")))
        return bad_usage("%s: --live is for run and view, --live-hold for run", c.cmd);
    if (c.live_hold && !c.live)
        return bad_usage("%s", "--live-hold needs --live [ADDR:]PORT");
    if (c.threads && strcmp(c.cmd, "run"))
        return bad_usage("%s: --threads is for run", c.cmd);
    if (c.fixed_threads && c.threads < 2)
        return bad_usage("%s", "--fixed-threads is for --threads N with N of 2 or more");
    if (c.threads)
        run_set_threads(c.threads);
    run_set_adaptive(!c.fixed_threads);
    if (strcmp(c.cmd, "run") == 0) {
        /* rocesim-mpi under mpirun: one run, its partitions spread over the ranks (tools/run/run_mpi.c) */
        run_comm = run_mpi_start(&argc, &argv);
        run_set_comm(run_comm);
        if (run_comm && c.live) {
            /* said once, by rank 0 */
            int bad = run_comm->rank ? SCN_EUSAGE : bad_usage("%s", "--live: a run over MPI ranks has no live view");
            return run_mpi_end(bad);
        }
        return run_mpi_end(cmd_run(&c));
    }
    if (strcmp(c.cmd, "check") == 0)
        return cmd_check(&c);
    if (strcmp(c.cmd, "topo") == 0)
        return cmd_topo(&c);
    if (strcmp(c.cmd, "plot") == 0)
        return cmd_plot(&c);
    if (strcmp(c.cmd, "view") == 0)
        return cmd_view(&c);
    return bad_usage("unknown command \"%s\"", c.cmd);
}
