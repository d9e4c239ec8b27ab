/* Legal move generation and perft over one backend's slider lookups. Included once per
 * backend with BK defined as its name: BK_rook(sq, occ) and BK_bishop(sq, occ) are the
 * lookups, and the functions defined here are gen_BK and perft_BK.
 *
 * The generator asks what an engine's legal generator asks (as Stockfish's does): the
 * checkers (a rook and a bishop lookup from the king), the attacks of every slider of the
 * side to move (a queen: both), whether each square the king may step to is attacked with the
 * king taken off the board (a rook and a bishop lookup each, skipped when a knight, pawn or
 * king already attacks it), the squares a castling king crosses, and the discovered check of
 * an en-passant capture. Pins come from the empty-board rays and BETWEEN, not from lookups. */

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define FN(x) CAT(x, BK)
#define ROOK_AT(s, o) CAT(BK, rook)(s, o)
#define BISHOP_AT(s, o) CAT(BK, bishop)(s, o)

/* Is sq attacked by colour by, with occ the occupied squares? */
static inline int FN(attacked)(const struct position *p, int sq, uint64_t occ, int by)
{
    uint64_t them = p->colour[by];
    if ((KNIGHT_AT[sq] & p->type[KNIGHT] & them) || (PAWN_AT[by ^ 1][sq] & p->type[PAWN] & them) ||
        (KING_AT[sq] & p->type[KING] & them))
        return 1;
    uint64_t queens = p->type[QUEEN] & them;
    return (ROOK_AT(sq, occ) & ((p->type[ROOK] & them) | queens)) ||
           (BISHOP_AT(sq, occ) & ((p->type[BISHOP] & them) | queens));
}

static inline move *FN(pawn_moves)(move *out, int from, int to, int flags)
{
    if (to >= 56 || to < 8) {
        for (int promo = QUEEN; promo >= KNIGHT; promo--)
            *out++ = MOVE(from, to, promo, flags);
    } else
        *out++ = MOVE(from, to, 0, flags);
    return out;
}

/* Writes the legal moves of p to out; returns how many. */
static int FN(gen)(const struct position *p, move *out)
{
    move *const start = out;
    int us = p->side, them = us ^ 1;
    uint64_t mine = p->colour[us], theirs = p->colour[them], occ = mine | theirs;
    int ksq = lsb(p->type[KING] & mine);
    uint64_t their_rq = (p->type[ROOK] | p->type[QUEEN]) & theirs;
    uint64_t their_bq = (p->type[BISHOP] | p->type[QUEEN]) & theirs;

    uint64_t checkers = ((KNIGHT_AT[ksq] & p->type[KNIGHT]) | (PAWN_AT[us][ksq] & p->type[PAWN]) |
                         (ROOK_AT(ksq, occ) & (p->type[ROOK] | p->type[QUEEN])) |
                         (BISHOP_AT(ksq, occ) & (p->type[BISHOP] | p->type[QUEEN]))) &
                        theirs;
    uint64_t pinned = 0;
    for (uint64_t snipers = (ROOK_EMPTY[ksq] & their_rq) | (BISHOP_EMPTY[ksq] & their_bq); snipers;
         snipers &= snipers - 1) {
        uint64_t b = BETWEEN[ksq][lsb(snipers)] & occ;
        if (b && !(b & (b - 1)))
            pinned |= b & mine;
    }

    uint64_t without_king = occ ^ bit(ksq);
    for (uint64_t b = KING_AT[ksq] & ~mine; b; b &= b - 1)
        if (!FN(attacked)(p, lsb(b), without_king, them))
            *out++ = MOVE(ksq, lsb(b), 0, 0);
    if (checkers & (checkers - 1))
        return (int)(out - start);

    uint64_t target = checkers ? BETWEEN[ksq][lsb(checkers)] | checkers : ~mine;
    for (uint64_t b = p->type[KNIGHT] & mine & ~pinned; b; b &= b - 1)
        for (uint64_t t = KNIGHT_AT[lsb(b)] & target; t; t &= t - 1)
            *out++ = MOVE(lsb(b), lsb(t), 0, 0);
    for (int type = BISHOP; type <= QUEEN; type++)
        for (uint64_t b = p->type[type] & mine; b; b &= b - 1) {
            int from = lsb(b);
            uint64_t t = type == BISHOP ? BISHOP_AT(from, occ)
                         : type == ROOK ? ROOK_AT(from, occ)
                                        : BISHOP_AT(from, occ) | ROOK_AT(from, occ);
            t &= target;
            if (pinned & bit(from))
                t &= LINE[ksq][from];
            for (; t; t &= t - 1)
                *out++ = MOVE(from, lsb(t), 0, 0);
        }

    int up = us == WHITE ? 8 : -8;
    for (uint64_t b = p->type[PAWN] & mine; b; b &= b - 1) {
        int from = lsb(b);
        uint64_t allowed = pinned & bit(from) ? LINE[ksq][from] & target : target;
        int to = from + up;
        if (!(occ & bit(to))) {
            if (allowed & bit(to))
                out = FN(pawn_moves)(out, from, to, 0);
            int rank = from >> 3;
            if ((rank == 1 || rank == 6) && (rank == 1) == (us == WHITE) &&
                !(occ & bit(to + up)) && (allowed & bit(to + up)))
                *out++ = MOVE(from, to + up, 0, 0);
        }
        for (uint64_t t = PAWN_AT[us][from] & theirs & allowed; t; t &= t - 1)
            out = FN(pawn_moves)(out, from, lsb(t), 0);
        if (p->ep >= 0 && (PAWN_AT[us][from] & bit(p->ep))) {
            /* Legal when the king is not attacked once both pawns have left their squares
             * and ours stands on the ep square (the captured pawn may be the checker). */
            int captured = p->ep ^ 8;
            uint64_t after = (occ ^ bit(from) ^ bit(captured)) | bit(p->ep);
            uint64_t knights_pawns = (KNIGHT_AT[ksq] & p->type[KNIGHT]) |
                                     (PAWN_AT[us][ksq] & p->type[PAWN] & ~bit(captured));
            if (!(knights_pawns & theirs) && !(ROOK_AT(ksq, after) & their_rq) &&
                !(BISHOP_AT(ksq, after) & their_bq))
                *out++ = MOVE(from, p->ep, 0, MOVE_EP);
        }
    }

    if (!checkers) {
        int k = us == WHITE ? 1 : 4, q = k << 1, base = us == WHITE ? 0 : 56;
        if ((p->castle & k) && !(occ & (bit(base + 5) | bit(base + 6))) &&
            !FN(attacked)(p, base + 5, occ, them) && !FN(attacked)(p, base + 6, occ, them))
            *out++ = MOVE(ksq, base + 6, 0, MOVE_CASTLE);
        if ((p->castle & q) && !(occ & (bit(base + 1) | bit(base + 2) | bit(base + 3))) &&
            !FN(attacked)(p, base + 3, occ, them) && !FN(attacked)(p, base + 2, occ, them))
            *out++ = MOVE(ksq, base + 2, 0, MOVE_CASTLE);
    }
    return (int)(out - start);
}

/* Leaf nodes at depth (at least 1); the last ply is counted, not played. */
static uint64_t FN(perft)(const struct position *p, int depth)
{
    move moves[256];
    int n = FN(gen)(p, moves);
    if (depth <= 1)
        return (uint64_t)n;
    uint64_t nodes = 0;
    for (int i = 0; i < n; i++) {
        struct position q = *p;
        make(&q, moves[i]);
        nodes += FN(perft)(&q, depth - 1);
    }
    return nodes;
}

#undef CAT_
#undef CAT
#undef FN
#undef ROOK_AT
#undef BISHOP_AT
