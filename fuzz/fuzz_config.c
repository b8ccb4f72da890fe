/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer target: the settings' value parsers (src/core/config.c), the text
 * of every TCOMM_* environment variable. The first byte picks a parser
 * (bool, level, seconds, tristate, bytes) or the whole table: the text is
 * set as one of the variables and the table re-read, then every value
 * printed. A parser must accept or reject any text without reading past
 * it, and on success store a value inside its documented range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tcomm_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    /* an exact-size copy, so that a read past the terminator is caught */
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char err[256];
    union {
        int i;
        double d;
        size_t z;
    } v;
    switch (data[0] % 7) {
    case 0:
        if (tcomm_parse_bool(text, &v.i, err, sizeof err) == 0 &&
            v.i != 0 && v.i != 1)
            __builtin_trap();
        break;
    case 1:
        if (tcomm_parse_level(text, &v.i, err, sizeof err) == 0 &&
            (v.i < 0 || v.i > 3))
            __builtin_trap();
        break;
    case 2:
        if (tcomm_parse_seconds(text, &v.d, err, sizeof err) == 0 &&
            !(v.d >= 0 && v.d <= 1e9))
            __builtin_trap();
        break;
    case 3:
        if (tcomm_parse_tristate(text, &v.i, err, sizeof err) == 0 &&
            (v.i < -1 || v.i > 1))
            __builtin_trap();
        break;
    case 4:
        if (tcomm_parse_bytes(text, &v.z, err, sizeof err) == 0 &&
            (v.z == 0 || v.z > ((size_t)1 << 40)))
            __builtin_trap();
        break;
    default: {
        size_t count;
        const tcomm_setting_t *t = tcomm_settings_table(&count);
        const char *name = t[(data[0] / 7) % count].name;
        setenv(name, text, 1);
        tcomm_config_reload();
        char buf[128];
        for (size_t i = 0; i <= count; i++)
            tcomm_setting_value_text(i, buf, sizeof buf);
        unsetenv(name);
        break;
    }
    }
    free(text);
    return 0;
}
