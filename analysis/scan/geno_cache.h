/* analysis/scan/geno_cache.h - for analysis/scan/genotype.c only: the blocks of a genotype scan
 * kept for the next passes, in memory up to a byte budget and beyond it in a spill file.
 *
 * A cached block is what the scan callback saw: the kept rows (2-bit packed for integer input of
 * ploidy <= 2, else int8 or float64), their centre/scale/missing values, and the per-variant
 * information and counts.  The per-variant metadata always stays in memory (29 bytes per
 * variant); the rows stay in memory while the total is within the budget and go to the spill
 * file after that.  The spill file is created in the spill directory and unlinked at once, so
 * it disappears when the process ends, however it ends (exit, failure, signal, kill -9).
 * Replays read spilled rows with pread and ask the kernel to read the next block ahead
 * (posix_fadvise WILLNEED), so the file streams while the previous block is computed on.
 * Thread safety: one handle, one thread. */
#ifndef GSVD_ANALYSIS_SCAN_GENO_CACHE_H
#define GSVD_ANALYSIS_SCAN_GENO_CACHE_H
#include <stddef.h>
#include <stdint.h>
#include "analysis/scan/genotype.h"
GSVD_EXTERN_C_BEGIN

typedef struct gsvd_gcache gsvd_gcache;

/* New empty cache: rows in memory up to mem_bytes, then in a file in spill_dir (NULL: no
 * spilling; the cache gives up when the budget is exceeded).  Returns GSVD_OK or
 * GSVD_ENOMEM; caller owns *out (gsvd_gcache_free). */
GSVD_NODISCARD int gsvd_gcache_new(uint64_t mem_bytes, const char *spill_dir, gsvd_gcache **out);
void gsvd_gcache_free(gsvd_gcache *c); /* accepts NULL */

/* Add the next block.  p2rows, when not NULL, are blk's rows already packed to 2 bits (rows x
 * gsvd_std_p2_row_bytes(n_cols)); otherwise the rows are copied as they are (i8 or f64).
 * Returns GSVD_OK (also when the cache gave up: gsvd_gcache_usable() then says 0; memory is
 * released and the scan goes on uncached), GSVD_ENOMEM for the metadata. */
GSVD_NODISCARD int gsvd_gcache_add(gsvd_gcache *c, const struct gsvd_gblock *blk,
                                   const uint8_t *p2rows, const struct gsvd_geno_info *info,
                                   const struct gsvd_geno_counts *counts);

/* 1 while the cache can still hold every block (it has not given up). */
int gsvd_gcache_usable(const gsvd_gcache *c);

/* Bytes of rows held in memory and in the spill file. */
uint64_t gsvd_gcache_mem_bytes(const gsvd_gcache *c);
uint64_t gsvd_gcache_file_bytes(const gsvd_gcache *c);

/* Keep only the blocks that lie wholly inside the variants [lo, hi), where a block's variants
 * are [base + info.first, base + info.first + info.n_variants), and renumber the kept ones from
 * new_base (info.first = variant - new_base; every kept variant is >= new_base).  The dropped
 * blocks' memory is released (their spilled rows stay in the file until the cache is freed).
 * The kept blocks are contiguous: *cov_lo, *cov_hi (borrowed) receive the variants they cover,
 * or lo, lo when none is kept.  Cannot fail. */
void gsvd_gcache_trim(gsvd_gcache *c, uint64_t base, uint64_t lo, uint64_t hi, uint64_t new_base,
                      uint64_t *cov_lo, uint64_t *cov_hi);

/* Call fn on every block in order; *counts = the blocks' counts summed.  Returns GSVD_OK, the
 * callback's error, GSVD_EIO (spill file read, logged) or GSVD_ENOMEM. */
GSVD_NODISCARD int gsvd_gcache_replay(gsvd_gcache *c, gsvd_geno_block_fn fn, void *ctx,
                                      struct gsvd_geno_counts *counts);

GSVD_EXTERN_C_END
#endif /* GSVD_ANALYSIS_SCAN_GENO_CACHE_H */
