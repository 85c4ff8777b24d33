/* common/gsvd_defs.h - compiler attributes and C/C++ linkage helpers used by every header. */
#ifndef GSVD_COMMON_GSVD_DEFS_H
#define GSVD_COMMON_GSVD_DEFS_H

#if defined(__GNUC__) || defined(__clang__)
#define GSVD_NODISCARD __attribute__((warn_unused_result))
#define GSVD_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define GSVD_UNUSED __attribute__((unused))
#else
#define GSVD_NODISCARD
#define GSVD_PRINTF(fmt, args)
#define GSVD_UNUSED
#endif

#ifdef __cplusplus
#define GSVD_EXTERN_C_BEGIN extern "C" {
#define GSVD_EXTERN_C_END }
#else
#define GSVD_EXTERN_C_BEGIN
#define GSVD_EXTERN_C_END
#endif

/* Functions shared by host C code and CUDA kernels. */
#ifdef __CUDACC__
#define GSVD_HD __host__ __device__
#else
#define GSVD_HD
#endif

/* float64 multiply / add / subtract / divide / square root rounded once each: on the device
 * the round-to-nearest intrinsics, which nvcc never fuses into an FMA, as the host C compiler
 * does not either (-ffp-contract=off, set for every target by CMakeLists.txt's
 * gsvd_target_defaults, also inside target_clones functions).  Shared host/device arithmetic
 * that must agree bit for bit goes through these.  GSVD_DSQRT needs <math.h> on the host. */
#ifdef __CUDA_ARCH__
#define GSVD_DMUL(a, b) __dmul_rn((a), (b))
#define GSVD_DADD(a, b) __dadd_rn((a), (b))
#define GSVD_DSUB(a, b) __dsub_rn((a), (b))
#define GSVD_DDIV(a, b) __ddiv_rn((a), (b))
#define GSVD_DSQRT(a) __dsqrt_rn(a)
#else
#define GSVD_DMUL(a, b) ((a) * (b))
#define GSVD_DADD(a, b) ((a) + (b))
#define GSVD_DSUB(a, b) ((a) - (b))
#define GSVD_DDIV(a, b) ((a) / (b))
#define GSVD_DSQRT(a) sqrt(a)
#endif

/* Hot loops compiled for several x86-64 levels, chosen at load time (ifunc).  Not under a
 * sanitizer: the resolvers run while the dynamic loader relocates, before the sanitizer's
 * runtime is set up, and its instrumentation of them crashes the program there (ThreadSanitizer
 * at start-up).  GCC names the sanitizers with __SANITIZE_*__, clang with __has_feature. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GSVD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||                         \
    __has_feature(memory_sanitizer)
#define GSVD_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__) && !defined(GSVD_SANITIZED)
#ifdef GSVD_CLONES_V3 /* cmake -DGENSVD_CLONES=v3: no AVX-512 clone (an AVX2 host's code) */
#define GSVD_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GSVD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#else
#define GSVD_CLONES
#endif

#define GSVD_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif /* GSVD_COMMON_GSVD_DEFS_H */
