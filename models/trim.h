/*
 * trim — packet trimming at switches (switch.trim, models/trim.c): a data frame a lossy queue cannot admit is cut
 * to its headers and sent on, in a queue of its own, so that its receiver learns of the loss at once.
 */
#ifndef MODELS_TRIM_H
#define MODELS_TRIM_H

#include <stdbool.h>

#include "models/net.h"

/*
 * Data frame k, which a lossy queue of switch w cannot admit, is lost.  When the switch trims, it is counted as a
 * drop for buffer (drops_by_reason.buffer) and turned into a PKT_TRIM frame of switch.trim.size bytes at
 * switch.trim.priority, which the caller admits or drops as a control frame; returns whether it did.  Without
 * trimming it returns false and the caller drops k as before.
 */
bool trim_frame(struct net *n, struct sw *w, struct pkt *k);

/* The priority switch settings c send trimmed frames on, or -1 when they do not trim (for rocesim doctor and the
 * SONiC export); *size, when not NULL, the bytes of a trimmed frame. */
int trim_priority(const struct scn_switch *c, int64_t *size);

#endif
