/*
 * units — exact parsing and printing of the quantities used in scenarios.
 *
 * Time is integer picoseconds, size integer bytes, rate integer bits per
 * second, length integer millimetres.  Strings carry their unit ("1.5us",
 * "32MB", "100Gbps", "100m"); a bare number is rejected.  Decimal fractions
 * are parsed with integer arithmetic, so "1.5us" is exactly 1500000 ps, and a
 * value that is not a whole number of the base unit ("0.5ps", "1.0005KB") is an
 * error rather than a silent rounding.
 */
#ifndef SIM_UNITS_H
#define SIM_UNITS_H

#include <stddef.h>
#include <stdint.h>

#define PS_PER_NS 1000LL
#define PS_PER_US 1000000LL
#define PS_PER_MS 1000000000LL
#define PS_PER_S  1000000000000LL

/* A time in ps as ns, as the outputs write times (summary.json's *_ns fields). */
static inline double units_ps_to_ns(int64_t ps) { return (double)ps / (double)PS_PER_NS; }

/* Light travels 1 m of fibre or copper in 5 ns (2e8 m/s): 5 ps per mm. */
#define PS_PER_MM 5LL

/*
 * Each parser returns 0 and stores the value, or -1 and writes a message of
 * the form 'expected a time like "1.5us", got "x" (reason)' into err.
 */
int units_parse_time(const char *s, int64_t *ps, char *err, size_t errlen);
int units_parse_size(const char *s, int64_t *bytes, char *err, size_t errlen);
int units_parse_rate(const char *s, int64_t *bps, char *err, size_t errlen);
int units_parse_length(const char *s, int64_t *mm, char *err, size_t errlen);

/*
 * Printers choose the largest unit that shows the value exactly with at most
 * three decimals, so that parse(format(x)) == x for every x >= 0.
 * They return buf.
 */
char *units_fmt_time(int64_t ps, char *buf, size_t len);
char *units_fmt_size(int64_t bytes, char *buf, size_t len);
char *units_fmt_rate(int64_t bps, char *buf, size_t len);
char *units_fmt_length(int64_t mm, char *buf, size_t len);

/*
 * ps as a number of ns with at most three decimals and no trailing zeros
 * ("1500", "12.34"): exact, so CSV outputs are stable byte for byte.  Returns buf.
 */
char *units_fmt_ns(int64_t ps, char *buf, size_t len);

/* Exact serialization time of `bytes` at `bps`, rounded up to whole ps. */
int64_t units_tx_ps(int64_t bytes, int64_t bps);

#endif
