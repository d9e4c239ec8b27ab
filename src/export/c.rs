//! The C back end: a single-file header in the stb style. Every translation unit may include
//! it and sees declarations (and the inline lookups); the one unit that defines
//! `MAGICHUNT_IMPLEMENTATION` (with `--prefix mh_`: `MH_IMPLEMENTATION`) before the include
//! also gets the definitions: the magics, the attack tables and `init_attack_tables()`. So
//! there is one table however many files include it, and a forgotten or doubled definition
//! is a link error, never a silent second copy.
//!
//! It compiles as C99, C11 and C++17 under `-Wall -Wextra -Wshadow -Wcast-qual
//! -Wmissing-declarations -pedantic -Werror` (the tests build it with `cc` and `c++`).

use std::fmt::Write as _;

use super::{
    comment_block, fill_sizes, hex, slot_note, Options, Slot, Tables, C_IMPLEMENTATION_END,
    C_IMPLEMENTATION_START,
};
use crate::piece::Piece;
use crate::question::Formula;

/// How to use the header, for its opening comment.
const USAGE: &str = "Use: any number of files may #include this header; they see declarations only.
Exactly one file writes `#define $IIMPLEMENTATION` before its #include and so holds the
definitions (without it every lookup is a link error, with it twice a duplicate symbol).
C and C++ files may share it (the declarations are extern \"C\").";

/// The usage line of `--with-lookup`.
const USAGE_LOOKUP: &str =
    "Call $pinit_attack_tables() once at startup, before the first $prook_attacks() or
$pbishop_attacks(); the lookups are static inline over the one extern table.";

/// Declarations opening the header, after its comment.
const DECLARATIONS: &str = r#"
#ifndef $IMAGICS_H
#define $IMAGICS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One square's magic: the slot of occupancy occ in @WHOSE@ table is
   offset + (((@KEY@) * magic) >> shift). */
struct $pmagic_entry {
    uint64_t mask;
    uint64_t magic;
    uint32_t shift;
    uint32_t offset;
};

@SIZES@
/* Rook and bishop magics, squares a1 (0) to h8 (63); defined where $IIMPLEMENTATION is. */
extern const struct $pmagic_entry $PROOK_MAGICS[64];
extern const struct $pmagic_entry $PBISHOP_MAGICS[64];
"#;

/// The lookup declarations of `--with-lookup`: the tables stay extern, the lookups inline.
const LOOKUP_DECLARATIONS: &str = r"
@TABLES_DECLARED@
/* Fills the attack tables by the slow ray walk. Call it once at startup. */
void $pinit_attack_tables(void);

/* Index into @INTO@ table for the occupied squares occ. */
static inline uint32_t $islot(const struct $pmagic_entry *e, uint64_t occ)
{
    return e->offset + (uint32_t)(((@E_KEY@) * e->magic) >> e->shift);
}

/* Rook attacks from square (0 = a1 .. 63 = h8) given the occupied squares. */
static inline uint64_t $prook_attacks(int square, uint64_t occupied)
{
    return $irook_table[$islot(&$PROOK_MAGICS[square], occupied)];
}

/* Bishop attacks from square (0 = a1 .. 63 = h8) given the occupied squares. */
static inline uint64_t $pbishop_attacks(int square, uint64_t occupied)
{
    return $ibishop_table[$islot(&$PBISHOP_MAGICS[square], occupied)];
}
";

/// The definitions of `--with-lookup`: the tables, the ray walk and the fill.
const LOOKUP_DEFINITIONS: &str = r"
@TABLES_DEFINED@
/* Squares a slider on square attacks, walking each ray to the first occupied square
   (included). Slow: used only to fill the tables. */
static uint64_t $iray_attacks(int square, uint64_t occupied, const int dirs[4][2])
{
    uint64_t attacks = 0;
    int d;
    for (d = 0; d < 4; d++) {
        int file = square % 8 + dirs[d][0];
        int rank = square / 8 + dirs[d][1];
        while (file >= 0 && file < 8 && rank >= 0 && rank < 8) {
            uint64_t bit = UINT64_C(1) << (rank * 8 + file);
            attacks |= bit;
            if (occupied & bit)
                break;
            file += dirs[d][0];
            rank += dirs[d][1];
        }
    }
    return attacks;
}

/* Fills one piece's table: every blocker subset of every square's mask. */
static void $ifill(const struct $pmagic_entry magics[64], uint64_t *table, const int dirs[4][2])
{
    int square;
    for (square = 0; square < 64; square++) {
        const struct $pmagic_entry *e = &magics[square];
        uint64_t occ = 0;
        do {
            table[$islot(e, occ)] = $iray_attacks(square, occ, dirs);
            occ = (occ - e->mask) & e->mask;
        } while (occ);
    }
}

void $pinit_attack_tables(void)
{
    static const int rook_dirs[4][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}};
    static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    $ifill($PROOK_MAGICS, $irook_table, rook_dirs);
    $ifill($PBISHOP_MAGICS, $ibishop_table, bishop_dirs);
}
";

/// The sizes, the same names in every layout: one array holds every attack set, each piece's
/// slots counted from its start in it (fancy and tight: the rook table, then the bishop table;
/// packed: both from 0, sharing it).
const SIZES: &str =
    "/* The attack table: $PATTACK_TABLE_SIZE entries hold every attack set. A rook's slots are
   counted from $PROOK_TABLE_START in it and reach $PROOK_TABLE_SIZE entries from there, a
   bishop's from $PBISHOP_TABLE_START and $PBISHOP_TABLE_SIZE. Every layout defines these
   names (@LAYOUT_NOTE@). */
#define $PATTACK_TABLE_SIZE @ATTACK_SIZE@
#define $PROOK_TABLE_START @ROOK_START@
#define $PROOK_TABLE_SIZE @ROOK_SIZE@
#define $PBISHOP_TABLE_START @BISHOP_START@
#define $PBISHOP_TABLE_SIZE @BISHOP_SIZE@
";

/// The table of `--with-lookup`, declared: one array in every layout, and each piece's part
/// of it under the same names.
const TABLES_DECLARED: &str = "/* The attack table, defined where $IIMPLEMENTATION is and filled by
   $pinit_attack_tables(). In every layout, $irook_table and $ibishop_table
   point to where each piece's slots are counted from. */
extern uint64_t $iattack_table[$PATTACK_TABLE_SIZE];
#define $irook_table ($iattack_table + $PROOK_TABLE_START)
#define $ibishop_table ($iattack_table + $PBISHOP_TABLE_START)
";

/// The table of `--with-lookup`, defined.
const TABLES_DEFINED: &str = "uint64_t $iattack_table[$PATTACK_TABLE_SIZE];
";

/// Fills the layout's and the formula's placeholders of a template (before the prefix).
fn layout_text(template: &str, layout: &Tables) -> String {
    let packed = layout.packed.is_some();
    let (key, e_key) = match layout.formula {
        Formula::Plain => ("occ & mask", "occ & e->mask"),
        Formula::Black => ("occ | ~mask", "occ | ~e->mask"),
    };
    fill_sizes(
        template
            .replace("@SIZES@", SIZES)
            .replace("@TABLES_DECLARED@", TABLES_DECLARED)
            .replace("@TABLES_DEFINED@", TABLES_DEFINED)
            .replace(
                "@LAYOUT_NOTE@",
                if packed {
                    "packed: both pieces start at 0 and share the one array"
                } else {
                    "here the rook table, then the bishop table"
                },
            )
            .replace("@INTO@", if packed { "the shared" } else { "a piece's" })
            .replace("@KEY@", key)
            .replace("@E_KEY@", e_key),
        layout,
    )
}

/// Renders the C header.
pub(super) fn render(layout: &Tables, header: &[String], options: &Options) -> String {
    if let Some(ix) = &layout.indexed {
        return super::indexed::render_c(layout, ix, header, options);
    }
    let names = &options.prefix;
    let mut lines = header.to_vec();
    lines.push(String::new());
    lines.extend(names.apply(USAGE).lines().map(String::from));
    if options.with_lookup {
        lines.extend(names.apply(USAGE_LOOKUP).lines().map(String::from));
    }
    let mut out = String::from("/*\n");
    comment_block(&mut out, " * ", &lines);
    out.push_str(" */\n");
    out.push_str(&names.apply(&layout_text(DECLARATIONS, layout)));
    if options.with_lookup {
        out.push_str(&names.apply(&layout_text(LOOKUP_DECLARATIONS, layout)));
    }
    out.push_str(&names.apply(C_IMPLEMENTATION_START));
    for piece in Piece::ALL {
        let (upper, name) = match piece {
            Piece::Rook => ("ROOK", "Rook"),
            Piece::Bishop => ("BISHOP", "Bishop"),
        };
        let _ = writeln!(
            out,
            "\n/* {name} magics, squares a1 (0) to h8 (63). */\nconst struct {}magic_entry {}{upper}_MAGICS[64] = {{",
            names.lower(),
            names.upper()
        );
        for s in layout.slots(piece) {
            out.push_str(&entry_line(s));
        }
        out.push_str("};\n");
    }
    if options.with_lookup {
        out.push_str(&names.apply(&layout_text(LOOKUP_DEFINITIONS, layout)));
    }
    out.push_str(&names.apply(C_IMPLEMENTATION_END));
    out
}

fn entry_line(s: &Slot) -> String {
    format!(
        "    {{UINT64_C({}), UINT64_C({}), {}, {}}}, /* {} */\n",
        hex(s.mask),
        hex(s.entry.magic),
        s.shift,
        s.offset,
        slot_note(s)
    )
}
