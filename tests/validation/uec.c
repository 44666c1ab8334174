/*
 * The UEC reference simulator's regression plans, run through `rocesim import uet-htsim` (tools/ops/htsim.h) from
 * the inputs it ships (scenarios/uet-htsim/, copied from ultraethernet/uet-htsim at 40ccb05): each experiment's tail
 * FCT (the last flow's completion at its sender, an absolute time as the reference's "finished at") against the
 * plan's !tailFCT target and against the reference's own result as its repository records it (the .out files of
 * htsim/sim/datacenter/validate_outputs), and the run's totals of new packets, resent packets and NACKs against the
 * reference's `Summary:` line (a row's note: rocesim's count / the reference's).
 *
 * Tolerances (the reference's own regression rules, check_regressions.py): the tail at most 5 % above the target;
 * new packets equal; resent packets and NACKs within 20 % of the reference's, or both below 0.1 % of the new
 * packets (a handful either way says nothing).  An experiment the import refused would be listed as not run, with
 * the reason.  Experiments whose row fails at the plan's seed also get a row over many seeds (run_seeded).
 */
#include "tests/validation/validation.h"

#include "tools/common/stats.h"
#include "tools/common/text.h"
#include "tools/ops/htsim.h"
#include "tools/run/run.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct uec_exp {
    const char *plan, *name;
    const char *cm;   /* under scenarios/uet-htsim/connection_matrices/ */
    const char *args; /* the plan's !Param lines, in order; a -topo names a file under scenarios/uet-htsim/ */
    double target_us, ref_us;
    double ref_new, ref_rtx, ref_nacks;
};

/* The plans validate_uec_sender.txt ("sender"), validate_load_balancing_snd.txt ("lb"), validate_uec_rcv.txt ("rcv"),
 * validate_uec_both.txt ("both"), validate_load_balancing_rcv.txt ("lb-rcv") and, with 8 slowed links,
 * validate_load_balancing_failed_snd.txt and _rcv.txt ("lb-failed", "lb-failed-rcv"), in their order, with the
 * results validate_outputs/ records for them (the failed plans' names say 10 % capacity; the reference runs the links
 * at 25 %, as the import does). */
static const struct uec_exp exps[] = {
    {"sender", "Single Connection", "one.cm", "-end 1000 -sender_cc_only", 190, 176.2, 490, 0, 0},
    {"sender", "Bidirectional Connection", "bidir.cm", "-sender_cc_only -end 1000", 190, 176.804, 980, 0, 0},
    {"sender", "Small 16 node incast", "incast.cm", "-sender_cc_only -end 3000", 2550, 2478.53, 7350, 811, 811},
    {"sender", "128 node incast", "incast_128.cm", "-sender_cc_only -end 30000", 23000, 21029.3, 62230, 72623,
     72623},
    {"sender", "1024 node incast", "incast_1024_100K.cm", "-sender_cc_only -end 15000 -cwnd 50", 8950, 10556.2,
     25575, 448242, 433185},
    {"sender", "3 to 1 incast with long running flow", "incast_3-1_overlapped.tm",
     "-sender_cc_only -end 1000 -cwnd 50", 220, 221.731, 614, 80, 80},
    {"sender", "outcast incast", "outcast_incast.cm", "-sender_cc_only -end 3000", 2500, 1638.08, 10290, 0, 0},
    {"sender", "Small permutation (16 nodes)", "perm_16n_16c_2MB.cm", "-sender_cc_only -end 1000 -paths 128", 210,
     194.022, 7840, 0, 0},
    {"sender", "Small permutation, INC (16 nodes)", "perm_16n_16c_2MB.cm",
     "-failed 1 -sender_cc_only -end 2000 -paths 128", 210, 238.218, 7840, 99, 99},
    {"sender", "Small permutation, single path", "perm_16n_16c_2MB.cm", "-sender_cc_only -end 2000 -paths 1", 1300,
     527.755, 7840, 279, 279},
    {"sender", "Large permutation (1024 nodes)", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 400 -paths 128", 220, 200.507, 501760, 0, 0},
    {"sender", "Large permutation, INC (1024 nodes)", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -failed 1 -end 400 -paths 128", 220, 202.266, 501760, 77, 77},
    {"sender", "Large permutation (1024 nodes), single path", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -paths 1", 1300, 889.92, 501760, 25621, 25621},
    {"sender", "Oversubscribed permutation with multipath", "perm_1024n_1024c_0u_2000000b.cm",
     "-end 2000 -paths 128 -sender_cc_only -topo topologies/leaf_spine_1024_oversub.topo", 880, 785.774, 501760,
     31934, 31934},
    {"sender", "8:1 oversubscribed permutation with multipath", "perm_1024n_1024c_0u_2000000b.cm",
     "-end 2000 -sender_cc_only -paths 128 -topo topologies/leaf_spine_1024_oversub_8-1.topo", 1760, 1443.43, 501760,
     39531, 39530},
    {"lb", "Large permutation, oblivious", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -load_balancing_algo oblivious -paths 128", 220, 212.794, 501760, 628, 628},
    {"lb", "Large permutation, oblivious, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -q 500 -load_balancing_algo oblivious -paths 128", 220, 221.895, 501760, 0, 0},
    {"lb", "Large permutation, bitmap", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -load_balancing_algo bitmap -paths 128", 220, 200.507, 501760, 1, 1},
    {"lb", "Large permutation, bitmap, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -q 500 -load_balancing_algo bitmap -paths 128", 220, 202.349, 501760, 0, 0},
    {"lb", "Large permutation, REPS, 1 SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -load_balancing_algo reps -sack_threshold 4000 -paths 128", 220, 198.246, 501760, 0,
     0},
    {"lb", "Large permutation, REPS, 1 SACK/packet, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -q 500 -load_balancing_algo reps -sack_threshold 4000 -paths 128", 220, 198.246,
     501760, 0, 0},
    {"lb", "Large permutation, REPS, 4 packets/SACK", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -load_balancing_algo reps -paths 128", 220, 208.239, 501760, 44, 44},
    {"lb", "Large permutation, mixed, 1 SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -load_balancing_algo mixed -sack_threshold 4000 -paths 128", 220, 193.184, 501760, 0,
     0},
    {"lb", "Large permutation, mixed, 1 SACK/packet, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -q 500 -load_balancing_algo mixed -sack_threshold 4000 -paths 128", 220, 193.184,
     501760, 0, 0},
    {"lb", "Large permutation, mixed, 4 packets/SACK", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 1000 -load_balancing_algo mixed -paths 128", 220, 200.507, 501760, 0, 0},
    {"rcv", "Single Connection", "one.cm", "-receiver_cc_only -end 1000", 190, 177.368, 490, 0, 0},
    {"rcv", "Bidirectional Connection", "bidir.cm", "-receiver_cc_only -end 1000", 190, 178.18, 980, 0, 0},
    {"rcv", "Small 16 node incast", "incast.cm", "-receiver_cc_only -end 3000", 2550, 2464.44, 7350, 762, 762},
    {"rcv", "128 node incast", "incast_128.cm", "-receiver_cc_only -end 30000", 23000, 20891.4, 62230, 6218, 6206},
    {"rcv", "1024 node incast", "incast_1024_100K.cm",
     "-receiver_cc_only -end 10000 -cwnd 50",
     8950, 8902.25, 25575, 33864, 12211},
    {"rcv", "3 to 1 incast with long running flow", "incast_3-1_overlapped.tm",
     "-receiver_cc_only -end 1000 -cwnd 50",
     220, 217.08, 614, 48, 48},
    {"rcv", "outcast incast", "outcast_incast.cm", "-receiver_cc_only -end 3000", 2500, 1637.76, 10290, 0, 0},
    {"rcv", "Small permutation (16 nodes)", "perm_16n_16c_2MB.cm",
     "-receiver_cc_only -end 1000 -paths 128",
     210, 195.673, 7840, 3, 3},
    {"rcv", "Small permutation, INC (16 nodes)", "perm_16n_16c_2MB.cm",
     "-receiver_cc_only -failed 1 -end 2000 -paths 128",
     210, 229.764, 7840, 284, 284},
    {"rcv", "Small permutation, single path.", "perm_16n_16c_2MB.cm",
     "-receiver_cc_only -end 2000 -paths 1",
     1300, 515.24, 7840, 7493, 7493},
    {"rcv", "Large permutation (1024 nodes)", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 400 -paths 128",
     220, 203.384, 501760, 199, 199},
    {"rcv", "Large permutation (1024 nodes), 1 INC path", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1500 -paths 128 -failed 1",
     220, 200.864, 501760, 308, 308},
    {"rcv", "Large permutation (1024 nodes), single path.", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -paths 1",
     1300, 1063, 501760, 751044, 751044},
    {"rcv", "4:1 oversubscribed permutation with multipath", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 2000 -paths 128 -topo topologies/leaf_spine_1024_oversub.topo",
     880, 749.717, 501760, 47945, 47945},
    {"rcv", "8:1 oversubscribed permutation with multipath", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 2000 -paths 128 -topo topologies/leaf_spine_1024_oversub_8-1.topo",
     1760, 1459.06, 501760, 67853, 67853},
    {"both", "Single Connection", "one.cm", "-sender_cc -receiver_cc -end 1000", 180, 177.368, 490, 0, 0},
    {"both", "Bidirectional Connection", "bidir.cm", "-end 1000 -sender_cc -receiver_cc", 190, 178.18, 980, 0, 0},
    {"both", "Small 16 node incast", "incast.cm", "-end 3000 -sender_cc -receiver_cc", 2500, 2462.92, 7350, 758, 758},
    {"both", "128 node incast", "incast_128.cm",
     "-end 30000 -sender_cc -receiver_cc",
     23000, 20892.4, 62230, 6226, 6216},
    {"both", "1024 node incast", "incast_1024_100K.cm",
     "-end 10000 -sender_cc -receiver_cc -cwnd 50",
     8950, 8802.62, 25575, 26625, 12033},
    {"both", "3 to 1 incast with long running flow", "incast_3-1_overlapped.tm",
     "-end 1000 -sender_cc -receiver_cc -cwnd 50",
     220, 217.555, 614, 49, 49},
    {"both", "outcast incast", "outcast_incast.cm", "-end 3000 -sender_cc -receiver_cc", 2500, 1634.11, 10290, 0, 0},
    {"both", "Small permutation (16 nodes)", "perm_16n_16c_2MB.cm",
     "-end 1000 -sender_cc -receiver_cc -paths 128",
     210, 196.774, 7840, 0, 0},
    {"both", "Small permutation, INC (16 nodes)", "perm_16n_16c_2MB.cm",
     "-failed 1 -sender_cc -receiver_cc -end 2000 -paths 128",
     210, 238.253, 7840, 100, 100},
    {"both", "Small permutation, single path.", "perm_16n_16c_2MB.cm",
     "-end 2000 -sender_cc -receiver_cc -paths 1",
     1300, 518.735, 7840, 270, 270},
    {"both", "Large permutation (1024 nodes)", "perm_1024n_1024c_0u_2000000b.cm",
     "-end 400 -sender_cc -receiver_cc -paths 128",
     220, 202.633, 501760, 0, 0},
    {"both", "Large permutation, INC (1024 nodes)", "perm_1024n_1024c_0u_2000000b.cm",
     "-end 1000 -failed 1 -sender_cc -receiver_cc -paths 128",
     220, 205.1, 501760, 67, 67},
    {"both", "Large permutation (1024 nodes), single path.", "perm_1024n_1024c_0u_2000000b.cm",
     "-end 3000 -sender_cc -receiver_cc -paths 1",
     1300, 1047.05, 501760, 25032, 25032},
    {"both", "Oversubscribed permutation with multipath", "perm_1024n_1024c_0u_2000000b.cm",
     "-end 2000 -paths 128 -sender_cc -receiver_cc -topo topologies/leaf_spine_1024_oversub.topo",
     880, 814.138, 501760, 31622, 31622},
    {"both", "8:1 oversubscribed permutation with multipath", "perm_1024n_1024c_0u_2000000b.cm",
     "-end 2000 -sender_cc -receiver_cc -paths 128 -topo topologies/leaf_spine_1024_oversub_8-1.topo",
     1760, 1479.39, 501760, 39251, 39251},
    {"lb-rcv", "Large permutation, oblivious", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -load_balancing_algo oblivious -paths 128",
     220, 208.781, 501760, 4887, 4887},
    {"lb-rcv", "Large permutation, bitmap", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -load_balancing_algo bitmap -paths 128",
     220, 204.105, 501760, 148, 148},
    {"lb-rcv", "Large permutation, REPS, 1SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -load_balancing_algo reps -sack_threshold 4000 -paths 128",
     220, 197.326, 501760, 0, 0},
    {"lb-rcv", "Large permutation, REPS, 4SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -load_balancing_algo reps -paths 128",
     220, 210.035, 501760, 2867, 2867},
    {"lb-rcv", "Large permutation, mixed (bitmap+REPS), 1SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -load_balancing_algo mixed -sack_threshold 4000 -paths 128",
     220, 195.608, 501760, 0, 0},
    {"lb-rcv", "Large permutation, mixed, 4SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -load_balancing_algo mixed -paths 128",
     220, 203.384, 501760, 199, 199},
    {"lb-rcv", "Large permutation, oblivious, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -q 500 -load_balancing_algo oblivious -paths 128",
     220, 225.113, 501760, 0, 0},
    {"lb-rcv", "Large permutation, bitmap, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -q 500 -load_balancing_algo bitmap -paths 128",
     220, 202.611, 501760, 0, 0},
    {"lb-rcv", "Large permutation, REPS 1 packet per SACK, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -q 500 -load_balancing_algo reps -sack_threshold 4000 -paths 128",
     220, 197.326, 501760, 0, 0},
    {"lb-rcv", "Large permutation, mixed 1 packet per SACK, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 1000 -q 500 -load_balancing_algo mixed -sack_threshold 4000 -paths 128",
     220, 195.608, 501760, 0, 0},
    {"lb-failed", "Large permutation, oblivious", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -load_balancing_algo oblivious -paths 128 -failed 8",
     220, 280.775, 501760, 2958, 2958},
    {"lb-failed", "Large permutation, oblivious, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -q 500 -load_balancing_algo oblivious -paths 128 -failed 8",
     220, 564.701, 501760, 1127, 1127},
    {"lb-failed", "Large permutation, bitmap", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -load_balancing_algo bitmap -paths 128 -failed 8",
     220, 220.269, 501760, 656, 656},
    {"lb-failed", "Large permutation, bitmap, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -q 500 -load_balancing_algo bitmap -paths 128 -failed 8",
     220, 478.668, 501760, 411, 411},
    {"lb-failed", "Large permutation, REPS, 1SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -load_balancing_algo reps -sack_threshold 4000 -paths 128 -failed 8",
     220, 206.684, 501760, 298, 298},
    {"lb-failed", "Large permutation, REPS, 1SACK/packet , large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -q 500 -load_balancing_algo reps -sack_threshold 4000 -paths 128 -failed 8",
     220, 209.872, 501760, 0, 0},
    {"lb-failed", "Large permutation, REPS, 4SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -load_balancing_algo reps -paths 128 -failed 8",
     220, 245.821, 501760, 1696, 1696},
    {"lb-failed", "Large permutation, mixed (bitmap+REPS), 1SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -load_balancing_algo mixed -sack_threshold 4000 -paths 128 -failed 8",
     220, 211.821, 501760, 246, 246},
    {"lb-failed", "Large permutation, mixed, 4SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-sender_cc_only -end 3000 -load_balancing_algo mixed -paths 128 -failed 8",
     220, 219.554, 501760, 598, 598},
    {"lb-failed-rcv", "Large permutation, oblivious", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -load_balancing_algo oblivious -paths 128 -failed 8",
     220, 224.755, 501760, 8012, 8012},
    {"lb-failed-rcv", "Large permutation, oblivious, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -q 500 -load_balancing_algo oblivious -paths 128 -failed 8",
     220, 374.592, 501760, 1773, 1773},
    {"lb-failed-rcv", "Large permutation, bitmap", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -load_balancing_algo bitmap -paths 128 -failed 8",
     220, 211.342, 501760, 1113, 1113},
    {"lb-failed-rcv", "Large permutation, bitmap, large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -q 500 -load_balancing_algo bitmap -paths 128 -failed 8",
     220, 356.935, 501760, 819, 819},
    {"lb-failed-rcv", "Large permutation, REPS, 1SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -load_balancing_algo reps -sack_threshold 4000 -paths 128 -failed 8",
     220, 207.934, 501760, 749, 749},
    {"lb-failed-rcv", "Large permutation, REPS, 1SACK/packet , large queues", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -q 500 -load_balancing_algo reps -sack_threshold 4000 -paths 128 -failed 8",
     220, 338.083, 501760, 0, 0},
    {"lb-failed-rcv", "Large permutation, REPS, 4SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -load_balancing_algo reps -paths 128 -failed 8",
     220, 218.53, 501760, 5545, 5545},
    {"lb-failed-rcv", "Large permutation, mixed (bitmap+REPS), 1SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -load_balancing_algo mixed -sack_threshold 4000 -paths 128 -failed 8",
     220, 208.384, 501760, 511, 511},
    {"lb-failed-rcv", "Large permutation, mixed, 4SACK/packet", "perm_1024n_1024c_0u_2000000b.cm",
     "-receiver_cc_only -end 3000 -load_balancing_algo mixed -paths 128 -failed 8",
     220, 209.713, 501760, 974, 974},
    /* not a plan's: the 8,192-host permutation of 1 MB at 400 Gbps, against the reference's own run of it on this
     * project's machine (no target: the reference's tail) */
    {"scale", "8192-host permutation of 1 MB at 400 Gbps", "perm_8192n_8192c_1MB.cm",
     "-topo topologies/leaf_spine_8192_400g.topo -linkspeed 400000 -sender_cc_only -end 1000 -paths 128", 35.2884,
     35.2884, 2007040, 0, 0},
};
#define N_EXPS (sizeof exps / sizeof *exps)

struct uec_result {
    double tail_us, new_pkts, rtx, nacks;
    uint32_t done, total;
};

/* Imports experiment e, with -seed `seed` added when it is not negative, into *out (the caller deletes it); 0, or 2
 * with the import's reason in why. */
static int uec_import(const struct uec_exp *e, int seed, cJSON **out, char *why, size_t whylen)
{
    char cm[256], args[512], topo[256];
    snprintf(cm, sizeof cm, "scenarios/uet-htsim/connection_matrices/%s", e->cm);
    snprintf(args, sizeof args, "%s", e->args);
    char *argv[32];
    int argc = 0;
    argv[argc++] = "-tm";
    argv[argc++] = cm;
    for (char *t = strtok(args, " "); t && argc < 30; t = strtok(NULL, " ")) {
        if (argc > 0 && strcmp(argv[argc - 1], "-topo") == 0) {
            snprintf(topo, sizeof topo, "scenarios/uet-htsim/%s", t);
            t = topo;
        }
        argv[argc++] = t;
    }
    char seed_arg[16];
    if (seed >= 0) {
        snprintf(seed_arg, sizeof seed_arg, "%d", seed);
        argv[argc++] = "-seed";
        argv[argc++] = seed_arg;
    }
    struct sbuf notes = {0};
    int rc = htsim_import_args(argc, argv, out, &notes, why, whylen);
    free(notes.p);
    return rc;
}

/* Imports experiment e (at `seed`, or the plan's when negative) and runs it; 0, or 2 with the import's reason in why
 * (a refused option). */
static int uec_run(const struct uec_exp *e, int seed, struct uec_result *res, char *why, size_t whylen)
{
    cJSON *scn_json = NULL;
    int rc = uec_import(e, seed, &scn_json, why, whylen);
    if (rc)
        return rc;
    char *text = cJSON_PrintUnformatted(scn_json);
    cJSON_Delete(scn_json);
    struct scenario scn;
    static struct run r;
    char err[SCN_ERR_MAX];
    if (scn_load_text("uet-htsim.json", text, NULL, 0, &scn, err, sizeof err) ||
        run_setup(&r, &scn, err, sizeof err)) {
        free(text);
        snprintf(why, whylen, "%s", err);
        return 3;
    }
    free(text);
    sim_run(&r.sim, scn.stop_ps);
    const struct net *n = &r.net;
    *res = (struct uec_result){0};
    for (uint32_t i = 0; i < n->n_flows; i++) {
        const struct flow *f = net_flow(n, i);
        res->total++;
        if (f->acked >= 0) {
            res->done++;
            double us = (double)f->acked / 1e6;
            res->tail_us = us > res->tail_us ? us : res->tail_us;
        }
    }
    res->rtx = (double)n->c.data_retx;
    res->new_pkts = (double)n->c.data_sent - res->rtx;
    res->nacks = (double)n->c.nacks_sent;
    run_free(&r);
    scn_free(&scn);
    return 0;
}

/* Measured a within 20 % of the reference's b, or both below 0.1 % of the new packets. */
static bool close_count(double a, double b, double new_pkts)
{
    return fabs(a - b) <= 0.2 * b || (a < 0.001 * new_pkts && b < 0.001 * new_pkts);
}

static bool run_plans(struct vresult *out, int *n, int cap, const char *only)
{
    for (size_t i = 0; i < N_EXPS; i++) {
        const struct uec_exp *e = &exps[i];
        char key[160];
        snprintf(key, sizeof key, "%s: %s", e->plan, e->name);
        if (only && strcmp(only, key) != 0)
            continue;
        struct uec_result res = {0};
        char why[SCN_ERR_MAX] = "";
        int rc = uec_run(e, -1, &res, why, sizeof why);
        if (rc == 3) {
            fprintf(stderr, "validation: %s: %s\n", e->name, why);
            return false;
        }
        if (*n >= cap)
            return false;
        struct vresult *v = &out[(*n)++];
        memset(v, 0, sizeof *v);
        bool fits = snprintf(v->check, sizeof v->check, "%s: %s", e->plan, e->name) < (int)sizeof v->check;
        static const char *const plans[][2] = {{"scale", "run here (40ccb05)"},
                                               {"sender", "validate_uec_sender.txt"},
                                               {"lb", "validate_load_balancing_snd.txt"},
                                               {"rcv", "validate_uec_rcv.txt"},
                                               {"both", "validate_uec_both.txt"},
                                               {"lb-rcv", "validate_load_balancing_rcv.txt"},
                                               {"lb-failed", "validate_load_balancing_failed_snd.txt"},
                                               {"lb-failed-rcv", "validate_load_balancing_failed_rcv.txt"}};
        const char *plan = "?";
        for (size_t k = 0; k < sizeof plans / sizeof *plans; k++)
            if (!strcmp(plans[k][0], e->plan))
                plan = plans[k][1];
        snprintf(v->reference, sizeof v->reference, "htsim_uec, %s", plan);
        snprintf(v->expected, sizeof v->expected, "tail <= %.0f us (reference %.1f us)", e->target_us * 1.05,
                 e->ref_us);
        if (rc) {
            v->informative = true;
            snprintf(v->measured, sizeof v->measured, "not run");
            snprintf(v->tolerance, sizeof v->tolerance, "-");
            /* the import's reason is a paragraph (docs/uet.md has it): the row names the option */
            const char *w = strncmp(why, "rocesim: ", 9) ? why : why + 9, *colon = strstr(w, ": not modelled");
            int opt = colon ? (int)(colon - w) : (int)strlen(w);
            fits &= snprintf(v->note, sizeof v->note, "%s: not imported: %.*s is not modelled (docs/uet.md)", e->args,
                             opt, w) < (int)sizeof v->note;
            if (!fits)
                fprintf(stderr, "validation: %s: a field of its row does not fit\n", e->name);
            continue;
        }
        snprintf(v->measured, sizeof v->measured, "%.1f us (%.2fx the reference)", res.tail_us,
                 res.tail_us / e->ref_us);
        snprintf(v->tolerance, sizeof v->tolerance, "5%% over target; counts 20%%");
        bool counts = res.new_pkts == e->ref_new && close_count(res.rtx, e->ref_rtx, e->ref_new) &&
                      close_count(res.nacks, e->ref_nacks, e->ref_new);
        char done[32] = "";
        if (res.done != res.total)
            snprintf(done, sizeof done, "; %u of %u done", res.done, res.total);
        fits &= snprintf(v->note, sizeof v->note, "%s %s: new %.0f/%.0f, resent %.0f/%.0f, NACKs %.0f/%.0f%s", e->cm,
                         e->args, res.new_pkts, e->ref_new, res.rtx, e->ref_rtx, res.nacks, e->ref_nacks, done) <
                (int)sizeof v->note;
        if (!fits)
            fprintf(stderr, "validation: %s: a field of its row does not fit\n", e->name);
        v->pass = fits && res.done == res.total && res.tail_us <= 1.05 * e->target_us && counts;
    }
    return true;
}

/*
 * Experiments whose row fails at the plan's seed, on what that seed draws (which flows one ECMP hash puts on a link,
 * which paths oblivious spraying's entropy values take) or because the reference itself misses the target: the
 * reference was run on this project's machine at more seeds (the plan's parameters with -seed N; SEEDS_FILE, one
 * line per run), rocesim runs at the same seeds, and the two compared: the median tail (nearest rank, the summary's
 * definition) within 5 % of the reference's, the mean resends and NACKs within 20 % (close_count).
 */
#define SEEDS_FILE "tests/validation/uec_seeds.txt"
#define SEEDS_MAX 128 /* runs of one experiment */

/* A run of the reference in SEEDS_FILE: its experiment (an index of exps), its seed and what it gave. */
struct seed_run {
    size_t exp;
    int seed;
    struct uec_result r;
};
static struct seed_run *seed_runs; /* SEEDS_FILE's, read once (load_seeds) */
static uint32_t n_seed_runs;

/* The experiment whose row's check is key[0..len) ("PLAN: NAME"), or N_EXPS. */
static size_t exp_named(const char *key, size_t len)
{
    for (size_t i = 0; i < N_EXPS; i++) {
        char k[160];
        int m = snprintf(k, sizeof k, "%s: %s", exps[i].plan, exps[i].name);
        if ((size_t)m == len && !strncmp(k, key, len))
            return i;
    }
    return N_EXPS;
}

/* Reads SEEDS_FILE once: lines KEY|SEED|TAIL_US|NEW|RESENT|NACKS (# begins a comment), KEY an experiment's row, at
 * most SEEDS_MAX of one; false, with the file and line in why, otherwise. */
static bool load_seeds(char *why, size_t len)
{
    if (seed_runs)
        return true;
    char *text, err[256];
    if (read_text_file(SEEDS_FILE, &text, err, sizeof err)) {
        snprintf(why, len, "%s", err);
        return false;
    }
    size_t cap = 1;
    for (const char *c = text; *c; c++)
        cap += *c == '\n';
    struct seed_run *runs = malloc(cap * sizeof *runs);
    uint32_t n = 0, per_exp[N_EXPS] = {0};
    int line = 0;
    const char *bad = NULL;
    for (char *l = text, *next; runs && !bad && l && *l; l = next) {
        line++;
        next = strchr(l, '\n');
        if (next)
            *next++ = '\0';
        if (*l == '#' || *l == '\0')
            continue;
        struct seed_run *sr = &runs[n];
        char *bar = strchr(l, '|');
        int used = 0;
        *sr = (struct seed_run){.exp = bar ? exp_named(l, (size_t)(bar - l)) : N_EXPS};
        if (!bar || sscanf(bar, "|%d|%lf|%lf|%lf|%lf%n", &sr->seed, &sr->r.tail_us, &sr->r.new_pkts, &sr->r.rtx,
                           &sr->r.nacks, &used) != 5 || bar[used] != '\0')
            bad = "expected KEY|SEED|TAIL_US|NEW|RESENT|NACKS";
        else if (sr->exp == N_EXPS)
            bad = "its KEY names no experiment of the plans";
        else if (++per_exp[sr->exp] > SEEDS_MAX)
            bad = "more runs of one experiment than SEEDS_MAX";
        else
            n++;
    }
    free(text);
    if (!runs || bad) {
        snprintf(why, len, runs ? "%s:%d: %s" : "%s: out of memory", SEEDS_FILE, line, bad);
        free(runs);
        return false;
    }
    seed_runs = runs;
    n_seed_runs = n;
    return true;
}

/* The median (nearest rank) and range of n runs' tails, and the means of their resends and NACKs. */
struct seed_stats {
    double tail, lo, hi, rtx, nacks;
};
static struct seed_stats seed_stats(const struct uec_result *r, uint32_t n)
{
    double tail[SEEDS_MAX], rtx[SEEDS_MAX], nacks[SEEDS_MAX];
    for (uint32_t i = 0; i < n; i++) {
        tail[i] = r[i].tail_us;
        rtx[i] = r[i].rtx;
        nacks[i] = r[i].nacks;
    }
    struct stats_pct t = stats_nearest_rank(tail, n); /* sorts tail: tail[0] is the least */
    return (struct seed_stats){.tail = t.p50, .lo = tail[0], .hi = t.max, .rtx = stats_nearest_rank(rtx, n).mean,
                               .nacks = stats_nearest_rank(nacks, n).mean};
}

static bool run_seeded(struct vresult *out, int *n, int cap, const char *only)
{
    char why[SCN_ERR_MAX] = "";
    if (!load_seeds(why, sizeof why)) {
        fprintf(stderr, "validation: %s\n", why);
        return false;
    }
    static struct uec_result ref[SEEDS_MAX], ours[SEEDS_MAX];
    for (size_t i = 0; i < N_EXPS; i++) {
        const struct uec_exp *e = &exps[i];
        char key[160], row[176];
        snprintf(key, sizeof key, "%s: %s", e->plan, e->name);
        snprintf(row, sizeof row, "seeds: %s", key);
        if (only && strcmp(only, row) != 0)
            continue;
        /* rocesim at each of the reference's seeds: every flow done, the same new packets */
        uint32_t runs = 0;
        bool alike = true;
        for (uint32_t k = 0; k < n_seed_runs; k++) {
            if (seed_runs[k].exp != i)
                continue;
            ref[runs] = seed_runs[k].r;
            if (uec_run(e, seed_runs[k].seed, &ours[runs], why, sizeof why)) {
                fprintf(stderr, "validation: %s, seed %d: %s\n", key, seed_runs[k].seed, why);
                return false;
            }
            alike &= ours[runs].done == ours[runs].total && ours[runs].new_pkts == ref[runs].new_pkts;
            runs++;
        }
        if (!runs)
            continue;
        if (*n >= cap)
            return false;
        double new_pkts = ref[0].new_pkts;
        struct seed_stats a = seed_stats(ours, runs), b = seed_stats(ref, runs);
        struct vresult *v = &out[(*n)++];
        memset(v, 0, sizeof *v);
        bool fits = snprintf(v->check, sizeof v->check, "%s", row) < (int)sizeof v->check;
        fits &= snprintf(v->reference, sizeof v->reference, "htsim_uec run here at %u seeds (%s)", runs,
                         SEEDS_FILE + strlen("tests/validation/")) < (int)sizeof v->reference;
        fits &= snprintf(v->expected, sizeof v->expected, "tail median %.1f us (%.0f-%.0f); resent mean %.1f", b.tail,
                         b.lo, b.hi, b.rtx) < (int)sizeof v->expected;
        fits &= snprintf(v->measured, sizeof v->measured, "tail median %.1f us (%.2fx; %.0f-%.0f); resent %.1f", a.tail,
                         a.tail / b.tail, a.lo, a.hi, a.rtx) < (int)sizeof v->measured;
        snprintf(v->tolerance, sizeof v->tolerance, "tail median 5%%; count means 20%%");
        fits &= snprintf(v->note, sizeof v->note,
                         "the same seeds, each run's -seed N added to the plan's parameters: NACKs mean %.1f/%.1f; "
                         "new %.0f in every run%s",
                         a.nacks, b.nacks, new_pkts, alike ? "" : " but not here (or a flow not done)") <
                (int)sizeof v->note;
        if (!fits)
            fprintf(stderr, "validation: %s: a field of its row does not fit\n", row);
        v->pass = fits && alike && fabs(a.tail / b.tail - 1) <= 0.05 && close_count(a.rtx, b.rtx, new_pkts) &&
                  close_count(a.nacks, b.nacks, new_pkts);
    }
    return true;
}

/* See validation.h. */
bool validation_uec_seeds_check(char *why, size_t len)
{
    return load_seeds(why, len);
}

bool validation_uec(struct vresult *out, int *n, int cap)
{
    char why[SCN_ERR_MAX];
    if (!validation_uec_seeds_check(why, sizeof why)) {
        fprintf(stderr, "validation: %s\n", why);
        return false;
    }
    return run_plans(out, n, cap, NULL) && run_seeded(out, n, cap, NULL);
}

bool validation_uec_one(const char *name, struct vresult *out, int *n, int cap)
{
    return run_plans(out, n, cap, name) && run_seeded(out, n, cap, name);
}

int validation_uec_round_trip(char *bad, size_t len)
{
    int failed = 0;
    for (size_t i = 0; i < N_EXPS; i++) {
        const struct uec_exp *e = &exps[i];
        cJSON *scn = NULL;
        char why[SCN_ERR_MAX] = "";
        struct sbuf cm = {0}, topo = {0}, cmd = {0}, un = {0};
        struct htsim_export x = {.cm = &cm, .topo = &topo, .cmdline = &cmd, .unexpressed = &un};
        bool ok = !uec_import(e, -1, &scn, why, sizeof why) && !htsim_export(scn, "rt", &x, why, sizeof why) && !un.len;
        if (!ok && !failed++)
            snprintf(bad, len, "%s: %s: %s", e->plan, e->name, un.len ? un.p : why);
        cJSON_Delete(scn);
        free(cm.p);
        free(topo.p);
        free(cmd.p);
        free(un.p);
    }
    return failed;
}
