/* engine.c: an engine with tables of its own called rook_attacks and bishop_attacks.
   The export, made with --prefix mh_, names everything mh_ or MH_ and keeps clear of them. */
#include <stdio.h>
#include <stdint.h>

uint64_t rook_attacks[64][4096];
uint64_t bishop_attacks[64][512];

#define MH_IMPLEMENTATION /* this file holds the export's tables too */
#include "magics.h"

int main(void)
{
    mh_init_attack_tables();
    rook_attacks[0][0] = mh_rook_attacks(0, 0); /* a1, empty board */
    bishop_attacks[0][0] = mh_bishop_attacks(0, 0);
    printf("rook a1 %016llx, bishop a1 %016llx, %d rook entries\n",
           (unsigned long long)rook_attacks[0][0], (unsigned long long)bishop_attacks[0][0],
           MH_ROOK_TABLE_SIZE);
    return 0;
}
