/* attacks.c: looks up in the one table, inline. */
#include "attacks.h"

uint64_t queen_attacks(int square, uint64_t occupied)
{
    return rook_attacks(square, occupied) | bishop_attacks(square, occupied);
}
