/* The timed loops over one backend's lookups. Included once per backend with BK defined as
 * its name; defines random_BK and replay_BK. */

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(x) CAT(x, BK)
#define ROOK_AT(s, o) CAT(BK, rook)(s, o)
#define BISHOP_AT(s, o) CAT(BK, bishop)(s, o)

/* n random (square, occupancy) pairs, each looked up as a rook and as a bishop (2n
 * lookups). The pair is a hash of seed + i, so the iterations do not depend on each other
 * (as the lookups of move generation mostly do not) and nothing but the lookups touches
 * memory; about a quarter of the squares are occupied. */
static uint64_t FN(random)(uint64_t n, uint64_t seed)
{
    uint64_t acc = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t h = (seed + i) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 31;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
        uint64_t occ = h & (h << 23 | h >> 41);
        int sq = (int)((h * 0x94d049bb133111ebull) >> 58);
        acc += ROOK_AT(sq, occ) ^ BISHOP_AT(sq, occ);
    }
    return acc;
}

/* The recorded lookups of a perft, in their order. The occupancy advances without a branch;
 * the piece is a branch (in an engine it is the call site), the same for every backend. */
static uint64_t FN(replay)(const struct trace *t)
{
    uint64_t acc = 0;
    const uint64_t *occ = t->occ - 1;
    for (size_t i = 0; i < t->n; i++) {
        int c = t->code[i];
        occ += c >> 7;
        acc += c & 64 ? BISHOP_AT(c & 63, *occ) : ROOK_AT(c & 63, *occ);
    }
    return acc;
}

#undef CAT_
#undef CAT
#undef FN
#undef ROOK_AT
#undef BISHOP_AT
