/*
 * show — `rocesim show DIR interfaces counters | pfc counters | queue counters [--node NAME]`: a finished run's
 * counters.csv (monitor.counters) as the tables of SONiC's `show interfaces counters` (portstat), `show pfc
 * counters` (pfcstat) and `show queue counters` (queuestat), with their column names and layout (SONiC's
 * Command Reference and sonic-utilities' scripts), so that an operator reads a simulated fabric as a real one.
 * A column rocesim has no counter for is N/A; docs/outputs.md, "rocesim show", gives each column's source.
 */
#ifndef TOOLS_SHOW_H
#define TOOLS_SHOW_H

/* Entry point for argv = {"rocesim", "show", DIR, WHAT, "counters", ...}.  Returns the exit status: 0, 2 on bad
 * usage or a run without counters.csv (or a counters.csv that is not rocesim's), 3 when it cannot be read. */
int show_main(int argc, char **argv);

#endif
