/* cli/opts_input.h - the shared option descriptors of cli/opts_source.h for the commands not
 * yet ported onto include/gensvd.h, whose `geno` is the genotype scan's struct gsvd_geno_params
 * (analysis/scan/genotype.h): the same members, checked here. */
#ifndef GSVD_CLI_OPTS_INPUT_H
#define GSVD_CLI_OPTS_INPUT_H
#include "analysis/scan/genotype.h"
#include "cli/opts.h"
#include "cli/opts_source.h"

_Static_assert(offsetof(struct gsvd_geno_params, var_stop) ==
                   offsetof(struct gsvd_geno_params, var_start) + sizeof(uint64_t),
               "--variants writes var_start and var_stop as one uint64_t[2]");

#endif /* GSVD_CLI_OPTS_INPUT_H */
