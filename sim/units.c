/*
 * units — see units.h.  All arithmetic is on int64 with overflow checks; no
 * floating point touches a parsed value.
 */
#include "units.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct unit {
    const char *name;
    int64_t factor; /* base units per one of this unit */
};

static const struct unit time_units[] = {
    {"s", PS_PER_S}, {"ms", PS_PER_MS}, {"us", PS_PER_US}, {"ns", PS_PER_NS}, {"ps", 1}, {NULL, 0}};
/* Decimal units first so that the printer prefers them; KiB etc. parse too. */
static const struct unit size_units[] = {
    {"GB", 1000000000LL}, {"MB", 1000000LL}, {"KB", 1000LL},
    {"GiB", 1LL << 30},   {"MiB", 1LL << 20}, {"KiB", 1LL << 10},
    {"B", 1},             {"kB", 1000LL},     {NULL, 0}};
/* What the printer uses for sizes that are multiples of 1024 but not of 1000. */
static const struct unit binary_size_units[] = {
    {"GiB", 1LL << 30}, {"MiB", 1LL << 20}, {"KiB", 1LL << 10}, {"B", 1}, {NULL, 0}};
static const struct unit rate_units[] = {
    {"Tbps", 1000000000000LL}, {"Gbps", 1000000000LL}, {"Mbps", 1000000LL},
    {"Kbps", 1000LL},          {"bps", 1},             {"kbps", 1000LL}, {NULL, 0}};
static const struct unit length_units[] = {
    {"km", 1000000LL}, {"m", 1000LL}, {"cm", 10LL}, {"mm", 1LL}, {NULL, 0}};

/* Common spellings of each kind's base unit, which a unit's own prefix may carry ("G" + "b/s"). */
static const char *const time_spellings[] = {"s", "sec", "secs", NULL};
static const char *const size_spellings[] = {"B", "", "byte", "bytes", NULL};
static const char *const rate_spellings[] = {"bps", "", "b", "bit", "bits", "b/s", "bit/s", "bits/s", NULL};
static const char *const length_spellings[] = {"m", "meter", "meters", "metre", "metres", NULL};

/*
 * The unit that an unknown one most likely means: the same letters in another
 * case ("gbps", "KM"), or a unit's prefix followed by another spelling of the
 * base unit ("100G", "10Gb/s", "5usec").  The
 * prefix of a unit is its name without the base (the first spelling).
 * Returns NULL when nothing is close.
 */
static const char *near_unit(const char *p, const struct unit *units, const char *const *spellings)
{
    if (units == time_units && (strcmp(p, "\xc2\xb5s") == 0 || strcmp(p, "\xce\xbcs") == 0))
        return "us"; /* micro sign, Greek mu */
    size_t base = strlen(spellings[0]), len = strlen(p);
    for (const struct unit *u = units; u->name; u++) {
        size_t stem = strlen(u->name) - base;
        for (const char *const *sp = spellings; *sp; sp++)
            if (len > 0 && len == stem + strlen(*sp) && strncasecmp(p, u->name, stem) == 0 &&
                strcasecmp(p + stem, *sp) == 0)
                return u->name;
    }
    return NULL;
}

static int fail(char *err, size_t errlen, const char *kind, const char *example,
                const char *s, const char *why)
{
    if (err && errlen)
        snprintf(err, errlen, "expected %s like \"%s\", got \"%s\" (%s)", kind, example, s, why);
    return -1;
}

/* The reason a value above INT64_MAX base units is refused, naming the largest value in the kind's largest unit
 * ("too large: the largest time is about 9223372s"), so that the user sees what fits. */
static int too_large(char *err, size_t errlen, const struct unit *units, const char *kind, const char *example,
                     const char *s)
{
    char why[96];
    snprintf(why, sizeof why, "too large: the largest %s is about %lld%s", kind + 2,
             (long long)(INT64_MAX / units[0].factor), units[0].name);
    return fail(err, errlen, kind, example, s, why);
}

static int parse_quantity(const char *s, const struct unit *units, const char *const *spellings, int64_t *out,
                          char *err, size_t errlen, const char *kind, const char *example, const char *base)
{
    const char *p = s;
    int64_t ip = 0, frac = 0, fscale = 1;
    int ndig = 0, nfrac = 0;
    char why[96];

    if (!s)
        return fail(err, errlen, kind, example, "(null)", "missing");
    while (*p == ' ')
        p++;
    if (*p == '-')
        return fail(err, errlen, kind, example, s, "negative");
    if (*p == '+')
        p++;
    while (isdigit((unsigned char)*p)) {
        if (__builtin_mul_overflow(ip, 10, &ip) || __builtin_add_overflow(ip, *p - '0', &ip))
            return too_large(err, errlen, units, kind, example, s);
        p++;
        ndig++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (nfrac >= 18)
                return fail(err, errlen, kind, example, s, "too many decimals");
            frac = frac * 10 + (*p - '0');
            fscale *= 10;
            nfrac++;
            p++;
        }
    }
    if (ndig + nfrac == 0)
        return fail(err, errlen, kind, example, s, "no number");
    while (*p == ' ')
        p++;
    if (*p == '\0')
        return fail(err, errlen, kind, example, s, "no unit");
    const struct unit *u = NULL;
    for (const struct unit *c = units; c->name; c++)
        if (strcmp(p, c->name) == 0) {
            u = c;
            break;
        }
    if (!u) {
        const char *near = near_unit(p, units, spellings);
        if (near)
            snprintf(why, sizeof why, "unknown unit \"%.20s\"; did you mean \"%s\"?", p, near);
        else
            snprintf(why, sizeof why, "unknown unit \"%.20s\"", p);
        return fail(err, errlen, kind, example, s, why);
    }
    int64_t whole, part = 0;
    if (__builtin_mul_overflow(ip, u->factor, &whole))
        return too_large(err, errlen, units, kind, example, s);
    if (nfrac) {
        /* frac/fscale * factor must be a whole number of base units. */
        __int128 num = (__int128)frac * u->factor;
        if (num % fscale != 0) {
            snprintf(why, sizeof why, "not a whole number of %s", base);
            return fail(err, errlen, kind, example, s, why);
        }
        part = (int64_t)(num / fscale);
    }
    if (__builtin_add_overflow(whole, part, out))
        return too_large(err, errlen, units, kind, example, s);
    return 0;
}

int units_parse_time(const char *s, int64_t *ps, char *err, size_t errlen)
{
    return parse_quantity(s, time_units, time_spellings, ps, err, errlen, "a time", "1.5us", "picoseconds");
}

int units_parse_size(const char *s, int64_t *bytes, char *err, size_t errlen)
{
    return parse_quantity(s, size_units, size_spellings, bytes, err, errlen, "a size", "20KB", "bytes");
}

int units_parse_rate(const char *s, int64_t *bps, char *err, size_t errlen)
{
    return parse_quantity(s, rate_units, rate_spellings, bps, err, errlen, "a rate", "100Gbps", "bits per second");
}

int units_parse_length(const char *s, int64_t *mm, char *err, size_t errlen)
{
    return parse_quantity(s, length_units, length_spellings, mm, err, errlen, "a length", "100m", "millimetres");
}

static char *fmt_quantity(int64_t v, const struct unit *units, char *buf, size_t len)
{
    for (const struct unit *u = units; u->name; u++) {
        if (u->factor == 1 || (v >= u->factor && ((__int128)v * 1000) % u->factor == 0)) {
            int64_t ip = v / u->factor, rem = v % u->factor;
            if (rem == 0) {
                snprintf(buf, len, "%lld%s", (long long)ip, u->name);
            } else {
                int64_t milli = (int64_t)(((__int128)rem * 1000) / u->factor);
                char dec[8];
                snprintf(dec, sizeof dec, "%03lld", (long long)milli);
                for (int i = 2; i > 0 && dec[i] == '0'; i--)
                    dec[i] = '\0';
                snprintf(buf, len, "%lld.%s%s", (long long)ip, dec, u->name);
            }
            return buf;
        }
    }
    snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

char *units_fmt_time(int64_t ps, char *buf, size_t len) { return fmt_quantity(ps, time_units, buf, len); }
char *units_fmt_size(int64_t b, char *buf, size_t len)
{
    bool binary = b % 1000 != 0 && b % 1024 == 0;
    return fmt_quantity(b, binary ? binary_size_units : size_units, buf, len);
}
char *units_fmt_rate(int64_t bps, char *buf, size_t len) { return fmt_quantity(bps, rate_units, buf, len); }
char *units_fmt_length(int64_t mm, char *buf, size_t len) { return fmt_quantity(mm, length_units, buf, len); }

char *units_fmt_ns(int64_t ps, char *buf, size_t len)
{
    if (ps % 1000 == 0) {
        snprintf(buf, len, "%lld", (long long)(ps / 1000));
    } else {
        /* the remainder takes the sign of ps: print the magnitude after the sign once */
        long long whole = (long long)(ps / 1000), frac = (long long)(ps % 1000);
        snprintf(buf, len, "%s%lld.%03lld", ps < 0 && whole == 0 ? "-" : "", whole, frac < 0 ? -frac : frac);
        size_t l = strlen(buf);
        while (buf[l - 1] == '0')
            buf[--l] = '\0';
    }
    return buf;
}

int64_t units_tx_ps(int64_t bytes, int64_t bps)
{
    __int128 num = (__int128)bytes * 8 * PS_PER_S;
    return (int64_t)((num + bps - 1) / bps);
}
