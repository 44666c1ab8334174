/*
 * run_mpi — one run's partitions over the ranks of mpirun (`rocesim-mpi run`): the collective operations of
 * sim/parallel.h's struct sim_par_comm, over MPI_COMM_WORLD (see run.h, run_mpi_start).
 *
 * Compiled to nothing unless ROCESIM_MPI is defined (`make mpi`), as tools/explore/sweep_mpi.c is.
 */
#include "tools/run/run.h"

#ifdef ROCESIM_MPI

#include "sim/mem.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_MPI_OOM "exchanging a window with the other ranks"

static struct {
    struct sim_par_comm comm;
    int *counts, *displs, *rcounts, *rdispls;
    unsigned char *joined;
    size_t joined_cap;
    bool started;
} M;

/* An MPI call failed: the ranks cannot agree on the run any more, so all of them end. */
static void fail(const char *what)
{
    fprintf(stderr, "rocesim-mpi run: rank %u: %s failed\n", M.comm.rank, what);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

static int count_of(size_t len)
{
    if (len > INT_MAX)
        fail("a window's mail of 2 GB or more to one rank");
    return (int)len;
}

static void mpi_exchange(void *ctx, const struct sim_buf *out, struct sim_buf *in)
{
    int R = (int)M.comm.ranks;
    for (int r = 0; r < R; r++)
        M.counts[r] = count_of(out[r].len);
    if (MPI_Alltoall(M.counts, 1, MPI_INT, M.rcounts, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Alltoall");
    size_t total = 0, sent = 0;
    for (int r = 0; r < R; r++) {
        M.rdispls[r] = count_of(total);
        total += (size_t)M.rcounts[r];
        M.displs[r] = count_of(sent);
        sent += out[r].len;
    }
    /* one send buffer: the parts for each rank, one after another */
    static unsigned char *send;
    static size_t send_cap;
    if (sent > send_cap) {
        send_cap = sent * 2;
        send = mem_xrealloc(send, send_cap, RUN_MPI_OOM);
    }
    for (int r = 0; r < R; r++)
        if (out[r].len)
            memcpy(send + M.displs[r], out[r].p, out[r].len);
    if (total + 1 > M.joined_cap) {
        M.joined_cap = (total + 1) * 2;
        M.joined = mem_xrealloc(M.joined, M.joined_cap, RUN_MPI_OOM);
    }
    if (MPI_Alltoallv(send, M.counts, M.displs, MPI_BYTE, M.joined, M.rcounts, M.rdispls, MPI_BYTE,
                      MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Alltoallv");
    for (int r = 0; r < R; r++)
        in[r] = (struct sim_buf){M.joined + M.rdispls[r], (size_t)M.rcounts[r], (size_t)M.rcounts[r]};
}

static void mpi_sum(void *ctx, uint64_t *v, size_t n)
{
    if (MPI_Allreduce(MPI_IN_PLACE, v, count_of(n), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Allreduce");
}

static void mpi_max(void *ctx, uint64_t *v, size_t n)
{
    if (MPI_Allreduce(MPI_IN_PLACE, v, count_of(n), MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Allreduce");
}

static void mpi_min(void *ctx, int64_t *v, size_t n)
{
    if (MPI_Allreduce(MPI_IN_PLACE, v, count_of(n), MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Allreduce");
}

static void mpi_gather(void *ctx, const struct sim_buf *mine, struct sim_buf *all)
{
    int R = (int)M.comm.ranks, n = count_of(mine->len);
    if (MPI_Allgather(&n, 1, MPI_INT, M.rcounts, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Allgather");
    size_t total = 0;
    for (int r = 0; r < R; r++) {
        M.rdispls[r] = count_of(total);
        total += (size_t)M.rcounts[r];
    }
    *all = (struct sim_buf){mem_xmalloc(total + 1, RUN_MPI_OOM), total, total + 1};
    if (MPI_Allgatherv(mine->p, n, MPI_BYTE, all->p, M.rcounts, M.rdispls, MPI_BYTE, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        fail("MPI_Allgatherv");
}

const struct sim_par_comm *run_mpi_start(int *argc, char ***argv)
{
    if (M.started)
        return M.comm.ranks > 1 ? &M.comm : NULL;
    /* Stand-alone (no mpirun), or one run of a sweep whose ranks mpirun started: a run in one process. */
    if ((!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK")) ||
        getenv(RUN_MPI_POOL_CHILD))
        return NULL;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "rocesim-mpi run: MPI_Init failed\n");
        exit(3);
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    M.started = true;
    M.comm = (struct sim_par_comm){.rank = (uint32_t)rank, .ranks = (uint32_t)size, .exchange = mpi_exchange,
                                   .sum = mpi_sum, .max = mpi_max, .min = mpi_min, .gather = mpi_gather};
    M.counts = mem_xcalloc((size_t)size, sizeof *M.counts, RUN_MPI_OOM);
    M.displs = mem_xcalloc((size_t)size, sizeof *M.displs, RUN_MPI_OOM);
    M.rcounts = mem_xcalloc((size_t)size, sizeof *M.rcounts, RUN_MPI_OOM);
    M.rdispls = mem_xcalloc((size_t)size, sizeof *M.rdispls, RUN_MPI_OOM);
    return size > 1 ? &M.comm : NULL;
}

int run_mpi_end(int rc)
{
    if (!M.started)
        return rc;
    /* the run's status is the worst of the ranks' (a bad scenario fails on every rank alike) */
    int out = rc;
    MPI_Allreduce(&rc, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return out;
}

#else

const struct sim_par_comm *run_mpi_start(int *argc, char ***argv) { return NULL; }
int run_mpi_end(int rc) { return rc; }

#endif
