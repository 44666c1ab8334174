/*
 * live — the live view: `rocesim run … --live [ADDR:]PORT` serves a page (tools/live/page.html, built into
 * the binary) that shows the network as the run goes, and `rocesim view DIR` replays a finished run in the
 * same page from its files.  docs/live.md is the user's side; what the page and the server exchange is its
 * last section.
 *
 * A run observer (tools/run/observer.h) builds the frames: between slices of simulated time, at most
 * LIVE_FRAME_HZ per wall-clock second, it reads the network (queues, link counters, paused and stormed
 * priorities, the deadlock found, the followed flows' congestion-control state) and hands the frame to the
 * server (tools/live/httpd.h), which streams it to the browsers on its own thread.  Reading never steers, and
 * slicing does not reorder events, so a live run's results are those of a plain run, byte for byte.
 *
 * The viewer steers the clock only: pause, resume, a step of simulated time, and the pace (simulated time per
 * wall-clock second, or as fast as it goes).  Waiting is done between slices, where nothing is half-done.
 */
#ifndef TOOLS_LIVE_H
#define TOOLS_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/run/monitor.h"
#include "tools/run/run.h"

#define LIVE_FRAME_HZ 5
#define LIVE_FLOWS_MAX 64 /* followed flows a frame carries: the first of the monitor's (rates.csv's) */

struct live;

enum live_hold { LIVE_HOLD_NONE = 0, LIVE_HOLD_START = 1, LIVE_HOLD_END = 2 };

/* Parses --live-hold's value ("start", "end" or "both") into *hold; false when it is none of them. */
bool live_parse_hold(const char *s, int *hold);

/*
 * Starts serving run r (set up, not yet executed) on `listen` ("[ADDR:]PORT") and attaches the observer
 * after mon, whose followed flows it shows; prints the URL on stderr.  NULL with a message in err when the
 * address is bad or taken.
 */
struct live *live_start(struct run *r, const struct monitor *mon, const char *listen, int hold, char *err,
                        size_t errlen);

/* After the run and its outputs: with LIVE_HOLD_END, keeps serving the final state until SIGINT/SIGTERM. */
void live_hold_end(struct live *lv);

/* Detaches the observer, sends the last frame out, stops the server and frees. */
void live_stop(struct live *lv);

/*
 * The topology the page draws, as GET /topology.json serves it for a live run of scn over its built graph g
 * (no flows followed): nodes with their tier and group, links, and the layout its topology module asks for.
 * Caller frees; *len gets its length.
 */
char *live_topology_json(const struct scenario *scn, const struct graph *g, size_t *len);

/*
 * `rocesim view DIR [--live [ADDR:]PORT]`: serves DIR's files to the page in replay mode until SIGINT or
 * SIGTERM.  0, or 2 with a message in err (DIR is no run's output directory, a bad address), 3 (I/O).
 */
int live_view(const char *dir, const char *listen, char *err, size_t errlen);

#endif
