#!/usr/bin/env python3
"""patch.py SRC [--magichunt]: prepares a Stockfish `src/` folder for the perft comparison.

Always: removes the one `verify_network();` line of `Engine::perft`, which ends the engine when
no network is loaded (perft needs none, and none can be downloaded here). With --magichunt:
`attacks_bb` answers rooks and bishops from magichunt's header `magichunt.h` (exported with the
prefix `mh_`) under `#ifdef USE_MAGICHUNT`, and `Attacks::init` fills its tables first.
Written against official-stockfish/Stockfish 762dd1da9; fails loudly where the source differs.
"""
import sys


def edit(path, old, new):
    text = open(path).read()
    if text.count(old) != 1:
        sys.exit(f"{path}: expected exactly one {old.splitlines()[0]!r}")
    open(path, "w").write(text.replace(old, new))


src = sys.argv[1]
edit(f"{src}/engine.cpp",
     "Engine::perft(const std::string& fen, Depth depth, bool isChess960) {\n    verify_network();\n",
     "Engine::perft(const std::string& fen, Depth depth, bool isChess960) {\n")
if "--magichunt" in sys.argv[2:]:
    edit(f"{src}/attacks.h", '#include "types.h"\n#include "bitboard.h"\n',
         '#include "types.h"\n#include "bitboard.h"\n#ifdef USE_MAGICHUNT\n#include "magichunt.h"\n#endif\n')
    edit(f"{src}/attacks.h", """    case BISHOP :
    case ROOK :
        return magic(s, Pt).attacks_bb(s, occupied);""", """#ifdef USE_MAGICHUNT
    case BISHOP :
        return mh_bishop_attacks(int(s), occupied);
    case ROOK :
        return mh_rook_attacks(int(s), occupied);
#else
    case BISHOP :
    case ROOK :
        return magic(s, Pt).attacks_bb(s, occupied);
#endif""")
    edit(f"{src}/attacks.cpp", '#include "attacks.h"\n',
         '#ifdef USE_MAGICHUNT\n#define MH_IMPLEMENTATION\n#endif\n#include "attacks.h"\n')
    edit(f"{src}/attacks.cpp", "void init() {\n",
         "void init() {\n#ifdef USE_MAGICHUNT\n    mh_init_attack_tables();\n#endif\n")
