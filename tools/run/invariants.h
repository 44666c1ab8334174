/*
 * invariants — the checks a finished run must pass, beyond the ones
 * net_check_invariants makes at any time.
 *
 * When a run stops because all traffic finished, the last ACK has reached its
 * sender, but frames of other kinds may still be on their way: CNPs, ACKs that
 * an ack_every > 1 receiver sent earlier on another ECMP path, PAUSE/RESUME
 * frames.  They carry no data and the run does not wait for them.  So the rule
 * is: no data frame anywhere, and every byte still held by a switch belongs to
 * such a control frame queued there (the counters say how many; see
 * docs/RELIABILITY.md).
 */
#ifndef TOOLS_INVARIANTS_H
#define TOOLS_INVARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include "tools/run/run.h"

/* What is left in the network at the end of a run. */
struct inv_leftover {
    uint64_t data_frames;     /* data frames queued at any port */
    uint64_t ctrl_frames;     /* ACK, NACK, CNP frames queued at any port */
    int64_t ctrl_bytes_sw;    /* bytes of those control frames held in switch buffers */
    uint32_t paused_queues;   /* (egress port, priority) pairs paused when the run ended */
};

/* Counts what is left in r's network (queues and pause state) right now. */
struct inv_leftover inv_leftover(const struct run *r);

/*
 * The end-of-run checks: net_check_invariants, and, when r->finished,
 * conservation with nothing in flight, no data frame queued anywhere and
 * switch buffers holding control frames only.  Returns 0, or -1 with a
 * description in err.
 */
int inv_check_end(const struct run *r, char *err, size_t errlen);

#endif
