/* common/cpu.c - see cpu.h: the cap on the kernels' instruction-set level, and the AVX2 probe
 * the AVX2 engines share, read once. */
#include "gsvd_config.h"
#include "common/cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

static const char *const level_names[] = {"base", "avx2", "avx512", "amx"};

static pthread_once_t cap_once = PTHREAD_ONCE_INIT;
static int cap = GSVD_CPU_AMX;
static const char *avx2_no; /* why the AVX2 engines cannot run, NULL when they can */
static int popcnt_ok;       /* gsvd_cpu_popcnt's answer */
static int zmm_halved;      /* gsvd_cpu_zmm_halved's answer */

/* AMD family 19h, from CPUID's vendor string and family (see gsvd_cpu_zmm_halved). */
static int amd_family_19h(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    unsigned a, b, c, d, family;
    if (!__get_cpuid(0, &a, &b, &c, &d) || memcmp(&b, "Auth", 4) != 0 ||
        memcmp(&d, "enti", 4) != 0 || memcmp(&c, "cAMD", 4) != 0 || !__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    family = (a >> 8) & 0xf;
    if (family == 0xf)
        family += (a >> 20) & 0xff;
    return family == 0x19;
#else
    return 0;
#endif
}

static void cap_read(void)
{
    zmm_halved = amd_family_19h();
    const char *s = getenv("GENSVD_CPU_LEVEL");
    if (s && *s) {
        int found = 0;
        for (int i = 0; i < (int)GSVD_ARRAY_LEN(level_names); i++)
            if (strcmp(s, level_names[i]) == 0) {
                cap = i;
                found = 1;
            }
        if (!found)
            gsvd_log_warn("GENSVD_CPU_LEVEL=%s ignored: not base, avx2, avx512 or amx", s);
    }
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (cap < GSVD_CPU_AVX2)
        avx2_no = "GENSVD_CPU_LEVEL caps the kernels below AVX2";
    else if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma") ||
             !__builtin_cpu_supports("bmi") || !__builtin_cpu_supports("bmi2") ||
             !__builtin_cpu_supports("popcnt"))
        avx2_no = "the CPU or OS has no AVX2, FMA, BMI1, BMI2 and POPCNT";
    /* capped at base, the POPCNT engines step aside too: base is what an x86-64 baseline CPU
     * runs (the tests cover the portable counts this way) */
    popcnt_ok = cap >= GSVD_CPU_AVX2 && __builtin_cpu_supports("popcnt");
#else
    avx2_no = "not an x86-64 build";
#endif
}

int gsvd_cpu_cap(void)
{
    pthread_once(&cap_once, cap_read);
    return cap;
}

int gsvd_cpu_allows(enum gsvd_cpu_level level)
{
    return gsvd_cpu_cap() >= (int)level;
}

int gsvd_cpu_avx2(char *why, size_t why_len)
{
    pthread_once(&cap_once, cap_read);
    if (why && why_len)
        snprintf(why, why_len, "%s", avx2_no ? avx2_no : "");
    return avx2_no == NULL;
}

int gsvd_cpu_popcnt(void)
{
    pthread_once(&cap_once, cap_read);
    return popcnt_ok;
}

int gsvd_cpu_zmm_halved(void)
{
    pthread_once(&cap_once, cap_read);
    return zmm_halved;
}

const char *gsvd_cpu_level_name(int level)
{
    return level >= 0 && level < (int)GSVD_ARRAY_LEN(level_names) ? level_names[level] : "?";
}
