/* bench/gemm_limit.c - the physical limit the PCA benchmark compares gensvd with: OpenBLAS on
 * every core, on a slice of the benchmark's shape, scaled to the whole matrix.
 *   pass M N C   two float32 GEMMs per pass over an M x N matrix Z with C columns:
 *                T = Z X (M x C) and Y = Z^T T (N x C)
 *   syrk M N     the float32 Gram Z^T Z (N x N, upper triangle) of an M x N matrix
 *   amx M N      the same Gram as pca --gram-kernel amx computes it: 3 bf16 products (hi'hi,
 *                hi'lo, lo'hi) over the 256 x 256 tiles of the upper triangle (whole squares),
 *                at the AMX unit's rate: tile products on tiles already in registers and L1
 *                (one core's CPU time, times the core count); operand traffic not counted
 *   amx8 M N     the Gram as pca --gram-kernel i8 computes it: 2 int8 products (the weights'
 *                two digits) over the same tiles, at the unit's int8 rate measured the same way
 *                (random bytes: the unit is a little slower on them than on constants)
 * Prints "seconds <extrapolated s> gflops <rate>" (amx: GMAC/s counted as 2 flops each).
 * Built by bench/bench_pca_scale.sh (the AMX modes where the compiler has -mamx-bf16 and
 * -mamx-int8):
 *   cc -O2 [-mamx-tile -mamx-bf16 -mamx-int8] bench/gemm_limit.c \
 *      $(pkg-config --cflags --libs openblas) */
#define _GNU_SOURCE /* syscall (amx) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__AMX_INT8__)
#include <immintrin.h>
#include <stdint.h>
#include <sys/syscall.h>
#endif

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

#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__AMX_INT8__)
/* MACs per second of one core's AMX unit on bf16 tile products (2x2 accumulators, operands
 * reloaded from L1 each step, as the kernel's inner loop does); 0 if the kernel refuses AMX. */
static double thread_now(void) /* CPU time: the rate while running, on a shared machine too */
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double amx_rate(int int8)
{
    struct {
        uint8_t palette, start, reserved[14];
        uint16_t colsb[16];
        uint8_t rows[16];
    } cfg;
    static uint16_t a[2][16 * 32], b[2][16 * 32];
    const long steps = 2000000;

    if (syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */) != 0)
        return 0;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int i = 0; i < 8; i++) {
        cfg.rows[i] = 16;
        cfg.colsb[i] = 64;
    }
    unsigned long long x = 88172645463325252ULL;
    for (int i = 0; i < 16 * 32; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* bf16 1.0, or random bytes for int8 */
        a[0][i] = a[1][i] = b[0][i] = b[1][i] = int8 ? (uint16_t)(x >> 40) : 0x3f80;
    }
    _tile_loadconfig(&cfg);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    double t0 = thread_now();
    for (long it = 0; it < steps; it++) {
        _tile_loadd(4, a[0], 64);
        _tile_loadd(5, a[1], 64);
        _tile_loadd(6, b[0], 64);
        _tile_loadd(7, b[1], 64);
        if (int8) {
            _tile_dpbuud(0, 4, 6);
            _tile_dpbuud(1, 4, 7);
            _tile_dpbuud(2, 5, 6);
            _tile_dpbuud(3, 5, 7);
        } else {
            _tile_dpbf16ps(0, 4, 6);
            _tile_dpbf16ps(1, 4, 7);
            _tile_dpbf16ps(2, 5, 6);
            _tile_dpbf16ps(3, 5, 7);
        }
    }
    double t = thread_now() - t0;
    _tile_release();
    return (double)steps * 4.0 * 16 * 16 * (int8 ? 64 : 32) / t;
}

static int amx_limit(size_t m, size_t n, long cores, int int8)
{
    size_t nt = (n + 255) / 256, n32 = (n + 31) / 32 * 32;
    double rate = amx_rate(int8), area = 0;
    if (rate <= 0) {
        fprintf(stderr, "gemm_limit: the kernel refused the AMX tile permission\n");
        return 1;
    }
    for (size_t i = 0; i < nt; i++) /* tiles of the upper triangle, padded to 32 */
        for (size_t j = i; j < nt; j++) {
            size_t wi = n32 - 256 * i < 256 ? n32 - 256 * i : 256;
            size_t wj = n32 - 256 * j < 256 ? n32 - 256 * j : 256;
            area += (double)wi * (double)wj;
        }
    rate *= (double)(cores > 0 ? cores : 1);
    printf("seconds %.4f gflops %.1f\n", (int8 ? 2.0 : 3.0) * area * (double)m / rate,
           2.0 * rate / 1e9);
    return 0;
}
#else
static int amx_limit(size_t m, size_t n, long cores, int int8)
{
    (void)int8;
    (void)m;
    (void)n;
    (void)cores;
    fprintf(stderr, "gemm_limit: built without AMX (cc -mamx-tile -mamx-bf16 -mamx-int8)\n");
    return 2;
}
#endif

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "pass") == 0 && argc != 5)) {
        fprintf(stderr, "usage: gemm_limit pass M N C | gemm_limit syrk|amx|amx8 M N\n");
        return 2;
    }
    size_t m = strtoull(argv[2], NULL, 10), n = strtoull(argv[3], NULL, 10);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (strcmp(argv[1], "amx") == 0)
        return amx_limit(m, n, cores, 0);
    if (strcmp(argv[1], "amx8") == 0)
        return amx_limit(m, n, cores, 1);
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
