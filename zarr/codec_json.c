/* zarr/codec_json.c - reading codec configuration values (codec_internal.h), shared by every
 * codec's parser; kept apart from the codec registry (codec.c) so that the codecs depend on it
 * and not on the registry that names them. */
#include "gsvd_config.h"

#include <cjson/cJSON.h>

#include "common/err.h"
#include "common/log.h"
#include "zarr/codec_internal.h"

int gsvd_codec_json_int(const cJSON *config, const char *name, long long lo, long long hi,
                        int required, long long dflt, const char *where, long long *out)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(config, "id");
    const char *codec = cJSON_IsString(id) ? id->valuestring : "?";
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(config, name);
    double d;

    if (!item) {
        if (required) {
            gsvd_log_error("%s: codec '%s' has no \"%s\"", where, codec, name);
            return GSVD_EFORMAT;
        }
        *out = dflt;
        return GSVD_OK;
    }
    d = item->valuedouble;
    /* the range test comes first so that the cast below is defined */
    if (!cJSON_IsNumber(item) || !(d >= (double)lo && d <= (double)hi) ||
        (double)(long long)d != d) {
        gsvd_log_error("%s: codec '%s': \"%s\" must be an integer in %lld..%lld", where, codec,
                       name, lo, hi);
        return GSVD_EFORMAT;
    }
    *out = (long long)d;
    return GSVD_OK;
}
