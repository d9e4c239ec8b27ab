/* The one file holding the tables when bench.c is built with -DSPLIT. */
#define MAGICHUNT_IMPLEMENTATION
#include "magics.h"
