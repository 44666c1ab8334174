/*
 * sweep_mpi — the runs of the pool (sweep, tune) spread over MPI ranks: struct pool_comm (see runpool.h).
 *
 * Compiled to nothing unless ROCESIM_MPI is defined (`make mpi` builds
 * ./rocesim-mpi with mpicc and -DROCESIM_MPI), so the plain build needs no MPI.
 *
 * MPI carries little here: rank 0 broadcasts the list of runs still to do,
 * every rank runs its round-robin share as local child processes, and rank 0
 * gathers each rank's finished runs (status, summary.json text, stderr tail)
 * as one JSON text.  Counts go first, so that buffers are sized exactly.
 */
#ifdef ROCESIM_MPI

#include "tools/explore/runpool.h"
#include "sim/mem.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pool_comm comm;
static bool started;

/* Every rank's rc becomes the largest of them.  Returns 0 or -1. */
static int mpi_agree(int *rc)
{
    int in = *rc, out = 0;
    if (MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    *rc = out;
    return 0;
}

/* Rank 0's buffer to every rank.  Returns 0 or -1 (a buffer of 2 GB or more cannot be sent in one message). */
static int mpi_bcast(char **buf, size_t *len)
{
    long long n = comm.rank == 0 ? (long long)*len : 0;
    if (MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS || n < 0 || n > INT_MAX)
        return -1;
    if (comm.rank != 0) {
        *buf = mem_xmalloc((size_t)n + 1, POOL_OOM);
        (*buf)[n] = '\0';
        *len = (size_t)n;
    }
    return MPI_Bcast(*buf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

/* Every rank's buffer to rank 0 (all[r], lens[r], NUL-terminated).  Returns 0 or -1. */
static int mpi_gather(const char *mine, size_t len, char ***all, size_t **lens)
{
    int n = len > INT_MAX ? -1 : (int)len;
    int *counts = comm.rank == 0 ? mem_xcalloc((size_t)comm.size, sizeof *counts, POOL_OOM) : NULL;
    if (MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        free(counts);
        return -1;
    }
    int *displs = NULL;
    char *joined = NULL;
    int bad = 0;
    if (comm.rank == 0) {
        displs = mem_xcalloc((size_t)comm.size, sizeof *displs, POOL_OOM);
        long long total = 0;
        for (int r = 0; r < comm.size; r++) {
            bad |= counts[r] < 0;
            displs[r] = (int)total;
            total += counts[r] < 0 ? 0 : counts[r];
        }
        bad |= total > INT_MAX;
        joined = mem_xmalloc(bad ? 1 : (size_t)total + 1, POOL_OOM);
    }
    /* Every rank must take part in the collective even when rank 0 will discard the result. */
    int rc = MPI_Gatherv(mine, n < 0 ? 0 : n, MPI_CHAR, joined, counts, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (comm.rank == 0 && rc == MPI_SUCCESS && !bad) {
        *all = mem_xcalloc((size_t)comm.size, sizeof **all, POOL_OOM);
        *lens = mem_xcalloc((size_t)comm.size, sizeof **lens, POOL_OOM);
        for (int r = 0; r < comm.size; r++) {
            (*all)[r] = mem_xmalloc((size_t)counts[r] + 1, POOL_OOM);
            memcpy((*all)[r], joined + displs[r], (size_t)counts[r]);
            (*all)[r][counts[r]] = '\0';
            (*lens)[r] = (size_t)counts[r];
        }
    }
    free(joined);
    free(displs);
    free(counts);
    return rc == MPI_SUCCESS && !bad ? 0 : -1;
}

/* Ends MPI; called once by every rank at the end of the sweep or tune. */
static void mpi_finish(void)
{
    MPI_Finalize();
}

/* See runpool.h. */
const struct pool_comm *pool_mpi_init(int *argc, char ***argv)
{
    if (started)
        return &comm;
    /* Stand-alone (no mpirun): a plain local sweep, without MPI's start-up cost or its daemons. */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK"))
        return NULL;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        /* argv[1] is the command ("sweep", "tune"), the program name in messages. */
        fprintf(stderr, "rocesim %s: MPI_Init failed\n", *argc > 1 ? (*argv)[1] : "sweep");
        exit(3);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &comm.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &comm.size);
    /* Ranks sharing a machine share its cores: each defaults to its part of them. */
    MPI_Comm local;
    comm.local_size = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
        MPI_Comm_size(local, &comm.local_size);
        MPI_Comm_free(&local);
    }
    comm.agree = mpi_agree;
    comm.bcast = mpi_bcast;
    comm.gather = mpi_gather;
    comm.finish = mpi_finish;
    started = true;
    return &comm;
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int sweep_mpi_unused;
#endif
