/*
 * signals — SIGINT/SIGTERM during a run.
 *
 * The first signal only sets a flag: the run loop sees it between slices
 * (tools/run/limits.h), stops at the current simulated time and writes its
 * outputs marked incomplete.  A second signal restores the default action and
 * re-raises it, so the process exits at once; since every output is written
 * to a temporary name and renamed, it leaves at most *.tmp.* files, never a
 * file that looks whole.
 */
#ifndef TOOLS_SIGNALS_H
#define TOOLS_SIGNALS_H

/* Installs the handlers for SIGINT and SIGTERM.  Returns 0, or -1 (errno set) when sigaction fails. */
int sig_install(void);

/* Whether sig_install has run: only then can a signal stop a run (tools/run/limits.c slices only then). */
int sig_installed(void);

/* The first signal received since sig_install (SIGINT or SIGTERM), or 0. */
int sig_received(void);

/* The exit status of a run, sweep or tune stopped by signal sig: 128 + sig (130 for SIGINT, 143 for SIGTERM). */
int sig_exit_status(int sig);

#endif
