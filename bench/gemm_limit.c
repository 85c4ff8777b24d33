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
 *   vnni8 M N    the same 2 int8 products over the same tiles at AVX-512 VNNI's rate (the i8
 *                Gram's engine on CPUs without AMX): vpdpbusd on 16 zmm accumulators with
 *                operands in registers, one core's CPU time, times the core count
 *   avx2i8 M N   the same 2 int8 products at AVX2's rate (the i8 Gram's engine on CPUs with
 *                neither): vpmaddubsw with the int16 vpaddw that keeps its sum, on 6 ymm
 *                accumulators with operands in registers, one core's CPU time, times the core
 *                count
 *   fma M N C    the FMA compute limit of a pass (two products of M x N by C columns, 4 M N C
 *                flops): float32 fused multiply-adds on 12 accumulators in registers, one
 *                thread per core all at once, each thread's rate from its own CPU time, summed
 *                (so every core's all-core clock is in it); the widest vectors the CPU has
 *                (zmm with AVX-512F, else ymm with AVX2 and FMA)
 *   fma256 M N C the same on ymm (the limit of an AVX2 host; on an AVX-512 host a proxy only)
 * Prints "seconds <extrapolated s> gflops <rate>" (amx, vnni8: GMAC/s counted as 2 flops
 * each).
 * Built by bench/bench_pca_scale.sh (the AMX modes where the compiler has -mamx-bf16 and
 * -mamx-int8):
 *   cc -O2 [-mamx-tile -mamx-bf16 -mamx-int8] bench/gemm_limit.c \
 *      $(pkg-config --cflags --libs openblas) -lpthread */
#define _GNU_SOURCE /* syscall (amx) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h>
#include <pthread.h>
#if defined(__x86_64__) && defined(__GNUC__)
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

static double thread_now(void) /* CPU time: the rate while running, on a shared machine too */
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds for `products` int8 products over the Gram tiles of the upper triangle (256 x 256,
 * padded to 32) of M rows, at `rate` MACs per second on each of `cores` cores. */
static void print_tiles(size_t m, size_t n, long cores, double products, double rate)
{
    size_t nt = (n + 255) / 256, n32 = (n + 31) / 32 * 32;
    double area = 0;
    for (size_t i = 0; i < nt; i++)
        for (size_t j = i; j < nt; j++) {
            size_t wi = n32 - 256 * i < 256 ? n32 - 256 * i : 256;
            size_t wj = n32 - 256 * j < 256 ? n32 - 256 * j : 256;
            area += (double)wi * (double)wj;
        }
    rate *= (double)(cores > 0 ? cores : 1);
    printf("seconds %.4f gflops %.1f\n", products * area * (double)m / rate, 2.0 * rate / 1e9);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* MACs per second of one core's vpdpbusd on zmm registers (16 independent accumulators). */
__attribute__((target("avx512f,avx512vnni"))) static double vnni_rate(void)
{
    __m512i acc[16], a = _mm512_set1_epi32(0x01020304), b = _mm512_set1_epi32(0x05060708);
    const long steps = 50000000;
    for (int i = 0; i < 16; i++)
        acc[i] = _mm512_set1_epi32(i);
    double t0 = thread_now();
    for (long it = 0; it < steps; it++) {
#pragma GCC unroll 16
        for (int i = 0; i < 16; i++) /* (unrolled: the accumulators stay in registers) */
            acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
        __asm__ volatile("" : "+v"(a)); /* the loop is not folded */
    }
    double t = thread_now() - t0;
    __m512i s = acc[0];
    for (int i = 1; i < 16; i++)
        s = _mm512_add_epi32(s, acc[i]);
    volatile int sink = _mm512_reduce_add_epi32(s);
    (void)sink;
    return (double)steps * 16.0 * 64.0 / t;
}

static int vnni_limit(size_t m, size_t n, long cores)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512vnni")) {
        fprintf(stderr, "gemm_limit: the CPU has no AVX-512 VNNI\n");
        return 1;
    }
    print_tiles(m, n, cores, 2.0, vnni_rate());
    return 0;
}

/* MACs per second of one core's vpmaddubsw + vpaddw on ymm registers (6 accumulators; in
 * assembly, so that each product goes through one scratch register and nothing is copied). */
__attribute__((target("avx2"))) static double avx2i8_rate(void)
{
    __m256i a0 = _mm256_set1_epi16(1), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0;
    __m256i x = _mm256_set1_epi32(0x01020304), y = _mm256_set1_epi32(0x00010001);
    const long steps = 100000000;
    double t0 = thread_now();
    for (long it = 0; it < steps; it++)
        __asm__ volatile("vpmaddubsw %[y], %[x], %%ymm10\n\tvpaddw %%ymm10, %[a0], %[a0]\n\t"
                         "vpmaddubsw %[y], %[x], %%ymm11\n\tvpaddw %%ymm11, %[a1], %[a1]\n\t"
                         "vpmaddubsw %[y], %[x], %%ymm12\n\tvpaddw %%ymm12, %[a2], %[a2]\n\t"
                         "vpmaddubsw %[y], %[x], %%ymm13\n\tvpaddw %%ymm13, %[a3], %[a3]\n\t"
                         "vpmaddubsw %[y], %[x], %%ymm14\n\tvpaddw %%ymm14, %[a4], %[a4]\n\t"
                         "vpmaddubsw %[y], %[x], %%ymm15\n\tvpaddw %%ymm15, %[a5], %[a5]"
                         : [a0] "+x"(a0), [a1] "+x"(a1), [a2] "+x"(a2), [a3] "+x"(a3),
                           [a4] "+x"(a4), [a5] "+x"(a5)
                         : [x] "x"(x), [y] "x"(y)
                         : "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
    double t = thread_now() - t0;
    __m256i s = _mm256_add_epi16(_mm256_add_epi16(_mm256_add_epi16(a0, a1), a2),
                                 _mm256_add_epi16(_mm256_add_epi16(a3, a4), a5));
    volatile int sink = _mm256_extract_epi16(s, 0);
    (void)sink;
    return (double)steps * 6.0 * 32.0 / t;
}

static int avx2i8_limit(size_t m, size_t n, long cores)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "gemm_limit: the CPU has no AVX2\n");
        return 1;
    }
    print_tiles(m, n, cores, 2.0, avx2i8_rate());
    return 0;
}

/* MACs per second of one thread's float32 FMAs on 12 accumulators in registers: zmm (wide) or
 * ymm. */
__attribute__((target("avx512f"))) static double fma512_rate(void)
{
    __m512 acc[12], a = _mm512_set1_ps(1.0001f), b = _mm512_set1_ps(0.9999f);
    const long steps = 30000000;
    for (int i = 0; i < 12; i++)
        acc[i] = _mm512_set1_ps((float)i);
    double t0 = thread_now();
    for (long it = 0; it < steps; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            acc[i] = _mm512_fmadd_ps(a, b, acc[i]);
        __asm__ volatile("" : "+v"(b));
    }
    double t = thread_now() - t0;
    __m512 s = acc[0];
    for (int i = 1; i < 12; i++)
        s = _mm512_add_ps(s, acc[i]);
    volatile float sink = _mm512_reduce_add_ps(s);
    (void)sink;
    return (double)steps * 12.0 * 16.0 / t;
}

__attribute__((target("avx2,fma"))) static double fma256_rate(void)
{
    __m256 acc[12], a = _mm256_set1_ps(1.0001f), b = _mm256_set1_ps(0.9999f);
    const long steps = 30000000;
    for (int i = 0; i < 12; i++)
        acc[i] = _mm256_set1_ps((float)i);
    double t0 = thread_now();
    for (long it = 0; it < steps; it++) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; i++)
            acc[i] = _mm256_fmadd_ps(a, b, acc[i]);
        __asm__ volatile("" : "+x"(b));
    }
    double t = thread_now() - t0;
    __m256 s = acc[0];
    for (int i = 1; i < 12; i++)
        s = _mm256_add_ps(s, acc[i]);
    volatile float sink = _mm256_cvtss_f32(s);
    (void)sink;
    return (double)steps * 12.0 * 8.0 / t;
}

struct fma_job {
    int wide;
    double rate;
};

static void *fma_thread(void *arg)
{
    struct fma_job *j = arg;
    j->rate = j->wide ? fma512_rate() : fma256_rate();
    return NULL;
}

/* The pass's FMA compute limit: every core's FMA rate at once, summed; the best of five rounds
 * (on a virtual machine a neighbour on the host core's other hardware thread can halve a round). */
static int fma_limit(size_t m, size_t n, size_t c, long cores, int force256)
{
    struct fma_job jobs[256];
    pthread_t th[256];
    int wide, k = cores < 1 ? 1 : cores > 256 ? 256 : (int)cores;
    double rate = 0;

    __builtin_cpu_init();
    wide = !force256 && __builtin_cpu_supports("avx512f");
    if (!wide && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
        fprintf(stderr, "gemm_limit: the CPU has no AVX2 and FMA\n");
        return 1;
    }
    for (int round = 0; round < 5; round++) {
        double sum = 0;
        for (int i = 0; i < k; i++) {
            jobs[i].wide = wide;
            if (pthread_create(&th[i], NULL, fma_thread, &jobs[i]) != 0) {
                fprintf(stderr, "gemm_limit: cannot start a thread\n");
                return 1;
            }
        }
        for (int i = 0; i < k; i++) {
            pthread_join(th[i], NULL);
            sum += jobs[i].rate;
        }
        if (sum > rate)
            rate = sum;
    }
    printf("seconds %.4f gflops %.1f\n", 2.0 * (double)m * (double)n * (double)c / rate,
           2.0 * rate / 1e9);
    fprintf(stderr, "gemm_limit: %d threads of %s FMAs, %.2f GMAC/s a core on average\n", k,
            wide ? "zmm" : "ymm", rate / k / 1e9);
    return 0;
}
#else
static int vnni_limit(size_t m, size_t n, long cores)
{
    (void)m;
    (void)n;
    (void)cores;
    fprintf(stderr, "gemm_limit: not an x86-64 build\n");
    return 2;
}

static int avx2i8_limit(size_t m, size_t n, long cores)
{
    return vnni_limit(m, n, cores);
}

static int fma_limit(size_t m, size_t n, size_t c, long cores, int force256)
{
    (void)m;
    (void)n;
    (void)c;
    (void)cores;
    (void)force256;
    fprintf(stderr, "gemm_limit: not an x86-64 build\n");
    return 2;
}
#endif

#if defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__AMX_INT8__)
/* MACs per second of one core's AMX unit on bf16 tile products (2x2 accumulators, operands
 * reloaded from L1 each step, as the kernel's inner loop does); 0 if the kernel refuses AMX. */
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
    double rate = amx_rate(int8);
    if (rate <= 0) {
        fprintf(stderr, "gemm_limit: the kernel refused the AMX tile permission\n");
        return 1;
    }
    print_tiles(m, n, cores, int8 ? 2.0 : 3.0, rate);
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
    int with_c = argc >= 2 && (strcmp(argv[1], "pass") == 0 || strcmp(argv[1], "fma") == 0 ||
                               strcmp(argv[1], "fma256") == 0);
    if (argc < 4 || (with_c && argc != 5)) {
        fprintf(stderr, "usage: gemm_limit pass|fma|fma256 M N C | gemm_limit "
                        "syrk|amx|amx8|vnni8|avx2i8 M N\n");
        return 2;
    }
    size_t m = strtoull(argv[2], NULL, 10), n = strtoull(argv[3], NULL, 10);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (strcmp(argv[1], "amx") == 0)
        return amx_limit(m, n, cores, 0);
    if (strcmp(argv[1], "amx8") == 0)
        return amx_limit(m, n, cores, 1);
    if (strcmp(argv[1], "avx2i8") == 0)
        return avx2i8_limit(m, n, cores);
    if (strcmp(argv[1], "vnni8") == 0)
        return vnni_limit(m, n, cores);
    if (strcmp(argv[1], "fma") == 0 || strcmp(argv[1], "fma256") == 0)
        return fma_limit(m, n, strtoull(argv[4], NULL, 10), cores, argv[1][3] == '2');
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
