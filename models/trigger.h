/*
 * trigger — flows that start when other flows end: the scenario's top-level `triggers` and the `trigger`,
 * `on_sent` and `on_received` fields of a `traffic.flow` entry (docs/scenario.md, "triggers").
 *
 * The semantics are those of the connection matrices of the UEC reference simulator (ultraethernet/uet-htsim,
 * datacenter/connection_matrix.cpp and trigger.cpp): a flow that waits on a trigger has no start time and starts
 * at the instant the trigger fires; a flow activates a trigger when its sender has the ACK of its last byte
 * (`on_sent`, the reference's `send_done_trigger`) or its receiver holds the whole message (`on_received`,
 * `recv_done_trigger`).  A oneshot trigger fires at its first activation and starts every flow waiting on it; a
 * multishot one starts the next waiting flow, in the order of the traffic array, at each activation; a barrier
 * starts every waiting flow at its `count`-th activation.  Activations past what a trigger can use do nothing.
 *
 * The activation runs in the event of the host where the flow ended, through the flow's owner hooks (struct
 * flow_owner, net.h), and starts its targets in that event, at that instant: each target's start is an event for
 * its sender keyed by the activating host, so that it runs in the same order in any cut of the network.  Such an
 * event has no lookahead, so every host a trigger joins (the ends that activate it, the senders it starts) runs
 * in one partition: trigger_ties gives the plan those pairs (topologies/partition.h, partition_plan_tied), and a
 * trigger's state is then only ever touched by one partition's thread.
 */
#ifndef MODELS_TRIGGER_H
#define MODELS_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/scenario.h"

struct traffic;
struct flow;

enum trigger_type { TRIGGER_ONESHOT, TRIGGER_MULTISHOT, TRIGGER_BARRIER };

/* One entry of the top-level `triggers` array. */
struct trigger_decl {
    char id[SCN_NAME_MAX];
    int type;  /* enum trigger_type */
    int count; /* a barrier's activations; 0 for the others */
};

/* The top-level group's values (a flat group of the top level, after `traffic`). */
struct trigger_settings {
    int n;
    const struct trigger_decl *t; /* in the scenario's store */
};

/* A flow entry's trigger fields (traffic_flow.c): the ids it names, "" for none. */
struct flow_trig {
    char wait[SCN_NAME_MAX];     /* `trigger`: the flow starts when it fires */
    char sent[SCN_NAME_MAX];     /* `on_sent` */
    char received[SCN_NAME_MAX]; /* `on_received` */
};

/*
 * Which flows of a set can start and which triggers fire: flows with no trigger to wait on start, each started flow
 * activates what it names, a oneshot trigger starts all its waiting flows at its first activation, a multishot one
 * the next in order at each, a barrier all at its count-th, until nothing more starts.  ref[i] is flow i's trigger
 * indices (into t[0..nt)): [0] the one it waits on, [1] and [2] those it activates; -1 for none.  Out: starts[i]
 * (NULL: not wanted), got[k] the activations of trigger k and released[k] the flows it started.  The scenario's
 * check that every trigger can fire uses it, and so does an importer that leaves out what never starts.
 */
void trigger_reach(const int (*ref)[3], int nf, const struct trigger_decl *t, int nt, bool *starts, uint32_t *got,
                   uint32_t *released);

/* The scenario's triggers. */
const struct trigger_settings *trigger_settings_of(const struct scenario *s);

/* Entry e's trigger fields and its ends (host indices) when it is a flow (traffic_flow.c), else NULL. */
const struct flow_trig *traffic_flow_trig(const struct scn_traffic *e, int *src, int *dst);

/* For a flow entry's table: parses a trigger id (the characters of a traffic id) into the char[SCN_NAME_MAX] at
 * f->offset; dumps it when set. */
int trigger_parse_ref(struct setting_ctx *c, const struct setting *f, const struct cJSON *v, const char *path,
                      void *base);
void trigger_dump_ref(struct cJSON *obj, const struct setting *f, const void *base);

/*
 * Flow f of entry ti, just made (a flow with a `trigger` made by net_add_waiting_flow): joins the list of the
 * trigger it waits on, and hears its end when it activates one (its owner: trigger_flow_added takes f->owner).
 */
void trigger_flow_added(struct traffic *t, int ti, struct flow *f, const struct flow_trig *tr);
/* After every entry is set up: over MPI ranks, the flows started in one process are told to the others between
 * windows (their start, for the outputs). */
void trigger_setup_done(struct traffic *t);
void trigger_free(struct traffic *t);

/*
 * The pairs of hosts that must share a partition: for each trigger, its first host tied to each other host it
 * joins (the senders of flows with `on_sent`, the receivers of flows with `on_received`, the senders of flows
 * that wait on it).  Returns their number, *out (caller frees) NULL when none.
 */
uint32_t trigger_ties(const struct scenario *s, uint32_t (**out)[2]);

#endif
