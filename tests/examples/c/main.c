/* main.c: fills the tables once, then any file may look up. */
#include <stdio.h>

#include "attacks.h"

int main(void)
{
    uint64_t occupied = UINT64_C(1) << 35; /* a pawn on d5 */
    uint64_t queen;
    int n = 0;
    init_attack_tables();
    for (queen = queen_attacks(27, occupied); queen; queen &= queen - 1) /* a queen on d4 */
        n++;
    printf("queen d4, pawn d5: %d squares\n", n);
    return n == 24 ? 0 : 1;
}
