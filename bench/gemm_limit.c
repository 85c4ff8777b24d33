/* bench/gemm_limit.c - the physical limit the PCA benchmark compares gensvd with: OpenBLAS on
 * every core, on a slice of the benchmark's shape, scaled to the whole matrix.
 *   pass M N C   two float32 GEMMs per pass over an M x N matrix Z with C columns:
 *                T = Z X (M x C) and Y = Z^T T (N x C)
 *   syrk M N     the float32 Gram Z^T Z (N x N, upper triangle) of an M x N matrix
 * Prints "seconds <extrapolated s> gflops <rate>".  Built by bench/bench_pca.sh:
 *   cc -O2 bench/gemm_limit.c $(pkg-config --cflags --libs openblas) -o bench/out/gemm_limit */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float *random_floats(size_t n)
{
    float *p = malloc(n * sizeof *p);
    unsigned long long x = 88172645463325252ULL;
    if (!p) {
        fprintf(stderr, "gemm_limit: out of memory (%zu floats)\n", n);
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = (float)(x >> 40) / (float)(1 << 24) - 0.5f;
    }
    return p;
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "pass") == 0 && argc != 5)) {
        fprintf(stderr, "usage: gemm_limit pass M N C | gemm_limit syrk M N\n");
        return 2;
    }
    size_t m = strtoull(argv[2], NULL, 10), n = strtoull(argv[3], NULL, 10);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    openblas_set_num_threads(cores > 0 ? (int)cores : 1);
    /* a slice of about 512 MB of Z, at least 64 rows, timed after one warm-up call */
    size_t rows = ((size_t)512 << 20) / (4 * n);
    rows = rows < 64 ? 64 : rows > m ? m : rows;
    float *z = random_floats(rows * n);
    double t = 0, flops;
    if (strcmp(argv[1], "pass") == 0) {
        size_t c = strtoull(argv[4], NULL, 10);
        float *x = random_floats(n * c), *tt = random_floats(rows * c), *y = random_floats(n * c);
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now();
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, (int)c, (int)n, 1.0f,
                        z, (int)n, x, (int)c, 0.0f, tt, (int)c);
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)c, (int)rows, 1.0f, z,
                        (int)n, tt, (int)c, 0.0f, y, (int)c);
            double dt = now() - t0;
            if (rep == 0 || dt < t)
                t = dt; /* best of the timed calls (the first warms up) */
        }
        flops = 4.0 * (double)rows * (double)n * (double)c;
        free(x);
        free(tt);
        free(y);
    } else if (strcmp(argv[1], "syrk") == 0) {
        float *g = random_floats(n * n);
        for (int rep = 0; rep < 3; rep++) {
            double t0 = now();
            cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)n, (int)rows, 1.0f, z, (int)n,
                        0.0f, g, (int)n);
            double dt = now() - t0;
            if (rep == 0 || dt < t)
                t = dt;
        }
        flops = (double)rows * (double)n * (double)n; /* n^2/2 FMAs per row */
        free(g);
    } else {
        fprintf(stderr, "gemm_limit: unknown mode %s\n", argv[1]);
        return 2;
    }
    printf("seconds %.4f gflops %.1f\n", t * (double)m / (double)rows, flops / t / 1e9);
    free(z);
    return 0;
}
