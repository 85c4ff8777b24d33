/* bench/gemm_limit_cuda.cu - the limits the GPU benchmark compares gensvd's CUDA backend with,
 * measured on the device in the same run (scripts/gpu-check.sh): cuBLAS on the shapes the
 * backend uses (gpu/pca_cuda.c), on data already on the device, timed with CUDA events.
 *   info           the device, its driver and the CUDA runtime (one "key<TAB>value" per line)
 *   pass M N C     the two float32 GEMMs of a pass over an M x N matrix with C columns, in the
 *                  backend's row groups (T = Z X, Y = Z^T T), default math (no TF32, as the
 *                  backend sets it)
 *   ssyrk M N      the float32 Gram Z^T Z of an M x N matrix, syrk per row group (exact, N up
 *                  to 16,384); dsyrk M N: the float64 one (the backend's path above that)
 *   sgemm M N K    one float32 GEMM (M x K) (K x N): the device's float32 rate on a large shape
 *   popc           64-bit popcounts per second (pdist's bit-plane kernel is bound by them)
 *   h2d MIB        host-to-device copies from pinned memory, MIB MiB per copy
 * A slice of the matrix (a few row groups) is timed and scaled to M rows, as bench/gemm_limit.c
 * does on the CPU.  Prints one line: MODE<TAB>SHAPE<TAB>seconds<TAB>rate<TAB>unit.  Exit 0, 1 on
 * a CUDA or cuBLAS error (named on stderr), 2 on a usage error.
 * Built by scripts/gpu-bundle.sh: nvcc -O2 bench/gemm_limit_cuda.cu -lcublas */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "gemm_limit_cuda: %s: %s\n", #call, cudaGetErrorString(e_));           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CB(call)                                                                                   \
    do {                                                                                           \
        cublasStatus_t s_ = (call);                                                                \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                         \
            fprintf(stderr, "gemm_limit_cuda: %s: %s\n", #call, cublasGetStatusString(s_));        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* rows per group as gpu/pca_cuda.c's group_rows: ~256 MiB of float32, 256..8192 */
static size_t group_rows(size_t n)
{
    size_t g = ((size_t)256 << 20) / (4 * (n ? n : 1));
    return g < 256 ? 256 : g > 8192 ? 8192 : g;
}

static size_t arg(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || v == 0 || v > (1ull << 40)) {
        fprintf(stderr, "gemm_limit_cuda: bad size '%s'\n", s);
        exit(2);
    }
    return (size_t)v;
}

__global__ void k_fill(float *p, size_t count, uint32_t seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) /* small integers: the values do not change the GEMM's speed */
        p[i] = (float)((uint32_t)(i * 2654435761u + seed) % 5u) - 2.0f;
}

__global__ void k_fill_d(double *p, size_t count)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        p[i] = (double)((uint32_t)(i * 2654435761u) % 5u) - 2.0;
}

static float *dev_f32(size_t count, uint32_t seed)
{
    float *p = NULL;
    CK(cudaMalloc((void **)&p, count * sizeof *p));
    k_fill<<<(unsigned)((count + 255) / 256), 256>>>(p, count, seed);
    CK(cudaGetLastError());
    return p;
}

static double *dev_f64(size_t count)
{
    double *p = NULL;
    CK(cudaMalloc((void **)&p, count * sizeof *p));
    k_fill_d<<<(unsigned)((count + 255) / 256), 256>>>(p, count);
    CK(cudaGetLastError());
    return p;
}

/* popcounts of register values, 4 independent chains per thread; the sum is written so that
 * the compiler keeps the work */
__global__ void k_popc(uint64_t seed, int iters, unsigned long long *sink)
{
    uint64_t a = seed ^ threadIdx.x, b = a * 3 + 1, c = a * 5 + 7, d = a * 9 + 11;
    uint32_t s = 0;
    for (int i = 0; i < iters; i++) {
        s += __popcll(a) + __popcll(b) + __popcll(c) + __popcll(d);
        a += 0x9e3779b97f4a7c15ull;
        b ^= a;
        c += b;
        d ^= c;
    }
    if (s == 0xffffffffu)
        *sink = s;
}

struct timer {
    cudaEvent_t t0, t1;
    timer()
    {
        CK(cudaEventCreate(&t0));
        CK(cudaEventCreate(&t1));
    }
    void start()
    {
        CK(cudaEventRecord(t0));
    }
    double stop() /* seconds */
    {
        float ms = 0;
        CK(cudaEventRecord(t1));
        CK(cudaEventSynchronize(t1));
        CK(cudaEventElapsedTime(&ms, t0, t1));
        return ms * 1e-3;
    }
};

static void info(void)
{
    int dev = 0, rt = 0, drv = 0, count = 0;
    cudaDeviceProp p;
    size_t free_b = 0, total_b = 0;

    CK(cudaRuntimeGetVersion(&rt));
    printf("cuda_runtime\t%d.%d\n", rt / 1000, rt % 1000 / 10);
    CK(cudaDriverGetVersion(&drv)); /* 0 without a driver */
    printf("cuda_driver_api\t%d.%d\n", drv / 1000, drv % 1000 / 10);
    fflush(stdout);
    CK(cudaGetDeviceCount(&count));
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&p, dev));
    CK(cudaMemGetInfo(&free_b, &total_b));
    printf("device_count\t%d\n", count);
    printf("device\t%s\n", p.name);
    printf("compute_capability\t%d.%d\n", p.major, p.minor);
    printf("multiprocessors\t%d\n", p.multiProcessorCount);
    printf("memory_gib\t%.2f\n", (double)total_b / 1073741824.0);
    printf("memory_free_gib\t%.2f\n", (double)free_b / 1073741824.0);
    printf("l2_mib\t%.1f\n", p.l2CacheSize / 1048576.0);
}

/* the pass's two GEMMs per group, as flush_pass in gpu/pca_cuda.c */
static void pass(size_t m, size_t n, size_t c, cublasHandle_t h)
{
    size_t g = group_rows(n), groups = m / g ? m / g : 1, slice = groups < 4 ? groups : 4;
    float *z = dev_f32(g * n, 1), *x = dev_f32(n * c, 2), *t = dev_f32(g * c, 3);
    float *y = dev_f32(n * c, 4);
    const float one = 1, zero = 0;
    timer tm;
    double s;

    for (int rep = 0; rep < 2; rep++) { /* the first is the warm-up */
        tm.start();
        for (size_t q = 0; q < slice; q++) {
            CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)c, (int)g, (int)n, &one, x, (int)c, z,
                           (int)n, &zero, t, (int)c));
            CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, (int)c, (int)n, (int)g, &one, t, (int)c, z,
                           (int)n, &zero, y, (int)c));
        }
        s = tm.stop();
    }
    s *= (double)m / (double)(slice * g);
    printf("pass\t%zux%zu c %zu\t%.4f\t%.2f\tTFLOP/s\n", m, n, c, s,
           4.0 * (double)m * (double)n * (double)c / s / 1e12);
    cudaFree(z), cudaFree(x), cudaFree(t), cudaFree(y);
}

static void syrk(size_t m, size_t n, int f64, cublasHandle_t h)
{
    size_t g = group_rows(n), groups = m / g ? m / g : 1, slice = groups < 4 ? groups : 4;
    timer tm;
    double s;

    if (!f64) {
        float *z = dev_f32(g * n, 1), *gr = dev_f32(n * n, 2);
        const float one = 1, zero = 0;
        for (int rep = 0; rep < 2; rep++) {
            tm.start();
            for (size_t q = 0; q < slice; q++)
                CB(cublasSsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, (int)n, (int)g, &one, z,
                               (int)n, &zero, gr, (int)n));
            s = tm.stop();
        }
        cudaFree(z), cudaFree(gr);
    } else {
        double *z = dev_f64(g * n), *gr = dev_f64(n * n);
        const double one = 1;
        for (int rep = 0; rep < 2; rep++) {
            tm.start();
            for (size_t q = 0; q < slice; q++)
                CB(cublasDsyrk(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, (int)n, (int)g, &one, z,
                               (int)n, &one, gr, (int)n));
            s = tm.stop();
        }
        cudaFree(z), cudaFree(gr);
    }
    s *= (double)m / (double)(slice * g);
    printf("%s\t%zux%zu\t%.4f\t%.2f\tTFLOP/s\n", f64 ? "dsyrk" : "ssyrk", m, n, s,
           (double)m * (double)n * ((double)n + 1) / s / 1e12);
}

static void sgemm(size_t m, size_t n, size_t k, cublasHandle_t h)
{
    float *a = dev_f32(m * k, 1), *b = dev_f32(k * n, 2), *c = dev_f32(m * n, 3);
    const float one = 1, zero = 0;
    timer tm;
    double s = 0;
    int reps = 1;

    for (int round = 0; round < 3; round++) { /* warm-up, then until the time is >= 0.2 s */
        tm.start();
        for (int r = 0; r < reps; r++)
            CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &one, a, (int)m, b,
                           (int)k, &zero, c, (int)m));
        s = tm.stop() / reps;
        if (round > 0 && s * reps < 0.2)
            reps = (int)(0.2 / s) + 1;
    }
    printf("sgemm\t%zux%zux%zu\t%.6f\t%.2f\tTFLOP/s\n", m, n, k, s,
           2.0 * (double)m * (double)n * (double)k / s / 1e12);
    cudaFree(a), cudaFree(b), cudaFree(c);
}

static void popc(void)
{
    int dev = 0, sms = 0;
    const int iters = 1 << 14;
    unsigned long long *sink = NULL;
    timer tm;
    double s = 0;

    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaMalloc((void **)&sink, sizeof *sink));
    unsigned blocks = (unsigned)sms * 16;
    for (int rep = 0; rep < 2; rep++) {
        tm.start();
        k_popc<<<blocks, 256>>>(rep + 1, iters, sink);
        CK(cudaGetLastError());
        s = tm.stop();
    }
    printf("popc\t%u blocks x 256 threads\t%.4f\t%.3g\tpopcounts/s\n", blocks, s,
           4.0 * iters * blocks * 256 / s);
    cudaFree(sink);
}

static void h2d(size_t mib)
{
    size_t bytes = mib << 20;
    void *host = NULL, *dev = NULL;
    timer tm;
    double s = 0;

    CK(cudaHostAlloc(&host, bytes, cudaHostAllocDefault));
    CK(cudaMalloc(&dev, bytes));
    memset(host, 1, bytes);
    for (int rep = 0; rep < 3; rep++) {
        tm.start();
        CK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, 0));
        s = tm.stop();
    }
    printf("h2d\t%zu MiB pinned\t%.4f\t%.2f\tGB/s\n", mib, s, (double)bytes / s / 1e9);
    cudaFreeHost(host), cudaFree(dev);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    cublasHandle_t h = NULL;

    if (strcmp(mode, "info") == 0 && argc == 2) {
        info();
        return 0;
    }
    if (strcmp(mode, "popc") == 0 && argc == 2) {
        popc();
        return 0;
    }
    if (strcmp(mode, "h2d") == 0 && argc == 3) {
        h2d(arg(argv[2]));
        return 0;
    }
    if (!((strcmp(mode, "pass") == 0 && argc == 5) || (strcmp(mode, "sgemm") == 0 && argc == 5) ||
          ((strcmp(mode, "ssyrk") == 0 || strcmp(mode, "dsyrk") == 0) && argc == 4))) {
        fprintf(stderr, "usage: gemm_limit_cuda info | pass M N C | ssyrk M N | dsyrk M N | "
                        "sgemm M N K | popc | h2d MIB\n");
        return 2;
    }
    CB(cublasCreate(&h));
    CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH)); /* float32 stays float32, as in the backend */
    if (strcmp(mode, "pass") == 0)
        pass(arg(argv[2]), arg(argv[3]), arg(argv[4]), h);
    else if (strcmp(mode, "sgemm") == 0)
        sgemm(arg(argv[2]), arg(argv[3]), arg(argv[4]), h);
    else
        syrk(arg(argv[2]), arg(argv[3]), mode[0] == 'd', h);
    cublasDestroy(h);
    return 0;
}
