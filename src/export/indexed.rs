//! The C and Rust exports of the indexed layout: the magics, the id array and the lists, all
//! as data (no init, no allocator), and with `--with-lookup` the lookups
//!
//! ```text
//! attack_lists[list + attack_ids[offset + index(occ)]]          own lists
//! attack_lists[list + attack_ids[offset + index(occ)]] & rays   shared lists
//! ```
//!
//! under the same names as every layout's (`rook_attacks`, `bishop_attacks`,
//! `init_attack_tables`, which here does nothing: the tables are data). The data arrays are
//! written after everything a prefix names, never through [`super::Prefix::apply`].

use std::fmt::Write as _;

use super::{
    comment_block, fill_sizes, hex, slot_note, Indexed, Options, Slot, Tables,
    C_IMPLEMENTATION_END, C_IMPLEMENTATION_START,
};
use crate::piece::Piece;
use crate::question::Formula;

/// How to use the C header, for its opening comment.
const USAGE_C: &str =
    "Use: any number of files may #include this header; they see declarations only.
Exactly one file writes `#define $IIMPLEMENTATION` before its #include and so holds the
definitions: the magics, the id array and the lists, all constant data (without it every
lookup is a link error, with it twice a duplicate symbol). C and C++ files may share it.";

/// The usage lines of `--with-lookup` (C and Rust).
const USAGE_LOOKUP: &str =
    "The tables are data: $prook_attacks() and $pbishop_attacks() answer from the first call;
$pinit_attack_tables() does nothing and is there for engines written for the other layouts.";

/// How to use the Rust module, for its opening comment.
const USAGE_RUST: &str = "Use: `mod magics;` on this file, then `magics::$PROOK_MAGICS[square].attacks(occupied)` and the like.
No std, no allocator, no init: every table is a constant, so the file builds in a #![no_std] crate.";

/// The C declarations, after the comment.
const C_DECLARATIONS: &str = r#"
#ifndef $IMAGICS_H
#define $IMAGICS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One square's magic. The id of occupancy occ is
   $iattack_ids[offset + (((@KEY@) * magic) >> shift)], and its attacks are
   $iattack_lists[list + id]@MASK_NOTE@. */
struct $pmagic_entry {
    uint64_t mask;
    uint64_t magic;
@RAYS_FIELD@    uint32_t offset;
    uint16_t list;
    uint8_t shift;
};

/* The id array: $PATTACK_TABLE_SIZE one-byte ids hold every square's slots. A rook's slots
   are counted from $PROOK_TABLE_START in it and reach $PROOK_TABLE_SIZE ids from there, a
   bishop's from $PBISHOP_TABLE_START and $PBISHOP_TABLE_SIZE (indexed: both pieces share it).
   The lists: $PATTACK_LIST_SIZE attack sets of 8 bytes. Every layout defines these names
   but the last. */
#define $PATTACK_TABLE_SIZE @ATTACK_SIZE@
#define $PROOK_TABLE_START @ROOK_START@
#define $PROOK_TABLE_SIZE @ROOK_SIZE@
#define $PBISHOP_TABLE_START @BISHOP_START@
#define $PBISHOP_TABLE_SIZE @BISHOP_SIZE@
#define $PATTACK_LIST_SIZE @LIST_SIZE@

/* Rook and bishop magics, squares a1 (0) to h8 (63), the id array and the lists; defined
   where $IIMPLEMENTATION is. */
extern const struct $pmagic_entry $PROOK_MAGICS[64];
extern const struct $pmagic_entry $PBISHOP_MAGICS[64];
extern const uint8_t $iattack_ids[$PATTACK_TABLE_SIZE];
extern const uint64_t $iattack_lists[$PATTACK_LIST_SIZE];
"#;

/// The C lookups of `--with-lookup`.
const C_LOOKUP: &str = r"
/* Does nothing: the tables are constant data. For engines written for the other layouts. */
void $pinit_attack_tables(void);

/* Index into the id array for the occupied squares occ. */
static inline uint32_t $islot(const struct $pmagic_entry *e, uint64_t occ)
{
    return e->offset + (uint32_t)(((@E_KEY@) * e->magic) >> e->shift);
}

/* The attacks of square e for the occupied squares occ. */
static inline uint64_t $ilookup(const struct $pmagic_entry *e, uint64_t occ)
{
    return $iattack_lists[e->list + $iattack_ids[$islot(e, occ)]]@E_MASK@;
}

/* Rook attacks from square (0 = a1 .. 63 = h8) given the occupied squares. */
static inline uint64_t $prook_attacks(int square, uint64_t occupied)
{
    return $ilookup(&$PROOK_MAGICS[square], occupied);
}

/* Bishop attacks from square (0 = a1 .. 63 = h8) given the occupied squares. */
static inline uint64_t $pbishop_attacks(int square, uint64_t occupied)
{
    return $ilookup(&$PBISHOP_MAGICS[square], occupied);
}
";

/// The Rust entry type, after the comment.
const RUST_ENTRY: &str = r"
/// One square's magic. The id of occupancy `occ` is
/// `ATTACK_IDS[offset + ((@KEY@).wrapping_mul(magic) >> shift)]`, and its attacks are
/// `ATTACK_LISTS[list + id]@MASK_NOTE@.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct $TMagicEntry {
    /// Relevant-occupancy mask: the squares whose blockers matter.
    pub mask: u64,
    /// The multiplier.
    pub magic: u64,
@RAYS_FIELD@    /// Where this square's ids start in the id array.
    pub offset: u32,
    /// Where this square's ids count from in the lists.
    pub list: u16,
    /// `64 - bits`.
    pub shift: u8,
}

impl $TMagicEntry {
    /// Index into the id array for the occupied squares `occ`.
    #[inline]
    pub const fn slot(&self, occ: u64) -> usize {
        self.offset as usize + ((@SELF_KEY@).wrapping_mul(self.magic) >> self.shift) as usize
    }

    /// The attacks of this square for the occupied squares `occ`.
    #[inline]
    pub fn attacks(&self, occ: u64) -> u64 {
        $PATTACK_LISTS[self.list as usize + $PATTACK_IDS[self.slot(occ)] as usize]@SELF_MASK@
    }
}

/// Ids in the id array, the one array that holds every square's slots (indexed: rooks and
/// bishops share it, both counted from 0).
pub const $PATTACK_TABLE_SIZE: usize = @ATTACK_SIZE@;

/// Where rook slots are counted from in the id array.
pub const $PROOK_TABLE_START: usize = @ROOK_START@;

/// Ids from `$PROOK_TABLE_START` that rook lookups reach.
pub const $PROOK_TABLE_SIZE: usize = @ROOK_SIZE@;

/// Where bishop slots are counted from in the id array.
pub const $PBISHOP_TABLE_START: usize = @BISHOP_START@;

/// Ids from `$PBISHOP_TABLE_START` that bishop lookups reach.
pub const $PBISHOP_TABLE_SIZE: usize = @BISHOP_SIZE@;

/// Attack sets in the lists.
pub const $PATTACK_LIST_SIZE: usize = @LIST_SIZE@;

// Each piece's part lies inside the id array (checked when the crate compiles).
const _: () = assert!(
    $PROOK_TABLE_START + $PROOK_TABLE_SIZE <= $PATTACK_TABLE_SIZE
        && $PBISHOP_TABLE_START + $PBISHOP_TABLE_SIZE <= $PATTACK_TABLE_SIZE
);
";

/// The Rust lookups of `--with-lookup`.
const RUST_LOOKUP: &str = r"
/// Does nothing: the tables are constants. For engines written for the other layouts.
#[inline]
pub fn $pinit_attack_tables() {}

/// Rook attacks from `square` (0 = a1 .. 63 = h8) given the `occupied` squares.
#[inline]
pub fn $prook_attacks(square: usize, occupied: u64) -> u64 {
    $PROOK_MAGICS[square].attacks(occupied)
}

/// Bishop attacks from `square` (0 = a1 .. 63 = h8) given the `occupied` squares.
#[inline]
pub fn $pbishop_attacks(square: usize, occupied: u64) -> u64 {
    $PBISHOP_MAGICS[square].attacks(occupied)
}
";

/// Fills the placeholders of a template (before the prefix).
fn layout_text(template: &str, layout: &Tables, ix: &Indexed, rust: bool) -> String {
    let masked = ix.masked();
    let (key, e_key, self_key) = match (layout.formula, rust) {
        (Formula::Plain, _) => ("occ & mask", "occ & e->mask", "occ & self.mask"),
        (Formula::Black, false) => ("occ | ~mask", "occ | ~e->mask", ""),
        (Formula::Black, true) => ("occ | !mask", "", "occ | !self.mask"),
    };
    let rays_field = match (masked, rust) {
        (false, _) => "",
        (true, false) => "    uint64_t rays;\n",
        (true, true) => {
            "    /// Every square it attacks on an empty board: its part of a shared list entry.\n    pub rays: u64,\n"
        }
    };
    fill_sizes(
        template
            .replace("@RAYS_FIELD@", rays_field)
            .replace(
                "@MASK_NOTE@",
                match (masked, rust) {
                    (true, false) => " & rays: the lists are shared, an entry holds attack sets\n   of several squares and each keeps its rays of it",
                    (true, true) => " & rays`: the lists are shared, an entry\n/// holds attack sets of several squares and each keeps its rays of it",
                    (false, false) => ": each square's own list",
                    (false, true) => "`: each square's own list",
                },
            )
            .replace("@E_MASK@", if masked { " & e->rays" } else { "" })
            .replace("@SELF_MASK@", if masked { " & self.rays" } else { "" })
            .replace("@LIST_SIZE@", &ix.lists.len().to_string())
            .replace("@SELF_KEY@", self_key)
            .replace("@E_KEY@", e_key)
            .replace("@KEY@", key),
        layout,
    )
}

/// Renders the C header of an indexed layout.
pub(super) fn render_c(
    layout: &Tables,
    ix: &Indexed,
    header: &[String],
    options: &Options,
) -> String {
    let names = &options.prefix;
    let mut lines = header.to_vec();
    lines.push(String::new());
    lines.extend(names.apply(USAGE_C).lines().map(String::from));
    if options.with_lookup {
        lines.extend(names.apply(USAGE_LOOKUP).lines().map(String::from));
    }
    let mut out = String::from("/*\n");
    comment_block(&mut out, " * ", &lines);
    out.push_str(" */\n");
    out.push_str(&names.apply(&layout_text(C_DECLARATIONS, layout, ix, false)));
    if options.with_lookup {
        out.push_str(&names.apply(&layout_text(C_LOOKUP, layout, ix, false)));
    }
    out.push_str(&names.apply(C_IMPLEMENTATION_START));
    let masked = ix.masked();
    for piece in Piece::ALL {
        let (upper, name) = piece_names(piece);
        let _ = writeln!(
            out,
            "\n/* {name} magics, squares a1 (0) to h8 (63): mask, magic, {}offset, list, shift. */\nconst struct {}magic_entry {}{upper}_MAGICS[64] = {{",
            if masked { "rays, " } else { "" },
            names.lower(),
            names.upper()
        );
        for s in layout.slots(piece) {
            let rays = if masked {
                format!("UINT64_C({}), ", hex(s.rays))
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "    {{UINT64_C({}), UINT64_C({}), {rays}{}, {}, {}}}, /* {} */",
                hex(s.mask),
                hex(s.entry.magic),
                s.offset,
                s.list,
                s.shift,
                slot_note(s)
            );
        }
        out.push_str("};\n");
    }
    let il = names.internal_lower();
    let iu = names.upper();
    let _ = writeln!(
        out,
        "\n/* The id array: one byte a slot, holes 0. */\nconst uint8_t {il}attack_ids[{iu}ATTACK_TABLE_SIZE] = {{"
    );
    for chunk in ix.ids.chunks(32) {
        let row: Vec<String> = chunk.iter().map(u8::to_string).collect();
        let _ = writeln!(out, "    {},", row.join(", "));
    }
    out.push_str("};\n");
    let _ = writeln!(
        out,
        "\n/* The lists: attack sets, {}. */\nconst uint64_t {il}attack_lists[{iu}ATTACK_LIST_SIZE] = {{",
        if masked {
            "an entry shared by squares that each keep their rays of it"
        } else {
            "each square's own, in the order of its ids"
        }
    );
    for chunk in ix.lists.chunks(4) {
        let row: Vec<String> = chunk
            .iter()
            .map(|&v| format!("UINT64_C({})", hex(v)))
            .collect();
        let _ = writeln!(out, "    {},", row.join(", "));
    }
    out.push_str("};\n");
    if options.with_lookup {
        out.push_str(&names.apply("\nvoid $pinit_attack_tables(void)\n{\n}\n"));
    }
    out.push_str(&names.apply(C_IMPLEMENTATION_END));
    out
}

/// Renders the Rust source of an indexed layout.
pub(super) fn render_rust(
    layout: &Tables,
    ix: &Indexed,
    header: &[String],
    options: &Options,
) -> String {
    let names = &options.prefix;
    let mut lines = header.to_vec();
    lines.push(String::new());
    lines.extend(names.apply(USAGE_RUST).lines().map(String::from));
    if options.with_lookup {
        lines.extend(names.apply(USAGE_LOOKUP).lines().map(String::from));
    }
    let mut out = String::new();
    comment_block(&mut out, "// ", &lines);
    out.push_str(&names.apply(&layout_text(RUST_ENTRY, layout, ix, true)));
    if options.with_lookup {
        out.push_str(&names.apply(RUST_LOOKUP));
    }
    let (ty, upper) = (format!("{}MagicEntry", names.camel()), names.upper());
    for piece in Piece::ALL {
        let (piece_upper, name) = piece_names(piece);
        let _ = writeln!(
            out,
            "\n/// {name} magics, squares a1 (0) to h8 (63).\npub const {upper}{piece_upper}_MAGICS: [{ty}; 64] = ["
        );
        for s in layout.slots(piece) {
            out.push_str(&rust_entry(&ty, s, ix.masked()));
        }
        out.push_str("];\n");
    }
    let _ = writeln!(
        out,
        "\n/// The id array: one byte a slot, holes 0.\npub static {upper}ATTACK_IDS: [u8; {upper}ATTACK_TABLE_SIZE] = *b\"\\"
    );
    for chunk in ix.ids.chunks(32) {
        let mut row = String::from("    ");
        for &b in chunk {
            if b.is_ascii_alphanumeric() {
                row.push(char::from(b));
            } else {
                let _ = write!(row, "\\x{b:02x}");
            }
        }
        let _ = writeln!(out, "{row}\\");
    }
    out.push_str("\";\n");
    let _ = writeln!(
        out,
        "\n/// The lists: attack sets, {}.\npub static {upper}ATTACK_LISTS: [u64; {upper}ATTACK_LIST_SIZE] = [",
        if ix.masked() {
            "an entry shared by squares that each keep their rays of it"
        } else {
            "each square's own, in the order of its ids"
        }
    );
    for chunk in ix.lists.chunks(4) {
        let row: Vec<String> = chunk.iter().map(|&v| hex(v)).collect();
        let _ = writeln!(out, "    {},", row.join(", "));
    }
    out.push_str("];\n");
    out
}

fn piece_names(piece: Piece) -> (&'static str, &'static str) {
    match piece {
        Piece::Rook => ("ROOK", "Rook"),
        Piece::Bishop => ("BISHOP", "Bishop"),
    }
}

fn rust_entry(ty: &str, s: &Slot, masked: bool) -> String {
    let rays = if masked {
        format!("rays: {}, ", hex(s.rays))
    } else {
        String::new()
    };
    format!(
        "    {ty} {{ mask: {}, magic: {}, {rays}offset: {}, list: {}, shift: {} }}, // {}\n",
        hex(s.mask),
        hex(s.entry.magic),
        s.offset,
        s.list,
        s.shift,
        slot_note(s)
    )
}
