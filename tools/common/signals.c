/* signals — SIGINT/SIGTERM during a run (see signals.h). */
#include "tools/common/signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t received;
static int installed;

/* Async-signal-safe: only a sig_atomic_t store, or signal() + raise() for the second signal. */
static void on_signal(int sig)
{
    if (received) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    received = sig;
}

int sig_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* SA_RESTART: a signal during a write of the outputs must not turn into a short write or EINTR. */
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
        return -1;
    installed = 1;
    return 0;
}

int sig_installed(void) { return installed; }

int sig_received(void) { return received; }

int sig_exit_status(int sig) { return 128 + sig; }
