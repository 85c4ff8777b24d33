/* tests/unit/test_comm.c - common/comm.h without MPI: a NULL communicator is one process
 * (rank 0 of 1, collectives that succeed at once), and the launchers' local rank variables
 * (gsvd_comm_env_local), which place a rank on its node's cores and GPUs where the MPI library
 * cannot split its processes by node. */
#include "gsvd_config.h"

#include <stdint.h>
#include <stdlib.h>

#include "common/comm.h"
#include "common/err.h"
#include "common/log.h"
#include "gsvd_test.h"

static const char *const all_vars[] = {
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
    "SLURM_LOCALID",
    "SLURM_NTASKS_PER_NODE",
    "MPI_LOCALRANKID",
    "MPI_LOCALNRANKS",
    "PMIX_LOCAL_RANK",
    "PMIX_LOCAL_SIZE",
};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof all_vars / sizeof all_vars[0]; i++)
        unsetenv(all_vars[i]);
}

/* gsvd_comm_env_local with the environment set to name=value pairs (NULL-terminated). */
static int local_with(const char *const *kv, int *rank, int *size)
{
    clear_env();
    for (size_t i = 0; kv[i]; i += 2)
        setenv(kv[i], kv[i + 1], 1);
    *rank = *size = -7;
    return gsvd_comm_env_local(rank, size);
}

static void test_env_local(void)
{
    int r, n;
    static const char *const none[] = {NULL};
    static const char *const ompi[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "2",
                                       "OMPI_COMM_WORLD_LOCAL_SIZE", "4", NULL};
    static const char *const slurm[] = {"SLURM_LOCALID", "1", "SLURM_NTASKS_PER_NODE", "8", NULL};
    static const char *const slurm_het[] = {"SLURM_LOCALID", "3", "SLURM_NTASKS_PER_NODE", "2(x3)",
                                            NULL};
    static const char *const hydra[] = {"MPI_LOCALRANKID", "0", "MPI_LOCALNRANKS", "2", NULL};
    static const char *const pmix[] = {"PMIX_LOCAL_RANK", "5", NULL};
    static const char *const both[] = {"SLURM_LOCALID", "1", "OMPI_COMM_WORLD_LOCAL_RANK", "3",
                                       NULL};
    static const char *const bad[] = {"OMPI_COMM_WORLD_LOCAL_RANK",
                                      "x1",
                                      "SLURM_LOCALID",
                                      "-1",
                                      "MPI_LOCALRANKID",
                                      "99999999",
                                      NULL};

    GSVD_CHECK(local_with(none, &r, &n) == 0 && r == -7 && n == -7); /* left as they are */
    GSVD_CHECK(local_with(ompi, &r, &n) == 1 && r == 2 && n == 4);
    GSVD_CHECK(local_with(slurm, &r, &n) == 1 && r == 1 && n == 8);
    GSVD_CHECK(local_with(slurm_het, &r, &n) == 1 && r == 3 && n == 4); /* size not a number */
    GSVD_CHECK(local_with(hydra, &r, &n) == 1 && r == 0 && n == 2);
    GSVD_CHECK(local_with(pmix, &r, &n) == 1 && r == 5 && n == 6);
    GSVD_CHECK(local_with(both, &r, &n) == 1 && r == 3); /* Open MPI's own first */
    GSVD_CHECK(local_with(bad, &r, &n) == 0 && r == -7);
    clear_env();
}

static void test_null(void)
{
    double d[2] = {1.5, 2.5}, recv[2] = {0};
    uint64_t u[1] = {7};
    int failed = 5;
    GSVD_CHECK(gsvd_comm_rank(NULL) == 0 && gsvd_comm_size(NULL) == 1);
    GSVD_CHECK(gsvd_comm_local_rank(NULL) == 0 && gsvd_comm_local_size(NULL) == 1);
    GSVD_CHECK_RC(gsvd_comm_sum_f64(NULL, d, 2), GSVD_OK);
    GSVD_CHECK_RC(gsvd_comm_sum_u64(NULL, u, 1), GSVD_OK);
    GSVD_CHECK(d[0] == 1.5 && d[1] == 2.5 && u[0] == 7);
    GSVD_CHECK_RC(gsvd_comm_gather(NULL, d, sizeof d, recv, sizeof recv, 0), GSVD_OK);
    GSVD_CHECK(recv[0] == 1.5 && recv[1] == 2.5);
    GSVD_CHECK_RC(gsvd_comm_gather(NULL, d, sizeof d, recv, 8, 0), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_comm_send(NULL, d, 8, 1), GSVD_EINVAL);
    GSVD_CHECK_RC(gsvd_comm_agree(NULL, GSVD_OK, &failed), GSVD_OK);
    GSVD_CHECK(failed == -1);
    GSVD_CHECK_RC(gsvd_comm_agree(NULL, GSVD_EIO, NULL), GSVD_EIO);
}

int main(void)
{
    gsvd_log_set_level(GSVD_LOG_OFF);
    test_env_local();
    test_null();
    return gsvd_test_report("test_comm");
}
