/* cli/cli.h - the pieces of the command-line layer that name internal types (cli/cli_base.h has
 * the rest, and this header includes it): input opening, output checks, the distributed run's
 * communicator, the progress sink of the analyses' parameters, LD pruning for pca --ld-prune.
 * For the commands not yet ported onto include/gensvd.h; it shrinks as they are ported.
 * Thread safety: main thread only. */
#ifndef GSVD_CLI_CLI_H
#define GSVD_CLI_CLI_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "cli/cli_base.h"
#include "cli/opts.h"
#include "common/buf.h"
#include "common/comm.h"
#include "common/gsvd_defs.h"
#include "common/progress.h"
#include "zarr/array.h"
#include "zarr/store.h"
#include "zarr/tree.h"
#include "zarr/writer.h"

/* Read one ID per line from `path` (blank lines and '#' lines skipped, '\r' stripped) into out.
 * GSVD_EIO (logged) if unreadable, GSVD_EFORMAT (logged) if it holds no ID or a NUL byte. */
GSVD_NODISCARD int gsvd_cli_read_ids(const char *path, struct gsvd_strlist *out);

/* The distributed run's communicator (common/comm.h), or NULL for one process: the library's
 * (lib/mpi.c), which main() opens with gensvd_mpi_init under an MPI launcher; borrowed. */
gsvd_comm *gsvd_cli_world(void);

/* An opened input: the store, its hierarchy and the node the user named. */
struct gsvd_cli_input {
    gsvd_store *store; /* owned */
    gsvd_tree *tree;   /* owned */
    char *node;        /* owned; path of the named node inside the store ("" = root) */
};

/* The writer parameters, `input_format` (2 or 3) being the default format. */
struct gsvd_writer_params gsvd_cli_zarr_out_params(const struct gsvd_cli_zarr_out *z,
                                                   int input_format);

/* Check a command's outputs before it reads any input (zarr/dest.h): the Zarr output `zarr`
 * (-o; NULL: none) and the plain files files[0..] (up to a NULL entry; `files` may be NULL),
 * each may exist only with `force` (plain files: `files_force`).  In a distributed run rank 0
 * checks and every rank returns the verdict (gsvd_comm_agree; call on every rank).  Errors
 * are logged; returns a gsvd_err (GSVD_EIO for an output that exists or cannot be created). */
GSVD_NODISCARD int gsvd_cli_check_outputs(const char *zarr, int force, const char *const *files,
                                          int files_force);

/* Open INPUT (path or URL; `array` from --array, may be NULL, is joined to the node).
 * Errors are logged; returns a gsvd_err. */
GSVD_NODISCARD int gsvd_cli_open_input(const char *input, const char *array,
                                       struct gsvd_cli_input *in);
void gsvd_cli_close_input(struct gsvd_cli_input *in); /* accepts a zeroed struct */

/* The sink for a library's params: draws into `bar` when on is 1, reports nothing when 0;
 * `unit` names what the reports count (a plural noun: "variants", "points"). */
struct gsvd_progress gsvd_cli_progress(struct gsvd_cli_bar *bar, const char *unit, int on);

#endif /* GSVD_CLI_CLI_H */
