/* magics.c: the one file that holds the tables. */
#define MAGICHUNT_IMPLEMENTATION
#include "magics.h"
