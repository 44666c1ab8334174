/*
 * Not part of any build: tests/test_settings.c compiles it, as it is (it must compile: the declarations that
 * fit) and with -DSIZE_ON_INT (it must not: the SET_ macros refuse a member of the wrong type, with a message).
 */
#include "sim/settings.h"

struct example_params {
    int64_t buffer;
    double gain;
    int steps;
    bool enabled;
    enum { EXAMPLE_A, EXAMPLE_B } mode;
    int small_buffer;
};

static const char *const mode_names[] = {"a", "b", NULL};

const struct setting example_fields[] = {
    {SET_FIELD("buffer", SETTING_SIZE, struct example_params, buffer, 0, "1KB", "A size")},
    {SET_NUM("gain", struct example_params, gain, 0, 0, 1, "0.5", "A number")},
    {SET_INT("steps", struct example_params, steps, 0, 9, "1", "An int")},
    {SET_FIELD("enabled", SETTING_BOOL, struct example_params, enabled, 0, "true", "A bool")},
    {SET_ENUM("mode", struct example_params, mode, mode_names, "a", "An enum")},
#ifdef SIZE_ON_INT
    {SET_FIELD("small_buffer", SETTING_SIZE, struct example_params, small_buffer, 0, "1KB", "A size in an int")},
#endif
    {0},
};
