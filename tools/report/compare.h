/*
 * compare — `rocesim compare DIR...`: the key numbers of finished runs side by
 * side (collective completion times, FCTs, drops, retransmissions, timeouts,
 * PAUSE frames, CNPs, deadlock), one column per run titled by its directory,
 * with each run's ratio to the first; a run that did not complete is flagged
 * in the table and in a note.  The labs use it to set two configurations
 * against each other.
 */
#ifndef TOOLS_COMPARE_H
#define TOOLS_COMPARE_H

/* Entry point for argv = {"rocesim", "compare", DIR...}.  Returns the exit status (2 on bad input). */
int compare_main(int argc, char **argv);

#endif
