/* analysis/pdist/pdist_parts.h - `pdist --part I/N` and `--finalize`: the pair matrix of a job
 * array (Slurm array tasks, cloud batch tasks) without MPI.  Part I computes the bands the engine
 * gives part I of N (pdist.h, the same sharing as MPI ranks) and writes them as the
 * Zarr group OUT.gensvd-parts/part-I-of-N.zarr (square layout, local or shared filesystem);
 * `--finalize OUT` checks that all N parts are there and agree, gathers their chunks and moves
 * the whole output to OUT.  The result is byte for byte the one-process output (the recorded
 * command line aside).  Thread safety: one caller at a time per OUT. */
#ifndef GSVD_ANALYSIS_PDIST_PDIST_PARTS_H
#define GSVD_ANALYSIS_PDIST_PDIST_PARTS_H
#include <stddef.h>

#include "common/buf.h"
#include "common/gsvd_defs.h"
GSVD_EXTERN_C_BEGIN

/* OUT.gensvd-parts, and part I's path inside it (new strings, caller frees; NULL: no memory). */
char *gsvd_pdist_parts_dir(const char *out);
char *gsvd_pdist_parts_path(const char *out, size_t part, size_t n_parts);

/* Create OUT.gensvd-parts if it is not there (parts may race: EEXIST is fine).  GSVD_OK,
 * GSVD_ENOMEM or GSVD_EIO (logged). */
GSVD_NODISCARD int gsvd_pdist_parts_prepare(const char *out);

/* Remove OUT.gensvd-parts and everything in it (a distributed run that failed, or a stale
 * directory before a distributed run starts).  GSVD_OK (also when there is none), GSVD_EIO
 * or GSVD_ENOMEM (logged). */
GSVD_NODISCARD int gsvd_pdist_parts_discard(const char *out);

/* The number N of OUT's parts, all of which are there.  GSVD_OK; GSVD_ENOTFOUND (no parts),
 * GSVD_EINCONSIST (parts of different splits, or some missing: named), GSVD_ENOMEM; logged. */
GSVD_NODISCARD int gsvd_pdist_parts_find(const char *out, size_t *n_parts);

/* 1 if a finished part of OUT holds the array `name` (e.g. "pair_i": parts of a pair list,
 * analysis/pdist/king_parts.h), 0 if none does (or there are no parts), GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_pdist_parts_have_array(const char *out, const char *name);

/* Drop the "command" member's line from a part's root attributes (the command line differs
 * between parts); the text is the writer's, one member per line. */
void gsvd_pdist_parts_drop_command(struct gsvd_buf *b);

/* Gather the parts into OUT.  GSVD_OK; GSVD_ENOTFOUND (no parts), GSVD_EINCONSIST (a part
 * missing, parts of different runs or options, a chunk missing or written twice), GSVD_EIO
 * (OUT exists and !force, or a move failed), GSVD_ENOMEM; each logged with what to do.  Running it
 * again after a failure continues where it stopped. */
GSVD_NODISCARD int gsvd_pdist_parts_finalize(const char *out, int force);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_PDIST_PDIST_PARTS_H */
