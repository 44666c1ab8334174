/*
 * profiles — the settings of every switch, switch port and host, resolved when the network is built (profiles.c).
 * Only the network's construction (build.c) calls it.
 */
#ifndef MODELS_PROFILES_H
#define MODELS_PROFILES_H

#include "models/net.h"

/*
 * Gives every switch, switch port and host its settings (sw.cfg, port.cfg, host.cfg, the distinct sets once) and
 * sets net.lossless and net.frame_max.  Returns 0, or SCN_EUSAGE with a message naming the setting's path.
 */
int net_resolve_settings(struct net *n, char *err, size_t errlen);

/* Switch w's thresholds in its unit of account (struct sw_limits), from its settings cfg. */
void net_sw_limits(const struct net *n, struct sw *w, const struct scn_switch *cfg);

#endif
