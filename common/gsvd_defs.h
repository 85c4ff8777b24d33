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

#define GSVD_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif /* GSVD_COMMON_GSVD_DEFS_H */
