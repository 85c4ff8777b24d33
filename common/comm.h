/* common/comm.h - the communicator of a distributed run: rank, size and the few collective
 * operations the analyses need, behind a vtable, so that no layer but mpi/ includes mpi.h and
 * a build without MPI is unchanged.  A NULL communicator is one process (rank 0 of 1): every
 * operation is then a no-op that succeeds, which is how single-process runs call them.
 *
 * Collectives must be called by every rank in the same order.  A rank that fails between two
 * collectives still calls the next gsvd_comm_agree with its error, so the others learn of it
 * instead of waiting forever; gsvd_comm_agree is the first collective after every step that
 * can fail on one rank only (reading, decoding, allocating).
 * Thread safety: a communicator is used by one thread at a time (MPI_THREAD_FUNNELED). */
#ifndef GSVD_COMMON_COMM_H
#define GSVD_COMMON_COMM_H
#include <stddef.h>
#include <stdint.h>

#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_comm gsvd_comm;

struct gsvd_comm_ops {
    const char *name; /* "mpi" */
    /* buf[0..n) = sum over ranks, in place, on every rank (float64: see xsum.h for exactness) */
    int (*sum_f64)(gsvd_comm *c, double *buf, size_t n);
    int (*sum_u64)(gsvd_comm *c, uint64_t *buf, size_t n);
    /* buf[0..n) = max over ranks, in place, on every rank */
    int (*max_f64)(gsvd_comm *c, double *buf, size_t n);
    /* every rank's rc -> the lowest failing rank and its rc (or -1 and GSVD_OK) on every rank */
    int (*agree)(gsvd_comm *c, int rc, int *failed_rank, int *failed_rc);
    int (*bcast)(gsvd_comm *c, void *buf, size_t bytes, int root);
    /* root receives the ranks' `bytes` (which may differ per rank) concatenated in rank order
     * into recv (root_cap bytes); other ranks pass recv NULL */
    int (*gather)(gsvd_comm *c, const void *send, size_t bytes, void *recv, size_t root_cap,
                  int root);
    int (*barrier)(gsvd_comm *c);
    void (*destroy)(gsvd_comm *c); /* finalizes */
    /* point to point: bytes to rank `peer` / from rank `peer`, in order */
    int (*send)(gsvd_comm *c, const void *buf, size_t bytes, int peer);
    int (*recv)(gsvd_comm *c, void *buf, size_t bytes, int peer);
    /* end every process of the run now with exit status `code` (never returns) */
    void (*abort)(gsvd_comm *c, int code);
};

struct gsvd_comm {
    const struct gsvd_comm_ops *ops;
    int rank, size;     /* this process, and how many there are */
    int local_rank;     /* rank among the processes of this node (picks a GPU) */
    int local_size;     /* processes on this node (shares its cores) */
    int failure_agreed; /* an agreement reported a failure: every rank has heard of one */
};

/* Rank and size of c; NULL: 0 and 1. */
int gsvd_comm_rank(const gsvd_comm *c);
int gsvd_comm_size(const gsvd_comm *c);
int gsvd_comm_local_rank(const gsvd_comm *c);
int gsvd_comm_local_size(const gsvd_comm *c);

/* This process's rank among those of its node and their count, as the launcher's environment
 * states them: Open MPI (OMPI_COMM_WORLD_LOCAL_RANK, _LOCAL_SIZE), Slurm (SLURM_LOCALID,
 * SLURM_NTASKS_PER_NODE when it is a plain number), MPICH's Hydra (MPI_LOCALRANKID,
 * MPI_LOCALNRANKS), PMIx (PMIX_LOCAL_RANK, PMIX_LOCAL_SIZE), checked in that order; a size the
 * environment does not give is *local_rank + 1.  Returns 1 and sets both, or 0 (both left as
 * they are) when no launcher names a local rank (or its value is not a number from 0 to
 * 2^20).  For when the MPI library cannot split its processes by node (MPI_COMM_TYPE_SHARED),
 * which mpi/comm_mpi.c asks first.  Reads the environment: call before threads start. */
int gsvd_comm_env_local(int *local_rank, int *local_size);

/* The collectives (see struct gsvd_comm_ops).  They return GSVD_OK, or GSVD_EIO for a failed
 * MPI call (logged).  With c NULL they succeed at once (sum, max and bcast leave buf as it is;
 * gather copies send to recv, GSVD_EINVAL if it does not fit). */
GSVD_NODISCARD int gsvd_comm_sum_f64(gsvd_comm *c, double *buf, size_t n);
GSVD_NODISCARD int gsvd_comm_sum_u64(gsvd_comm *c, uint64_t *buf, size_t n);
GSVD_NODISCARD int gsvd_comm_max_f64(gsvd_comm *c, double *buf, size_t n);
GSVD_NODISCARD int gsvd_comm_bcast(gsvd_comm *c, void *buf, size_t bytes, int root);
GSVD_NODISCARD int gsvd_comm_gather(gsvd_comm *c, const void *send, size_t bytes, void *recv,
                                    size_t root_cap, int root);
GSVD_NODISCARD int gsvd_comm_barrier(gsvd_comm *c);
/* Point to point, matched in order between two ranks; with c NULL (no peer): GSVD_EINVAL. */
GSVD_NODISCARD int gsvd_comm_send(gsvd_comm *c, const void *buf, size_t bytes, int peer);
GSVD_NODISCARD int gsvd_comm_recv(gsvd_comm *c, void *buf, size_t bytes, int peer);
/* End every process of the run with exit status code: for a failure found where the other
 * ranks cannot be reached by gsvd_comm_agree (they wait in a send or receive).  The caller
 * logs the cause first.  With c NULL it returns (the caller then exits as usual). */
void gsvd_comm_abort(gsvd_comm *c, int code);

/* Agree on success: every rank passes its own rc.  Returns GSVD_OK when every rank succeeded;
 * otherwise the lowest failing rank's code on that rank, and GSVD_EPEER on the others, which
 * log once that rank `failed_rank` failed (with its code's name), so that each process exits
 * with its own message and the failing one's is the cause.  A rank passing GSVD_EPEER (it
 * learnt of a failure at an earlier agreement) is not a cause: the lowest rank that failed
 * otherwise is, and a rank that passes GSVD_EPEER logs nothing again, so agreeing twice on one
 * failure names its cause once.  *failed_rank (may be NULL) is the failing rank or -1. */
GSVD_NODISCARD int gsvd_comm_agree(gsvd_comm *c, int rc, int *failed_rank);

void gsvd_comm_destroy(gsvd_comm *c); /* accepts NULL */

GSVD_EXTERN_C_END
#endif /* GSVD_COMMON_COMM_H */
