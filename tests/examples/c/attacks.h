/* attacks.h: the engine's own header, included by any number of files. */
#ifndef ATTACKS_H
#define ATTACKS_H

#include "magics.h" /* declarations and inline lookups only */

uint64_t queen_attacks(int square, uint64_t occupied);

#endif
