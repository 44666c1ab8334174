/*
 * telemetry — in-band network telemetry (INT) records, kept beside the frames that carry them.
 *
 * HPCC (Li, Miao, Liu, Zhuang, Feng, Tang, Cheng, Yu, Alizadeh, Zhang, "HPCC: High Precision Congestion
 * Control", SIGCOMM 2019, section 3.2) has every switch egress a data frame leaves append (qLen, txBytes, ts, B):
 * the egress queue's length, the bytes the port has sent, the time, and the link's rate; the receiver copies
 * the hops into its ACK, and the sender computes each link's utilization
 *
 *   U_j = qLen_j / (B_j T) + txRate_j / B_j,   txRate_j = (txBytes_j - txBytes'_j) / (ts_j - ts'_j)
 *
 * from two successive records of the same hop.  B is the link's capacity, so txBytes counts what the link carries:
 * every frame's bytes and its 20 bytes of preamble and inter-frame gap (WIRE_OVERHEAD, net.h); counted without them
 * txRate / B would read 0.982 on a link busy with 1096-byte frames, and HPCC's eta of 0.95 would keep that link 96.7 %
 * busy.  (The HPCC paper's ns-3 simulator counts frame bytes, but its links send no preamble or gap: there too
 * txRate / B is the busy fraction.)  qLen is the frames' bytes queued, what a switch's queue counter holds.
 *
 * A packet is one cache line (struct pkt, net.h) that every frame
 * of every run touches, so the hops do not live in it: a frame refers to a record of a side pool by a 32-bit
 * index (pkt.tel, 0 for none).  Only flows whose congestion control asks for it (CC_F_TELEMETRY, cc.h) take
 * records; every other frame carries 0, and freeing it costs one predictable branch (pkt_free, net.h).
 *
 * Records live in chunks of a pool that grows at a new high-water mark of records in use, as the packet pool does;
 * a chunk never moves, so a record's pointer stays valid until int_put().  In a run cut into partitions
 * (sim/parallel.h) each partition takes records from a pool of its own, while switches and receivers of other
 * partitions read and write them: an id names its pool in its high bits (owner), and a record freed by another
 * partition goes back to its pool between windows (net_tel_put, telemetry.c).
 */
#ifndef MODELS_TELEMETRY_H
#define MODELS_TELEMETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"

#define INT_MAX_HOPS 5 /* HPCC's bound: the longest path of a three-tier Clos fabric */

/* The bytes the INT header takes on the wire (HPCC, section 5.1): a 2-byte header (the hop count) that the sender
 * adds, and 8 bytes per hop that each switch egress adds as it records one.  Frames grow as they cross the fabric:
 * a switch buffers and serializes a frame at the size it arrived with, plus its own hop at its egress. */
#define INT_HDR_BYTES 2
#define INT_HOP_BYTES 8

/* What one switch egress writes into a passing frame. */
struct int_hop {
    sim_time_t ts;        /* when the frame started leaving the egress */
    uint64_t tx_bytes;    /* bytes the egress port had put on the wire by then, each frame's preamble and gap
                           * included (port.tx_bytes + WIRE_OVERHEAD x port.tx_frames) */
    int64_t rate_bps;     /* the link's rate */
    uint32_t qlen;        /* bytes queued at the egress at the frame's priority, the frame excluded */
    uint32_t port;        /* the egress port's id (net.ports index), to pair records of the same hop */
};

/*
 * What a UET acknowledgement carries beyond a frame's fields (transport_uet.c): the PSN of the data frame that caused
 * it, the entropy value that frame took, and a selective acknowledgement of the 64 PSNs from sack_base on; and what
 * a UET data frame or RTS of a flow under receiver credit carries beyond them, its pull target.  It rides
 * in the same side pool as INT records, in a record whose n_hops is INT_UET, so that it crosses partitions and
 * processes as they do (exchange.c).
 */
struct uet_ack {
    uint64_t sack;        /* bit i: PSN sack_base + i has arrived */
    uint32_t sack_base;
    uint32_t acked;       /* the PSN of the data (or trimmed) frame it answers */
    uint16_t ev;          /* that frame's entropy value */
    uint8_t flags;        /* enum pkt_tflags of that frame (RTX, LAST_HOP) */
    int64_t pull;         /* on a data frame, its trimmed header or an RTS of a flow under RCCC: the sender's pull
                           * target, in quanta (rccc.c) */
};

#define INT_UET 0xff /* int_rec.n_hops of a record that holds a struct uet_ack */

struct int_rec {
    uint32_t next_free;   /* free list link (index) while the record is free */
    uint8_t n_hops;       /* hops recorded, at most INT_MAX_HOPS: further hops are not recorded; INT_UET: uet */
    union {
        struct int_hop hop[INT_MAX_HOPS];
        struct uet_ack uet;
    };
};

#define INT_CHUNK_BITS 10
#define INT_OWNER_SHIFT 22                                      /* an id: owner << INT_OWNER_SHIFT | index */
#define INT_CHUNKS ((1u << INT_OWNER_SHIFT) >> INT_CHUNK_BITS) /* 4 M records in flight per pool */

struct int_pool {
    struct int_rec **chunk; /* INT_CHUNKS pointers, those up to cap made; index 0 is never handed out */
    uint32_t owner;         /* the high bits of its ids: its partition (net_tel_ensure) */
    uint32_t cap;           /* records in the chunks made, the unused index 0 included */
    uint32_t free_head;     /* first free record's index, 0: none */
    uint32_t live, high_water;
};

void int_pool_init(struct int_pool *p, uint32_t owner);
void int_pool_free(struct int_pool *p);

static inline struct int_rec *int_rec(const struct int_pool *p, uint32_t id)
{
    uint32_t i = id & ((1u << INT_OWNER_SHIFT) - 1);
    return &p->chunk[i >> INT_CHUNK_BITS][i & ((1u << INT_CHUNK_BITS) - 1)];
}

/* A record with no hops; its index (never 0).  Ends the process through mem_oom (mem.h) when out of memory. */
uint32_t int_get(struct int_pool *p);

/* Returns record id (not 0), one of p's, to p. */
static inline void int_put(struct int_pool *p, uint32_t id)
{
    int_rec(p, id)->next_free = p->free_head;
    p->free_head = id & ((1u << INT_OWNER_SHIFT) - 1);
    p->live--;
}

/* Appends a hop to record r; false (and nothing recorded) when it already holds INT_MAX_HOPS. */
bool int_push(struct int_rec *r, const struct int_hop *h);

struct net;
struct pkt;
struct port;

/*
 * Push at egress: frame k (which carries a record: k->tel != 0; callers test that, so that other frames pay one
 * branch) starts leaving switch port p now.  Records what HPCC's INT header would, and grows the frame by
 * INT_HOP_BYTES when the hop was recorded (the network's byte counters with it: net_check_invariants).
 */
void int_push_egress(struct net *n, struct pkt *k, const struct port *p);

/* Echo in ACK: ack takes data's record (data keeps none), so that the sender sees the hops its frame crossed. */
void int_echo(struct pkt *ack, struct pkt *data);

/* The INT bytes a frame carrying record r has on the wire. */
static inline uint32_t int_wire_bytes(const struct int_rec *r) { return INT_HDR_BYTES + INT_HOP_BYTES * r->n_hops; }

#endif
