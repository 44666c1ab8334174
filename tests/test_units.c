/* Units: exact parsing, rejects, overflow, and format/parse round trips. */
#include "tests/tests.h"
#include "sim/units.h"

#include <stdio.h>
#include <string.h>

static void test_time_exact(void)
{
    int64_t v;
    char err[256];
    CU_ASSERT_EQUAL(units_parse_time("1.5us", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 1500000);
    CU_ASSERT_EQUAL(units_parse_time("55us", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 55 * PS_PER_US);
    CU_ASSERT_EQUAL(units_parse_time("0.2s", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 200 * PS_PER_MS);
    CU_ASSERT_EQUAL(units_parse_time("80ps", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 80);
    CU_ASSERT_EQUAL(units_parse_time("0us", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 0);
    CU_ASSERT_EQUAL(units_parse_time("0.000001ms", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 1000);
}

static void test_size_rate_length(void)
{
    int64_t v;
    char err[256];
    CU_ASSERT_EQUAL(units_parse_size("32MB", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 32000000);
    CU_ASSERT_EQUAL(units_parse_size("1.5KB", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 1500);
    CU_ASSERT_EQUAL(units_parse_size("1KiB", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 1024);
    CU_ASSERT_EQUAL(units_parse_size("2GiB", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 2LL << 30);
    CU_ASSERT_EQUAL(units_parse_rate("100Gbps", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 100000000000LL);
    CU_ASSERT_EQUAL(units_parse_rate("2.5Gbps", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 2500000000LL);
    CU_ASSERT_EQUAL(units_parse_rate("40Mbps", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 40000000);
    CU_ASSERT_EQUAL(units_parse_length("100m", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v, 100000);
    CU_ASSERT_EQUAL(units_parse_length("1km", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(v * PS_PER_MM, 5 * PS_PER_US); /* 1 km of cable = 5 us */
}

static void test_rejects(void)
{
    int64_t v = 42;
    char err[256];
    static const char *bad_times[] = {"5", "", "us", "-1us", "1.5", "1 parsec", "0.5ps", "1e3us", "1,5us", "twenty"};
    for (size_t i = 0; i < sizeof bad_times / sizeof *bad_times; i++) {
        err[0] = '\0';
        CU_ASSERT_EQUAL(units_parse_time(bad_times[i], &v, err, sizeof err), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected a time like"));
    }
    CU_ASSERT_EQUAL(units_parse_size("1.0005KB", &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "whole number of bytes"));
    CU_ASSERT_EQUAL(units_parse_size("20", &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "no unit"));
    CU_ASSERT_EQUAL(units_parse_rate("100Gb", &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "unknown unit"));
    CU_ASSERT_EQUAL(units_parse_size("10us", &v, err, sizeof err), -1);
    CU_ASSERT_EQUAL(v, 42); /* untouched on error */
}

/* A near miss is answered with the spelling meant; a unit that is nothing like one gets no guess. */
static void test_near_units(void)
{
    int64_t v;
    char err[256];
    CU_ASSERT_EQUAL(units_parse_rate("100gbps", &v, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "expected a rate like \"100Gbps\", got \"100gbps\" (unknown unit \"gbps\"; did you "
                                "mean \"Gbps\"?)");
    CU_ASSERT_EQUAL(units_parse_rate("100G", &v, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "expected a rate like \"100Gbps\", got \"100G\" (unknown unit \"G\"; did you mean "
                                "\"Gbps\"?)");
    CU_ASSERT_EQUAL(units_parse_rate("25Gb/s", &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean \"Gbps\"?"));
    CU_ASSERT_EQUAL(units_parse_rate("1kbit", &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean \"Kbps\"?"));
    CU_ASSERT_EQUAL(units_parse_size("32M", &v, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "expected a size like \"20KB\", got \"32M\" (unknown unit \"M\"; did you mean "
                                "\"MB\"?)");
    CU_ASSERT_EQUAL(units_parse_size("1gib", &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean \"GiB\"?"));
    CU_ASSERT_EQUAL(units_parse_time("10usec", &v, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "expected a time like \"1.5us\", got \"10usec\" (unknown unit \"usec\"; did you "
                                "mean \"us\"?)");
    CU_ASSERT_EQUAL(units_parse_time("2\xc2\xb5s", &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean \"us\"?"));
    CU_ASSERT_EQUAL(units_parse_length("2KM", &v, err, sizeof err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean \"km\"?"));
    /* "m" is no time unit: minutes or milliseconds, it is not for the parser to guess. */
    CU_ASSERT_EQUAL(units_parse_time("3m", &v, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "expected a time like \"1.5us\", got \"3m\" (unknown unit \"m\")");
    CU_ASSERT_EQUAL(units_parse_rate("100xyz", &v, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "expected a rate like \"100Gbps\", got \"100xyz\" (unknown unit \"xyz\")");
}

static void test_overflow(void)
{
    int64_t v;
    char err[256];
    /* 9.3e6 s in ps overflows int64 (max about 9.22e6 s). */
    CU_ASSERT_EQUAL(units_parse_time("9300000s", &v, err, sizeof err), -1);
    /* the message names the largest value (it used to say "too large" and no more: --max-wall 99999999s) */
    CU_ASSERT_STRING_EQUAL(err, "expected a time like \"1.5us\", got \"9300000s\" (too large: the largest time is "
                                "about 9223372s)");
    CU_ASSERT_EQUAL(units_parse_time("9200000s", &v, err, sizeof err), 0);
    CU_ASSERT_EQUAL(units_parse_size("99999999999999999999B", &v, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "expected a size like \"20KB\", got \"99999999999999999999B\" (too large: the largest "
                                "size is about 9223372036GB)");
    CU_ASSERT_EQUAL(units_parse_rate("10000000Tbps", &v, err, sizeof err), -1);
    CU_ASSERT_STRING_EQUAL(err, "expected a rate like \"100Gbps\", got \"10000000Tbps\" (too large: the largest rate "
                                "is about 9223372Tbps)");
}

static void test_round_trip(void)
{
    char buf[64], err[256];
    int64_t v;
    static const int64_t times[] = {0, 1, 80, 999, 1000, 1500000, 55 * PS_PER_US, 123456789, PS_PER_S, 3 * PS_PER_S + 1};
    for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
        units_fmt_time(times[i], buf, sizeof buf);
        CU_ASSERT_EQUAL_FATAL(units_parse_time(buf, &v, err, sizeof err), 0);
        CU_ASSERT_EQUAL(v, times[i]);
    }
    CU_ASSERT_STRING_EQUAL(units_fmt_time(1500000, buf, sizeof buf), "1.5us");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(32000000, buf, sizeof buf), "32MB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(1024, buf, sizeof buf), "1KiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(1500, buf, sizeof buf), "1.5KB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(1086, buf, sizeof buf), "1.086KB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(32767, buf, sizeof buf), "32.767KB");
    CU_ASSERT_STRING_EQUAL(units_fmt_size(1 << 20, buf, sizeof buf), "1MiB");
    CU_ASSERT_STRING_EQUAL(units_fmt_rate(100000000000LL, buf, sizeof buf), "100Gbps");
    CU_ASSERT_STRING_EQUAL(units_fmt_length(100000, buf, sizeof buf), "100m");
    for (int64_t x = 1; x < 4000000000LL; x = x * 7 + 3) {
        units_fmt_size(x, buf, sizeof buf);
        CU_ASSERT_EQUAL_FATAL(units_parse_size(buf, &v, err, sizeof err), 0);
        CU_ASSERT_EQUAL(v, x);
        units_fmt_rate(x, buf, sizeof buf);
        CU_ASSERT_EQUAL_FATAL(units_parse_rate(buf, &v, err, sizeof err), 0);
        CU_ASSERT_EQUAL(v, x);
    }
}

static void test_tx_time(void)
{
    CU_ASSERT_EQUAL(units_tx_ps(1, 100000000000LL), 80);           /* 1 B at 100G = 80 ps */
    CU_ASSERT_EQUAL(units_tx_ps(1086, 100000000000LL), 86880);
    CU_ASSERT_EQUAL(units_tx_ps(1, 40000000000LL), 200);
    CU_ASSERT_EQUAL(units_tx_ps(1, 3000000000LL), 2667);           /* 2666.67 rounded up */
}

void test_units_register(void)
{
    CU_pSuite s = CU_add_suite("units", NULL, NULL);
    CU_add_test(s, "time strings parse exactly", test_time_exact);
    CU_add_test(s, "size, rate and length strings", test_size_rate_length);
    CU_add_test(s, "bare numbers, bad units and fractions are rejected", test_rejects);
    CU_add_test(s, "a near-miss unit suggests the right spelling", test_near_units);
    CU_add_test(s, "overflow is detected", test_overflow);
    CU_add_test(s, "format then parse is the identity", test_round_trip);
    CU_add_test(s, "serialization time", test_tx_time);
}
