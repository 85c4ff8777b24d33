/* common/popcnt_avx2.h - popcounts with AVX2, which has no vector popcount (AVX-512 VPOPCNTDQ
 * does): each byte's count from a 16-entry table of nibble counts by vpshufb, for the pair-count
 * kernels of analysis/pdist/ and analysis/ldprune/ (they add the bytes into byte accumulators
 * and fold those with vpsadbw).  Defined on x86-64 builds with GCC or clang
 * (GSVD_HAVE_POPCNT_AVX2); call only after gsvd_cpu_avx2() (common/cpu.h) said yes.  Thread safety:
 * pure functions. */
#ifndef GSVD_COMMON_POPCNT_AVX2_H
#define GSVD_COMMON_POPCNT_AVX2_H
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <stdint.h>
#define GSVD_HAVE_POPCNT_AVX2 1

/* Each byte of v replaced by its popcount (0..8). */
__attribute__((target("avx2"))) static inline __m256i gsvd_popcnt8_avx2(__m256i v)
{
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2,
                                         1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    __m256i lo = _mm256_and_si256(v, low), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), low);
    return _mm256_add_epi8(_mm256_shuffle_epi8(lut, lo), _mm256_shuffle_epi8(lut, hi));
}

/* The sum of the four 64-bit lanes of v. */
__attribute__((target("avx2"))) static inline uint64_t gsvd_sum4_epi64_avx2(__m256i v)
{
    __m128i s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_extract_epi64(s, 1);
}
#endif
#endif /* GSVD_COMMON_POPCNT_AVX2_H */
