/* A research prototype for new orders of the trimmed walk: node counts, not speed.
 *
 * It is trim-check.c's walk (written again here, with the same rules and the same node count
 * at its defaults) generalised in three ways that each change the nodes, to count what a
 * candidate order would cost before anyone builds it (docs/log/2026-12-02-h1-engine.md):
 *
 *   --bottom SW NB  fix bits from both ends. A node is m = F + (d << a) with d in [lo, hi]
 *                   inside a window of t bits above the a low bits already fixed; over the
 *                   node subset X's product runs from X*(F + (lo << a)) up by (X << a)*(hi-lo),
 *                   so the walk's two rules (exact, trim) hold with X << a as the multiplier.
 *                   While the window has at most SW bits and fewer than NB low bits are
 *                   fixed, a surviving node splits its lowest free bit (the children keep
 *                   their interval of d, halved by parity) instead of its top one.
 *   --join SQ=LOGK  the family of square SQ (subsets whose highest square it is) joins when it
 *                   moves fewer than 2^LOGK slots over the interval (default 2^min(7, bits-1)
 *                   for every family, as exhaust). LOGK may exceed BITS: the family then
 *                   joins while it wraps the table (spans are 128-bit; a trim scans at most one
 *                   turn of the table).
 *   --copy SQ       the exact-copy test of a square q whose head 2^q * m is a whole number of
 *                   slots (q >= 64 - bits: h7, g7, f7 on rank 1 at 11 bits): the subset Y | q
 *                   sits exactly 2^(q - shift) * (m mod 2^(64-q)) slots after Y, in both
 *                   systems of the fold, and its attack set is a function of Y's (checked).
 *                   At every surviving node, the values k = m mod 2^(64-q) the node can still
 *                   take such that every slot holding a subset without q (attack a) has the
 *                   slot k steps on empty or holding the attack of a with q; none left kills
 *                   the node. Sound: a magic needs its k there. (Its work, slots times
 *                   values of k at every node, is not in the checks counted.)
 *   --fit SQ        the fit test of the family of square SQ before it joins (repeatable, up to
 *                   8): a member Y | SQ sits at top(Y*m) + top(2^SQ*m) + carry, so it allows the
 *                   values v = top(2^SQ*m) that put it on a compatible slot from some slot Y can
 *                   take over the node; no v of the node allowed by every member kills the node.
 *                   Sound (a magic's v is allowed by all), counted in members and 64-bit words.
 *   --pair Q1 Q2 T  the pair test of the families of Q1 and Q2 at nodes of windows up to 2^T:
 *                   the fit test of both at once, over the values of the bits of m that fix
 *                   top(2^Q1*m) and top(2^Q2*m) together (pair_alive). Sound, counted in
 *                   nodes tested and members.
 *   --shape KEEP    the low-rook shape of src/exhaust/tests.rs: a rook of rank 1 or 2 with its
 *                   rank part and its first KEEP file squares, moved up so that its highest
 *                   square is h8 (periods of 2^15 to 2^23, for --brute).
 *   --max-nodes N   give up after N nodes (the counts printed are then lower bounds).
 *   --profile       per window size: nodes entered, nodes that died, checks a node; per task:
 *                   nodes and checks (stderr).
 *
 *   cc -O3 -march=native -o window-walk scripts/research/window-walk.c
 *   scripts/research/sample-tasks.py rook h1 11 24 1 40 | awk '$1 < 2^23' | head -8 > tasks
 *   ./window-walk --fold rook h1 11 24 --profile < tasks            # exhaust's fold, node for node
 *   ./window-walk --fold rook h1 11 24 --bottom 25 9 < tasks        # k fixed below 2^25
 *   ./window-walk --fold rook h1 11 24 --copy h7 < tasks
 *   ./window-walk --fold rook h1 11 24 --join h6=14 < tasks          # h6 joins at 2^20, not 2^13
 *   ./window-walk bishop d8 5 3 --bottom 20 5 --brute < /dev/null   # every task, brute force
 *   ./window-walk --fold rook h1 8 3 --shape 2 --bottom 12 3 --copy h8 --brute < /dev/null
 *
 * The tasks (their top TASK_BITS bits of m) are read from stdin, one number a line; with
 * --brute every task is run and the walk's magics are compared one by one with those brute
 * force finds at every m of the period (periods to 2^34); a difference exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

static int n, bits, shift, fold, period, SW = -1, NB = 0, profile, copy_q = -1;
static int kb_of[64]; /* log2 K per highest square */
static uint64_t occ[4096], att[4096];
static uint64_t slot_att[4096];
static int free_at[4096];           /* subsets without copy_q placed at a slot */
static int filled[4096], nfilled;   /* the slots where free_at > 0, in the order filled */
static unsigned char placed[4096];  /* subset i exact on the path */
static uint64_t max_nodes = ~0ULL; /* --max-nodes: the walk gives up past this many */
static uint64_t steps; /* slots stepped over by the trims' scans */
static uint64_t nodes, magics, checks, copy_kills, nt[70], dt[70], ct[70];
typedef struct { uint64_t X, x, a; int i; } ent; /* occupancy, multiplier, attack, index */
static ent *lists;
static int *order[64];              /* per a: the subsets by join width, the widest first */
static uint64_t *thr[64];           /* per a: a subset joins when the width is below (0: always) */
static uint64_t phi_from[4096], phi_to[4096];
static int nphi;
static int fit_q[8], nfit;          /* --fit SQ: the families tested for a fit before they join */
static uint64_t fit_kills, fit_members, fit_words;
static int att_id[4096], natt;      /* attack sets numbered, for the fit test's bit sets */
static uint64_t att_of_id[4096];

static int magic_at(uint64_t m) {
    static uint64_t a[4096];
    static unsigned char used[4096];
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        int idx = (int)((occ[i] * m) >> shift);
        if (used[idx] && a[idx] != att[i])
            ok = 0;
        used[idx] = 1;
        a[idx] = att[i];
    }
    memset(used, 0, sizeof used);
    return ok;
}

static uint64_t *found_list;       /* with --brute: every magic the walk found */
static size_t nfound, capfound;
static int record;
static uint64_t found(uint64_t m) {
    if (!magic_at(m))
        return 0;
    if (record) {
        if (nfound == capfound) {
            capfound = capfound ? 2 * capfound : 1024;
            found_list = realloc(found_list, sizeof(uint64_t) * capfound);
        }
        found_list[nfound++] = m;
    }
    return 1;
}
static int by_value(const void *p, const void *q) {
    uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
    return a < b ? -1 : a > b;
}

static uint64_t ray_walk(int sq, uint64_t blockers, int rook, int edges_only) {
    static const int rd[2][4][2] = {{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}},
                                    {{1, 0}, {-1, 0}, {0, 1}, {0, -1}}};
    uint64_t out = 0;
    for (int k = 0; k < 4; k++) {
        int f = sq % 8 + rd[rook][k][0], r = sq / 8 + rd[rook][k][1];
        while (f >= 0 && f < 8 && r >= 0 && r < 8) {
            int nf = f + rd[rook][k][0], nr = r + rd[rook][k][1];
            if (edges_only && !(nf >= 0 && nf < 8 && nr >= 0 && nr < 8))
                break;
            out |= 1ULL << (r * 8 + f);
            if (!edges_only && (blockers >> (r * 8 + f) & 1))
                break;
            f = nf;
            r = nr;
        }
    }
    return out;
}

/* The width below which a subset of multiplier xp joins (0: always, 1: only at one value). */
static uint64_t join_width(uint64_t xp, uint64_t X) {
    if (xp == 0)
        return 0;
    int q = 63 - __builtin_clzll(xp), top = 63 - __builtin_clzll(X);
    int e = kb_of[top] + shift - q;
    return e >= 64 ? 0 : e <= 0 ? 1 : (uint64_t)1 << e;
}
static int joins(uint64_t th, uint64_t w) { return th == 0 || w < th; }

static uint64_t *sort_thr;
static int by_width(const void *p, const void *q) {
    int i = *(const int *)p, j = *(const int *)q;
    uint64_t a = sort_thr[i] ? sort_thr[i] : ~0ULL, b = sort_thr[j] ? sort_thr[j] : ~0ULL;
    if (a != b)
        return a > b ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The join order once a low bits are fixed: by width, each run of one width shuffled. */
static void build_order(int a) {
    if (order[a])
        return;
    order[a] = malloc(sizeof(int) * (size_t)n);
    thr[a] = malloc(sizeof(uint64_t) * (size_t)n);
    static uint64_t th[4096];
    for (int i = 0; i < n; i++) {
        th[i] = join_width(occ[i] << a, occ[i]);
        order[a][i] = i;
    }
    sort_thr = th;
    qsort(order[a], (size_t)n, sizeof(int), by_width);
    uint64_t rng = 0x2545f4914f6cdd1dULL;
    for (int k = 0, start = 0; k < n; k++) {
        if (k > 0 && th[order[a][k]] != th[order[a][k - 1]])
            start = k;
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        int j = start + (int)(rng % (uint64_t)(k - start + 1));
        int tmp = order[a][k];
        order[a][k] = order[a][j];
        order[a][j] = tmp;
    }
    for (int k = 0; k < n; k++)
        thr[a][k] = th[order[a][k]];
}

static uint64_t div_up(u128 need, uint64_t x) {
    if (need >> 64 == 0) {
        uint64_t v = (uint64_t)need;
        return v / x + (v % x != 0);
    }
    return (uint64_t)((need + x - 1) / x);
}
static int compatible(uint64_t slot, uint64_t a) {
    uint64_t h = slot_att[slot & ((1ULL << bits) - 1)];
    return h == 0 || h == a;
}
static uint64_t phi(uint64_t a) {
    for (int i = 0; i < nphi; i++)
        if (phi_from[i] == a)
            return phi_to[i];
    return ~0ULL;
}

/* The copy test: whether some k = m mod 2^(64-q) the node can take (m = F + (d << a), d from
 * lo to hi) keeps every slot that holds a subset without q compatible, k steps on, with its
 * attack with q. */
static int copy_alive(uint64_t F, int a, uint64_t lo, uint64_t hi) {
    int nk = 1 << (64 - copy_q), step = 1 << (copy_q - shift), slots = 1 << bits;
    static unsigned char ok[2048];
    memset(ok, 0, (size_t)nk);
    /* k runs from that of d = lo in steps of 2^a, through at most nk >> a values */
    uint64_t k0 = (F + (lo << a)) & (uint64_t)(nk - 1);
    uint64_t period_k = a >= 64 - copy_q ? 1 : (uint64_t)nk >> a;
    uint64_t reach = hi - lo >= period_k - 1 ? period_k : hi - lo + 1;
    for (uint64_t r = 0; r < reach; r++)
        ok[(k0 + (r << a)) & (uint64_t)(nk - 1)] = 1;
    static uint64_t want[4096];
    for (int i = 0; i < nfilled; i++)
        want[i] = phi(slot_att[filled[i]]);
    for (int k = 0; k < nk; k++) { /* a k alive when no filled slot refuses it */
        if (!ok[k])
            continue;
        int i = 0;
        for (; i < nfilled; i++) {
            uint64_t h = slot_att[(filled[i] + k * step) & (slots - 1)];
            if (h != 0 && h != want[i])
                break;
        }
        if (i == nfilled)
            return 1;
    }
    return 0;
}


/* The fit test of the family of square q (the subsets whose highest square is q), before it
 * joins. A member X = Y | q has index top(Y*m - f + 2^q*m) = top(Y*m - f) + top(2^q*m) + c, with
 * c in {0, 1} (the carry out of the low 53 bits) and f in {0, fold} (f = 1 stands for -m,
 * whose table is this one reflected); over the node top(Y*m - f) is one of the slots from b0 to
 * b0 + last, as the walk computes them. So member X allows the values v = top(2^q*m) with a
 * compatible slot at some s + v + c, and the node lives only if some v the node can take is
 * allowed by every member tested (members whose Y moves over more than FIT_MAX slots are not
 * tested). Sound: a magic of the node has its v allowed by every member. */
#define FIT_MAX 64
static void rot_or(uint64_t *d, const uint64_t *s, int t, int words) { /* d |= s rotated: d[v] |= s[v+t] */
    int W = t / 64, b = t % 64;
    for (int k = 0; k < words; k++) {
        uint64_t lo = s[(k + W) % words], hi = s[(k + W + 1) % words];
        d[k] |= b ? (lo >> b) | (hi << (64 - b)) : lo;
    }
}
static uint64_t compat[4096][32], fill[32]; /* per attack id: the compatible slots */
static int built[4096], stamp;
/* A new table: the compatible slots are built again as members ask for them. */
static void compat_reset(void) {
    const int slots = 1 << bits;
    stamp++;
    memset(fill, 0, sizeof fill);
    for (int sl = 0; sl < slots; sl++)
        if (slot_att[sl])
            fill[sl / 64] |= 1ULL << (sl % 64);
}
/* The values v that put member Y | S (subset i, Y the part below S's squares, m = F + (d << a)
 * from m0 over w values of d) on a compatible slot at top(Y*m - f) + v + c, c from 0 to
 * `carries`: into `allow`. Returns the slots Y moves over, less one; FIT_MAX or more: not
 * computed (the member is not tested). */
static uint64_t member_allow(int i, uint64_t Y, int a, uint64_t m0, uint64_t w, uint64_t carries,
                             uint64_t *allow) {
    const int slots = 1 << bits, words = slots >= 64 ? slots / 64 : 1;
    const uint64_t low = ((uint64_t)1 << shift) - 1, smask = (uint64_t)slots - 1;
    const uint64_t wmask = slots >= 64 ? ~0ULL : (1ULL << slots) - 1;
    uint64_t p0 = Y * m0 - (uint64_t)fold;
    u128 spanA = (u128)(Y << a) * w + (u128)fold;
    u128 last = (spanA + (p0 & low)) >> shift;
    if (last >= FIT_MAX)
        return FIT_MAX;
    int id = att_id[i];
    if (built[id] != stamp) {
        built[id] = stamp;
        for (int k = 0; k < words; k++)
            compat[id][k] = ~fill[k] & wmask;
        for (int sl = 0; sl < slots; sl++)
            if (slot_att[sl] == att_of_id[id])
                compat[id][sl / 64] |= 1ULL << (sl % 64);
    }
    memset(allow, 0, sizeof(uint64_t) * (size_t)words);
    uint64_t b0 = p0 >> shift;
    if (words == 1) {
        for (uint64_t t2 = 0; t2 <= (uint64_t)last + carries; t2++)
            for (int v = 0; v < slots; v++)
                if (compat[id][0] >> ((v + b0 + t2) & smask) & 1)
                    allow[0] |= 1ULL << v;
    } else {
        for (uint64_t t2 = 0; t2 <= (uint64_t)last + carries; t2++)
            rot_or(allow, compat[id], (int)((b0 + t2) & smask), words);
    }
    return (uint64_t)last;
}
static int fit_alive(uint64_t F, int a, uint64_t lo, uint64_t hi) {
    const int slots = 1 << bits, words = slots >= 64 ? slots / 64 : 1;
    const uint64_t whole = (uint64_t)1 << shift, low = whole - 1, smask = (uint64_t)slots - 1;
    const uint64_t wmask = slots >= 64 ? ~0ULL : (1ULL << slots) - 1;
    uint64_t m0 = F + (lo << a), w = hi - lo;
    compat_reset();
    for (int f = 0; f < nfit; f++) {
        int q = fit_q[f];
        uint64_t xq = (1ULL << q) << a, jw = join_width(xq, 1ULL << q);
        if (jw == 0 || w < jw)
            continue; /* joined: the walk checks the family itself */
        u128 spanB = (u128)xq * w;
        uint64_t acc[32];
        uint64_t pB = (1ULL << q) * m0, vb = pB >> shift;
        u128 lastB = (spanB + (pB & low)) >> shift;
        if (lastB >= smask) {
            for (int k = 0; k < words; k++)
                acc[k] = wmask;
        } else {
            memset(acc, 0, sizeof acc);
            for (uint64_t v = 0; v <= (uint64_t)lastB; v++) {
                uint64_t sl = (vb + v) & smask;
                acc[sl / 64] |= 1ULL << (sl % 64);
            }
        }
        for (int i = 0; i < n; i++) {
            if (occ[i] >> q != 1)
                continue;
            uint64_t allow[32];
            uint64_t last = member_allow(i, occ[i] ^ (1ULL << q), a, m0, w, 1, allow);
            if (last >= FIT_MAX)
                continue;
            fit_members++;
            uint64_t any = 0;
            for (int k = 0; k < words; k++)
                any |= acc[k] &= allow[k];
            fit_words += (uint64_t)words * ((uint64_t)last + 3);
            if (!any)
                return 0;
        }
    }
    return 1;
}

/* The pair test of the families of squares q1 < q2 (--pair): the joint form of the fit test.
 * A member X = Y | S, S a nonempty subset of {q1, q2} and Y below q1, has index
 * top(Y*m - f) + sum of top(2^q*m) over S + c, c from 0 to |S| (the carries out of the low
 * bits). With v1 = top(2^q1*m) and v2 = top(2^q2*m), the members of S = {q1} allow a set A1 of
 * v1, those of {q2} a set A2 of v2, those of {q1, q2} a set A12 of v1 + v2 (each member: the
 * values that put it on a compatible slot from some slot Y takes over the node, with some
 * carry). v1 and v2 are bits of one number z = m >> (shift - q2) (v2 = z mod 2^bits,
 * v1 = (z >> (q2 - q1)) mod 2^bits), so the node lives only if some z it can take has v1 in A1,
 * v2 in A2 and v1 + v2 in A12. Sound: a magic of the node has its z so. Members whose Y moves
 * over more than FIT_MAX slots, or with squares between q1 and q2, are not tested. */
static int pair_q1 = -1, pair_q2 = -1, pair_t = 64;
static uint64_t pair_kills, pair_tested, pair_members;
static int bit_at(const uint64_t *s, uint64_t i, int words) {
    return (int)(s[(i / 64) % (uint64_t)words] >> (i % 64) & 1);
}
static uint64_t get64(const uint64_t *s, uint64_t i, int words, uint64_t smask) { /* bits i .. i+63, mod the table */
    if (words == 1) {
        uint64_t r = 0;
        for (int k = 0; k < 64; k++)
            r |= (uint64_t)(s[0] >> ((i + (uint64_t)k) & smask) & 1) << k;
        return r;
    }
    i &= smask;
    uint64_t W = i / 64, b = i % 64;
    uint64_t lo = s[W], hi = s[(W + 1) % (uint64_t)words];
    return b ? (lo >> b) | (hi << (64 - b)) : lo;
}
static int pair_alive(uint64_t F, uint64_t lo, uint64_t hi) {
    const int slots = 1 << bits, words = slots >= 64 ? slots / 64 : 1;
    const uint64_t smask = (uint64_t)slots - 1;
    const uint64_t wmask = slots >= 64 ? ~0ULL : (1ULL << slots) - 1;
    const int q1 = pair_q1, q2 = pair_q2, d = q2 - q1, zs = shift - q2;
    uint64_t m0 = F + lo, w = hi - lo;
    uint64_t A[3][32];
    pair_tested++;
    compat_reset();
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < words; j++)
            A[k][j] = wmask;
    const uint64_t below = (1ULL << q1) - 1;
    for (int i = 0; i < n; i++) {
        uint64_t R = occ[i] & ~below, Y = occ[i] & below;
        int k = R == 1ULL << q1 ? 0 : R == 1ULL << q2 ? 1 : R == ((1ULL << q1) | (1ULL << q2)) ? 2 : -1;
        if (k < 0)
            continue;
        uint64_t allow[32];
        if (member_allow(i, Y, 0, m0, w, k == 2 ? 2 : 1, allow) >= FIT_MAX)
            continue;
        pair_members++;
        uint64_t any = 0;
        for (int j = 0; j < words; j++)
            any |= A[k][j] &= allow[j];
        if (!any)
            return 0;
    }
    /* the z the node can take: z0 ..= z1, blocks of 2^d values of z sharing v1 */
    const int zbits = d + bits;
    uint64_t m1 = m0 + w;
    uint64_t z0 = m0 >> zs, z1 = m1 >> zs;
    if (zbits < 64 && z1 - z0 >= (1ULL << zbits) - 1) {
        z0 = 0;
        z1 = (1ULL << zbits) - 1;
    }
    uint64_t jmask = d >= 64 ? ~0ULL : (1ULL << d) - 1;
    for (uint64_t B = z0 >> d;; B++) {
        uint64_t v1 = B & smask;
        if (bit_at(A[0], v1, words)) {
            uint64_t jlo = B == z0 >> d ? z0 & jmask : 0, jhi = B == z1 >> d ? z1 & jmask : jmask;
            if (jhi - jlo >= smask) { /* every v2: some u in A2 with u + v1 in A12 */
                jlo = 0;
                jhi = smask;
            }
            uint64_t base = (B << d) & smask;
            for (uint64_t j = jlo; j <= jhi; j += 64) {
                uint64_t cut = jhi - j >= 63 ? ~0ULL : (1ULL << (jhi - j + 1)) - 1;
                uint64_t u = base + j;
                if (get64(A[1], u, words, smask) & get64(A[2], u + v1, words, smask) & cut)
                    return 1;
            }
        }
        if (B == z1 >> d)
            break;
    }
    return 0;
}

/* Subset e is exact at slot s: placed, its index marked; returns 0 at a clash. */
static int place(ent e, uint64_t s, int *undo, int *nu, int *changed) {
    uint64_t h = slot_att[s];
    if (h != 0 && h != e.a)
        return 0;
    if (h == 0) {
        slot_att[s] = e.a;
        undo[(*nu)++] = (int)s;
        *changed = 1;
    }
    placed[e.i] = 1;
    undo[(*nu)++] = 8192 + e.i;
    if (copy_q >= 0 && !(e.X >> copy_q & 1)) {
        if (free_at[s]++ == 0)
            filled[nfilled++] = (int)s;
        undo[(*nu)++] = 16384 + (int)s;
    }
    return 1;
}

/* The node m = F + (d << a), d in [lo, hi] inside a window of t bits; lists[from .. from+len)
 * the parent's listed subsets, `next` the first of order[a] never listed; `rebuild`: the low
 * bits changed, so the list is made again from every unplaced subset that joins. */
static void node(uint64_t F, int a, int t, uint64_t lo, uint64_t hi, int from, int len, int next,
                 int in_place, int rebuild) {
    if (nodes >= max_nodes)
        return;
    nodes++;
    nt[t]++;
    int mine = in_place ? from : from + len, count = 0;
    static int undo_pool[80][3 * 4096 + 16];
    static int depth;
    int *undo = undo_pool[depth++], nu = 0, alive = 1;
    const uint64_t whole = (uint64_t)1 << shift, low = whole - 1, smask = (1ULL << bits) - 1;
    build_order(a);
    if (rebuild) {
        next = 0;
    } else {
        if (!in_place)
            memcpy(lists + mine, lists + from, sizeof(ent) * (size_t)len);
        count = len;
    }
    for (int changed = 1; changed && alive;) {
        changed = 0;
        while (next < n && joins(thr[a][next], hi - lo)) {
            int i = order[a][next++];
            if (!placed[i] && !(fold && occ[i] == 0))
                lists[mine + count++] = (ent){occ[i], occ[i] << a, att[i], i};
        }
        int keep = 0;
        uint64_t w = hi - lo;
        for (int k = 0; k < count; k++) {
            ent e = lists[mine + k];
            uint64_t x = e.x, A = e.a;
            checks++;
            ct[t]++;
            uint64_t p0 = e.X * (F + (lo << a)) - (uint64_t)fold;
            u128 span = (u128)x * w + (u128)fold; /* past 2^64 when a family joins wider than the table */
            uint64_t fr = p0 & low, b0 = p0 >> shift;
            if (span < whole - fr) { /* exact */
                if (!place(e, b0 & smask, undo, &nu, &changed)) {
                    alive = 0;
                    break;
                }
                continue;
            }
            uint64_t last = (uint64_t)(span >> shift) + ((fr + ((uint64_t)span & low)) >> shift);
            if (compatible(b0, A) && compatible(b0 + last, A)) {
                lists[mine + keep++] = e;
                continue;
            }
            if (x == 0) { /* a constant in two slots (folded): left to the leaf */
                lists[mine + keep++] = e;
                continue;
            }
            uint64_t f = 0, l = last;
            while (f <= last && f <= smask && !compatible(b0 + f, A))
                f++, steps++; /* a whole turn of the table without a compatible slot: none */
            if (f > last || f > smask) {
                alive = 0;
                break;
            }
            while (!compatible(b0 + l, A))
                l--, steps++;
            uint64_t lo0 = lo, hi0 = hi;
            u128 rem = whole - fr;
            if (f > 0)
                lo = lo0 + div_up(rem + (u128)(f - 1) * whole - (u128)fold, x);
            if (l < last) {
                uint64_t h = lo0 + div_up(rem + (u128)l * whole, x) - 1;
                hi = fold && h > hi0 ? hi0 : h;
            }
            if (lo != lo0 || hi != hi0) {
                changed = 1;
                w = hi - lo;
            }
            if (lo > hi) {
                alive = 0;
                break;
            }
            if (fold && f == l) { /* one compatible slot left: placed there */
                if (!place(e, (b0 + f) & smask, undo, &nu, &changed)) {
                    alive = 0;
                    break;
                }
                continue;
            }
            lists[mine + keep++] = e;
        }
        count = keep;
    }
    if (alive && copy_q >= 0 && t > 0 && !copy_alive(F, a, lo, hi)) {
        alive = 0;
        copy_kills++;
    }
    if (alive && nfit && t > 0 && !fit_alive(F, a, lo, hi)) {
        alive = 0;
        fit_kills++;
    }
    if (alive && pair_q1 >= 0 && t > 0 && t <= pair_t && !pair_alive(F, lo, hi)) {
        alive = 0;
        pair_kills++;
    }
    if (!alive)
        dt[t]++;
    if (alive) {
        if (t == 0) {
            uint64_t m = F;
            if (fold) {
                uint64_t neg = ((1ULL << period) - m) & ((1ULL << period) - 1);
                magics += found(m);
                if (neg != m)
                    magics += found(neg);
            } else {
                magics += found(m);
            }
        } else if (t <= SW && a < NB) {
            for (uint64_t b = 0; b < 2; b++) { /* the lowest free bit: d = 2 d' + b */
                if (hi < b)
                    continue;
                uint64_t l2 = lo <= b ? 0 : (lo - b + 1) / 2, h2 = (hi - b) / 2;
                if (l2 <= h2)
                    node(F | b << a, a + 1, t - 1, l2, h2, mine, count, 0, 0, 1);
            }
        } else {
            while (t > 0 && (lo >> (t - 1)) == (hi >> (t - 1))) {
                uint64_t half = 1ULL << (t - 1);
                if (lo >= half) {
                    F |= half << a;
                    lo -= half;
                    hi -= half;
                }
                t--;
            }
            if (t == 0) {
                node(F, a, 0, 0, 0, mine, count, next, 1, 0);
            } else {
                uint64_t half = 1ULL << (t - 1);
                node(F, a, t - 1, lo, half - 1, mine, count, next, 0, 0);
                node(F | half << a, a, t - 1, 0, hi - half, mine, count, next, 1, 0);
            }
        }
    }
    while (nu) {
        int u = undo[--nu];
        if (u >= 16384) {
            if (--free_at[u - 16384] == 0)
                nfilled--; /* undone in the reverse order: the last filled */
        } else if (u >= 8192)
            placed[u - 8192] = 0;
        else
            slot_att[u] = 0;
    }
    depth--;
}

static int square(const char *s) {
    if (strlen(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') {
        fprintf(stderr, "window-walk: not a square: %s\n", s);
        exit(2);
    }
    return (s[1] - '1') * 8 + (s[0] - 'a');
}

static void task(uint64_t j, int width, int task_bits) {
    if (fold && task_bits > 0 && j >= 1ULL << (task_bits - 1)) {
        nodes++; /* the upper half's task: its values are the lower half's negations */
        if (j == 1ULL << (task_bits - 1))
            magics += found(1ULL << (period - 1));
        return;
    }
    uint64_t top = width == 64 ? ~0ULL : (1ULL << width) - 1;
    if (fold && task_bits == 0) {
        magics += found(1ULL << (period - 1));
        top = (1ULL << (period - 1)) - 1;
    }
    node(j << width, 0, width, 0, top, 0, 0, 0, 0, 1);
}

int main(int argc, char **argv) {
    int brute = 0, keep_file = -1;
    char **pos = calloc((size_t)argc, sizeof *pos);
    int np = 0;
    for (int i = 0; i < 64; i++)
        kb_of[i] = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--fold")) {
            fold = 1;
        } else if (!strcmp(argv[i], "--profile")) {
            profile = 1;
        } else if (!strcmp(argv[i], "--brute")) {
            brute = 1;
        } else if (!strcmp(argv[i], "--bottom") && i + 2 < argc) {
            SW = atoi(argv[++i]);
            NB = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--join") && i + 1 < argc) {
            const char *s = argv[++i];
            char sq[3] = {s[0], s[1], 0};
            if (strlen(s) < 4 || s[2] != '=') {
                fprintf(stderr, "window-walk: --join SQ=LOGK\n");
                return 2;
            }
            kb_of[square(sq)] = atoi(s + 3);
            if (kb_of[square(sq)] < 0 || kb_of[square(sq)] > 40) {
                fprintf(stderr, "window-walk: --join SQ=LOGK with LOGK from 0 to 40\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--max-nodes") && i + 1 < argc) {
            max_nodes = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            keep_file = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--fit") && i + 1 < argc && nfit < 8) {
            fit_q[nfit++] = square(argv[++i]);
        } else if (!strcmp(argv[i], "--pair") && i + 3 < argc) {
            pair_q1 = square(argv[++i]);
            pair_q2 = square(argv[++i]);
            pair_t = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--copy") && i + 1 < argc) {
            copy_q = square(argv[++i]);
        } else {
            pos[np++] = argv[i];
        }
    }
    if (np != 4) {
        fprintf(stderr, "usage: window-walk [--fold] rook|bishop SQUARE BITS TASK_BITS [--bottom SW NB]"
                        " [--join SQ=LOGK]... [--copy SQ] [--fit SQ]... [--pair Q1 Q2 T] [--shape KEEP] [--max-nodes N] [--profile] [--brute]"
                        " < tasks\n");
        return 2;
    }
    int rook = !strcmp(pos[0], "rook");
    if (!rook && strcmp(pos[0], "bishop")) {
        fprintf(stderr, "window-walk: not a piece: %s\n", pos[0]);
        return 2;
    }
    int sq = square(pos[1]);
    bits = atoi(pos[2]);
    int task_bits = atoi(pos[3]);
    if (bits < 1 || bits > 12) {
        fprintf(stderr, "window-walk: bits must be 1 to 12\n");
        return 2;
    }
    shift = 64 - bits;
    for (int i = 0; i < 64; i++)
        if (kb_of[i] < 0)
            kb_of[i] = bits - 1 < 7 ? bits - 1 : 7;
    uint64_t mask = ray_walk(sq, 0, rook, 1), sub = 0;
    int up = 0;
    if (keep_file >= 0) { /* the low-rook shape of src/exhaust/tests.rs */
        if (!rook || sq >= 16) {
            fprintf(stderr, "window-walk: --shape needs a rook of rank 1 or 2\n");
            return 2;
        }
        uint64_t rank = mask & (0xffULL << (sq / 8 * 8)), keep = rank;
        for (int s = 0, kept = 0; s < 64 && kept < keep_file; s++)
            if ((mask & ~rank) >> s & 1) {
                keep |= 1ULL << s;
                kept++;
            }
        mask = keep;
        up = __builtin_clzll(mask);
    }
    n = 0;
    do { /* carry-rippler; with --shape, moved up by `up` squares, attacks of the real square */
        occ[n] = sub << up;
        att[n] = ray_walk(sq, sub, rook, 0);
        n++;
        sub = (sub - mask) & mask;
    } while (sub);
    mask <<= up;
    period = 64 - __builtin_ctzll(mask);
    if (task_bits < 0 || task_bits > period || task_bits > 40) {
        fprintf(stderr, "window-walk: task bits must be 0 to %d\n", period < 40 ? period : 40);
        return 2;
    }
    if (copy_q >= 0) {
        if (!(mask >> copy_q & 1) || copy_q < shift || 64 - copy_q > 11) {
            fprintf(stderr, "window-walk: --copy needs a mask square of at least bit %d\n", shift);
            return 2;
        }
        for (int i = 0; i < n; i++) {
            if (occ[i] >> copy_q & 1)
                continue;
            uint64_t with = att[i];
            for (int j = 0; j < n; j++)
                if (occ[j] == (occ[i] | 1ULL << copy_q))
                    with = att[j];
            uint64_t was = phi(att[i]);
            if (was == ~0ULL) {
                phi_from[nphi] = att[i];
                phi_to[nphi++] = with;
            } else if (was != with) {
                fprintf(stderr, "window-walk: --copy: the attack with the square is not a function"
                                " of the attack without it\n");
                return 2;
            }
        }
    }
    if (nfit && SW >= 0) {
        fprintf(stderr, "window-walk: --fit is not written for --bottom\n");
        return 2;
    }
    if (pair_q1 >= 0) {
        if (SW >= 0 || pair_q1 >= pair_q2 || pair_q2 > shift || pair_q2 > 63 ||
            !(mask >> pair_q1 & 1) || !(mask >> pair_q2 & 1)) {
            fprintf(stderr, "window-walk: --pair Q1 Q2 T needs two mask squares, Q1 below Q2, Q2 at"
                            " most bit %d, and no --bottom\n", shift);
            return 2;
        }
    }
    for (int f = 0; f < nfit; f++) {
        if (!(mask >> fit_q[f] & 1)) {
            fprintf(stderr, "window-walk: --fit needs a square of the mask\n");
            return 2;
        }
    }
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < natt && att_of_id[k] != att[i])
            k++;
        if (k == natt)
            att_of_id[natt++] = att[i];
        att_id[i] = k;
    }
    int width = period - task_bits;
    lists = malloc(sizeof(ent) * (size_t)n * (size_t)(width + 4) * 2);
    long ntasks = 0;
    if (brute) {
        record = 1;
        if (period > 34) {
            fprintf(stderr, "window-walk: brute force only up to periods of 2^34\n");
            return 2;
        }
        for (uint64_t j = 0; j < 1ULL << task_bits; j++, ntasks++)
            task(j, width, task_bits);
    } else {
        unsigned long long j;
        int got;
        while ((got = scanf("%llu", &j)) == 1) {
            if (j >= 1ULL << task_bits) {
                fprintf(stderr, "window-walk: task %llu is not below 2^%d\n", j, task_bits);
                return 2;
            }
            uint64_t n0 = nodes, c0 = checks;
            task(j, width, task_bits);
            ntasks++;
            if (profile)
                fprintf(stderr, "task %llu: %llu nodes, %llu checks\n", j,
                        (unsigned long long)(nodes - n0), (unsigned long long)(checks - c0));
        }
        if (got != EOF) {
            fprintf(stderr, "window-walk: stdin holds something other than task numbers\n");
            return 2;
        }
    }
    printf("%s %s at %d bits%s, 2^%d tasks, %ld run: %llu nodes, %llu checks (%.0f a node), "
           "%llu trim steps, %llu magics", pos[0], pos[1], bits, fold ? " folded" : "", task_bits,
           ntasks, (unsigned long long)nodes, (unsigned long long)checks,
           nodes ? (double)checks / (double)nodes : 0.0, (unsigned long long)steps,
           (unsigned long long)magics);
    if (copy_q >= 0)
        printf(", %llu killed by the copy test", (unsigned long long)copy_kills);
    if (nfit)
        printf(", %llu killed by the fit test (%llu members tested, %llu words)",
               (unsigned long long)fit_kills, (unsigned long long)fit_members,
               (unsigned long long)fit_words);
    if (pair_q1 >= 0)
        printf(", %llu killed by the pair test (%llu nodes tested, %llu members)",
               (unsigned long long)pair_kills, (unsigned long long)pair_tested,
               (unsigned long long)pair_members);
    if (nodes >= max_nodes)
        printf(", STOPPED at --max-nodes (counts are lower bounds)");
    printf("\n");
    if (profile)
        for (int t = 69; t >= 0; t--)
            if (nt[t])
                fprintf(stderr, "window 2^%-2d %10llu nodes %10llu died %6.0f checks a node\n", t,
                        (unsigned long long)nt[t], (unsigned long long)dt[t],
                        (double)ct[t] / (double)nt[t]);
    if (brute) { /* the definition at every m of the period, a stamped table */
        static uint64_t stamp[4096], a[4096];
        uint64_t count = 0, mismatches = 0;
        size_t k = 0;
        qsort(found_list, nfound, sizeof(uint64_t), by_value);
        for (uint64_t m = 0; m < 1ULL << period; m++) {
            int ok = 1;
            for (int i = 0; i < n && ok; i++) {
                int idx = (int)((occ[i] * m) >> shift);
                if (stamp[idx] == m + 1 && a[idx] != att[i])
                    ok = 0;
                stamp[idx] = m + 1;
                a[idx] = att[i];
            }
            if (!ok)
                continue;
            count++;
            if (k < nfound && found_list[k] == m)
                k++;
            else
                mismatches++; /* brute force's magic the walk did not find */
        }
        mismatches += nfound - k; /* the walk's magics brute force did not confirm (or twice) */
        printf("brute force: %llu magics; %s\n", (unsigned long long)count,
               mismatches ? "MISMATCH" : "the same magics as the walk");
        return mismatches ? 1 : 0;
    }
    return 0;
}
