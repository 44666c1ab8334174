/*
 * rng — seeded pseudo-random streams.
 *
 * Generator: xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom
 * number generators", ACM TOMS 2021), state seeded through splitmix64 as its
 * authors recommend.  Every component draws from its own stream, derived from
 * (scenario seed, stream id), so adding a flow or a switch does not shift the
 * draws of any other component.  Stream ids are built with rng_stream_id() from
 * a component kind and an index.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <math.h>
#include <stdint.h>

struct rng {
    uint64_t s[4];
};

enum rng_kind {
    RNG_KIND_ECN = 1,     /* per switch: ECN marking */
    RNG_KIND_ECMP = 2,    /* per switch: ECMP salt */
    RNG_KIND_TRAFFIC = 3, /* per traffic entry: arrivals, sizes, destinations */
    RNG_KIND_ROUTING = 4, /* per flow: Valiant intermediate choice */
    RNG_KIND_CORRUPT = 5, /* per receiving port: frames corrupted on a lossy link (net.h, struct port_loss) */
    RNG_KIND_ENTROPY = 6, /* per flow: its sender's entropy values (models/entropy.h) */
    RNG_KIND_OVERSUB = 7, /* per receiving host: its oversubscription control's periods (models/rccc_oversub.c) */
    RNG_KIND_TEST = 15,
};

static inline uint64_t rng_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t rng_stream_id(enum rng_kind kind, uint64_t index)
{
    return ((uint64_t)kind << 56) ^ index;
}

static inline void rng_init(struct rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed;
    uint64_t mixed = rng_splitmix64(&x) ^ (stream * 0xd1342543de82ef95ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = rng_splitmix64(&mixed);
}

/* The murmur3 32-bit finalizer: every input bit affects every output bit (the hashes of names, flows and frames). */
static inline uint32_t rng_mix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* Uniform double in [0, 1) with 53 random bits. */
static inline double rng_uniform(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* Uniform integer in [0, n), n > 0, without modulo bias (Lemire's method). */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
    uint64_t m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
    uint32_t lo = (uint32_t)m;
    if (lo < n) {
        uint32_t thresh = (uint32_t)(-n) % n;
        while (lo < thresh) {
            m = (uint64_t)(uint32_t)(rng_next(r) >> 32) * n;
            lo = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Exponential variate with the given mean. */
static inline double rng_exponential(struct rng *r, double mean) { return -mean * log1p(-rng_uniform(r)); }

#endif
