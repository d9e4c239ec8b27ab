//! The Rust back end: self-contained source that compiles with
//! `rustc --edition 2021 --crate-type lib` without warnings. With `--with-lookup` the tables
//! are computed at compile time (`const fn`; the file needs no std and builds in a
//! `#![no_std]` crate), or with `--runtime-fill` filled at run time in a `std::sync::OnceLock`.

use std::fmt::Write as _;

use super::{comment_block, fill_sizes, hex, slot_note, Options, Slot, Tables};
use crate::piece::Piece;
use crate::question::Formula;

/// The ray walk and the table fill of `--with-lookup`. Safe code only: the tables live in a
/// `OnceLock`, filled on first use or by `init_attack_tables()` at startup. `$p`, `$P` and `$T`
/// are the prefix ([`super::Prefix::apply`]).
const LOOKUP: &str = r"
const ROOK_DIRECTIONS: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
const BISHOP_DIRECTIONS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Squares a slider on `square` attacks by walking each ray to the first occupied square
/// (included). Slow: used only to fill the tables.
fn ray_attacks(square: usize, occupied: u64, directions: &[(i32, i32); 4]) -> u64 {
    let mut attacks = 0;
    for &(df, dr) in directions {
        let (mut file, mut rank) = ((square % 8) as i32 + df, (square / 8) as i32 + dr);
        while (0..8).contains(&file) && (0..8).contains(&rank) {
            let bit = 1u64 << (rank * 8 + file);
            attacks |= bit;
            if occupied & bit != 0 {
                break;
            }
            file += df;
            rank += dr;
        }
    }
    attacks
}

/// Fills one piece's part of the attack table: every blocker subset of every square's mask.
fn fill_table(table: &mut [u64], magics: &[$TMagicEntry; 64], directions: &[(i32, i32); 4]) {
    for (square, e) in magics.iter().enumerate() {
        let mut occ = 0u64;
        loop {
            table[e.slot(occ)] = ray_attacks(square, occ, directions);
            occ = occ.wrapping_sub(e.mask) & e.mask;
            if occ == 0 {
                break;
            }
        }
    }
}

static ATTACK_TABLE: std::sync::OnceLock<Box<[u64]>> = std::sync::OnceLock::new();

/// The filled attack table: rook slots counted from `$PROOK_TABLE_START`, bishop slots from
/// `$PBISHOP_TABLE_START`.
fn table() -> &'static [u64] {
    ATTACK_TABLE.get_or_init(|| {
        let mut table = vec![0u64; $PATTACK_TABLE_SIZE];
        let rook = $PROOK_TABLE_START..$PROOK_TABLE_START + $PROOK_TABLE_SIZE;
        fill_table(&mut table[rook], &$PROOK_MAGICS, &ROOK_DIRECTIONS);
        let bishop = $PBISHOP_TABLE_START..$PBISHOP_TABLE_START + $PBISHOP_TABLE_SIZE;
        fill_table(&mut table[bishop], &$PBISHOP_MAGICS, &BISHOP_DIRECTIONS);
        table.into_boxed_slice()
    })
}

/// Fills the attack table by the slow ray walk. Call it once at startup; the lookups also
/// fill it on first use.
pub fn $pinit_attack_tables() {
    table();
}

/// Rook attacks from `square` (0 = a1 .. 63 = h8) given the `occupied` squares.
#[inline]
pub fn $prook_attacks(square: usize, occupied: u64) -> u64 {
    table()[$PROOK_TABLE_START + $PROOK_MAGICS[square].slot(occupied)]
}

/// Bishop attacks from `square` (0 = a1 .. 63 = h8) given the `occupied` squares.
#[inline]
pub fn $pbishop_attacks(square: usize, occupied: u64) -> u64 {
    table()[$PBISHOP_TABLE_START + $PBISHOP_MAGICS[square].slot(occupied)]
}
";

/// The tables of `--with-lookup` computed at compile time: `const fn`, no std, no allocator,
/// no init. Every square's attack sets come from the first blocker on each of its rays: one
/// set per combination, written at the slot of every occupancy with those first blockers (a
/// fraction of a second of constant evaluation for any table; see docs/export.md).
const CONST_LOOKUP: &str = r"
/// The attack table, computed when the crate compiles: rook slots counted from
/// `$PROOK_TABLE_START`, bishop slots from `$PBISHOP_TABLE_START`.
static ATTACK_TABLE: [u64; $PATTACK_TABLE_SIZE] = attack_table();

// Each piece's part lies inside the table (checked when the crate compiles).
const _: () = assert!(
    $PROOK_TABLE_START + $PROOK_TABLE_SIZE <= $PATTACK_TABLE_SIZE
        && $PBISHOP_TABLE_START + $PBISHOP_TABLE_SIZE <= $PATTACK_TABLE_SIZE
);

/// Every square's attack sets at the slot of every occupancy of its mask.
const fn attack_table() -> [u64; $PATTACK_TABLE_SIZE] {
    let mut table = [0u64; $PATTACK_TABLE_SIZE];
    let rook = [(0, 1), (0, -1), (1, 0), (-1, 0)];
    let bishop = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
    fill_piece(&mut table, $PROOK_TABLE_START, &$PROOK_MAGICS, rook);
    fill_piece(&mut table, $PBISHOP_TABLE_START, &$PBISHOP_MAGICS, bishop);
    table
}

/// Fills one piece's part of the table. For each square, every choice of the first blocker
/// on each ray (or none) gives one attack set, written at the slot of every occupancy of the
/// mask with those first blockers (the squares behind them free).
const fn fill_piece(
    table: &mut [u64; $PATTACK_TABLE_SIZE],
    start: usize,
    magics: &[$TMagicEntry; 64],
    directions: [(i32, i32); 4],
) {
    let mut square = 0;
    while square < 64 {
        let e = &magics[square];
        let base = start + e.offset as usize;
        // Each ray's squares from the square outwards, and how many are in the mask.
        let mut ray = [[0u64; 7]; 4];
        let (mut len, mut inner) = ([0usize; 4], [0usize; 4]);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = directions[d];
            let (mut file, mut rank) = ((square % 8) as i32 + df, (square / 8) as i32 + dr);
            while file >= 0 && file < 8 && rank >= 0 && rank < 8 {
                let bit = 1u64 << (rank * 8 + file);
                ray[d][len[d]] = bit;
                len[d] += 1;
                if e.mask & bit != 0 {
                    inner[d] += 1;
                }
                file += df;
                rank += dr;
            }
            d += 1;
        }
        // first[d]: the first blocker on ray d, inner[d] for none inside the mask.
        let mut first = [0usize; 4];
        loop {
            let (mut attacks, mut blockers, mut free) = (0u64, 0u64, 0u64);
            let mut d = 0;
            while d < 4 {
                let mut k = 0;
                while k < len[d] {
                    if k <= first[d] {
                        attacks |= ray[d][k];
                    }
                    if k < inner[d] {
                        if k == first[d] {
                            blockers |= ray[d][k];
                        } else if k > first[d] {
                            free |= ray[d][k];
                        }
                    }
                    k += 1;
                }
                d += 1;
            }
            // Every subset of the free squares, by carry-rippler (no call in the loop:
            // constant evaluation is slow at calls).
            let mut sub = 0u64;
            loop {
                let occ = blockers | sub;
                let key = (@CONST_KEY@) as u128;
                table[base + ((key * e.magic as u128) as u64 >> e.shift) as usize] = attacks;
                if sub == free {
                    break;
                }
                sub = ((sub | !free) + 1) & free;
            }
            let mut d = 0;
            while d < 4 && first[d] == inner[d] {
                first[d] = 0;
                d += 1;
            }
            if d == 4 {
                break;
            }
            first[d] += 1;
        }
        square += 1;
    }
}

/// Does nothing: the tables are computed at compile time. For engines written for the
/// export that fills them at run time (`--runtime-fill`).
#[inline]
pub fn $pinit_attack_tables() {}

/// Rook attacks from `square` (0 = a1 .. 63 = h8) given the `occupied` squares.
#[inline]
pub fn $prook_attacks(square: usize, occupied: u64) -> u64 {
    ATTACK_TABLE[$PROOK_TABLE_START + $PROOK_MAGICS[square].slot(occupied)]
}

/// Bishop attacks from `square` (0 = a1 .. 63 = h8) given the `occupied` squares.
#[inline]
pub fn $pbishop_attacks(square: usize, occupied: u64) -> u64 {
    ATTACK_TABLE[$PBISHOP_TABLE_START + $PBISHOP_MAGICS[square].slot(occupied)]
}
";

/// The entry type, opening the source after its comment.
const ENTRY_TYPE: &str = r"
/// One square's magic: the slot of occupancy `occ` in @WHOSE@ table is
/// `offset + ((@KEY@).wrapping_mul(magic) >> shift)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct $TMagicEntry {
    /// Relevant-occupancy mask: the squares whose blockers matter.
    pub mask: u64,
    /// The multiplier.
    pub magic: u64,
    /// `64 - bits`.
    pub shift: u32,
    /// Where this square's part of the table starts.
    pub offset: u32,
}

impl $TMagicEntry {
    /// Index into @INTO@ table for the occupied squares `occ`.
    #[inline]
    pub const fn slot(&self, occ: u64) -> usize {
        self.offset as usize + ((@SELF_KEY@).wrapping_mul(self.magic) >> self.shift) as usize
    }
}
";

/// The sizes, the same names in every layout: one array holds every attack set, each piece's
/// slots counted from its start in it.
const SIZES: &str = r"
/// Entries in the attack table, the one array that holds every attack set
/// (@LAYOUT_NOTE@).
pub const $PATTACK_TABLE_SIZE: usize = @ATTACK_SIZE@;

/// Where rook slots are counted from in the attack table.
pub const $PROOK_TABLE_START: usize = @ROOK_START@;

/// Entries from `$PROOK_TABLE_START` that rook lookups reach.
pub const $PROOK_TABLE_SIZE: usize = @ROOK_SIZE@;

/// Where bishop slots are counted from in the attack table.
pub const $PBISHOP_TABLE_START: usize = @BISHOP_START@;

/// Entries from `$PBISHOP_TABLE_START` that bishop lookups reach.
pub const $PBISHOP_TABLE_SIZE: usize = @BISHOP_SIZE@;
";

/// Fills the layout's and the formula's placeholders of a template (before the prefix).
fn layout_text(template: &str, layout: &Tables) -> String {
    let packed = layout.packed.is_some();
    let (key, self_key, const_key) = match layout.formula {
        Formula::Plain => ("occ & mask", "occ & self.mask", "occ"),
        Formula::Black => ("occ | !mask", "occ | !self.mask", "occ | !e.mask"),
    };
    fill_sizes(
        template
            .replace("@SIZES@", SIZES)
            .replace(
                "@LAYOUT_NOTE@",
                if packed {
                    "packed: rooks and bishops share it, both counted from 0"
                } else {
                    "here the rook table, then the bishop table"
                },
            )
            .replace("@INTO@", if packed { "the shared" } else { "the piece's" })
            .replace("@SELF_KEY@", self_key)
            .replace("@CONST_KEY@", const_key)
            .replace("@KEY@", key),
        layout,
    )
}

/// How to use the module, for its opening comment.
const USAGE: &str = "Use: `mod magics;` on this file, then `magics::$PROOK_MAGICS[square].slot(occupied)` and the like.";

/// The usage line of `--with-lookup --runtime-fill`.
const USAGE_LOOKUP: &str = "Call magics::$pinit_attack_tables() once at startup (the lookups also fill the tables on first
use), then magics::$prook_attacks(square, occupied) and magics::$pbishop_attacks(square, occupied).";

/// The usage line of `--with-lookup`.
const USAGE_CONST: &str =
    "The tables are computed at compile time (const fn; no std, no allocator, no init: the file
builds in a #![no_std] crate): magics::$prook_attacks(square, occupied) and
magics::$pbishop_attacks(square, occupied) answer from the first call.";

/// Renders the Rust source.
pub(super) fn render(layout: &Tables, header: &[String], options: &Options) -> String {
    if let Some(ix) = &layout.indexed {
        return super::indexed::render_rust(layout, ix, header, options);
    }
    let names = &options.prefix;
    let mut lines = header.to_vec();
    lines.push(String::new());
    lines.extend(names.apply(USAGE).lines().map(String::from));
    if options.with_lookup {
        let usage = if options.runtime_fill {
            USAGE_LOOKUP
        } else {
            USAGE_CONST
        };
        lines.extend(names.apply(usage).lines().map(String::from));
    }
    let mut out = String::new();
    comment_block(&mut out, "// ", &lines);
    out.push_str(&names.apply(&layout_text(ENTRY_TYPE, layout)));
    out.push_str(&names.apply(&layout_text("@SIZES@", layout)));
    let (ty, upper) = (format!("{}MagicEntry", names.camel()), names.upper());
    for piece in Piece::ALL {
        let (piece_upper, name) = match piece {
            Piece::Rook => ("ROOK", "Rook"),
            Piece::Bishop => ("BISHOP", "Bishop"),
        };
        let _ = writeln!(
            out,
            "\n/// {name} magics, squares a1 (0) to h8 (63).\npub const {upper}{piece_upper}_MAGICS: [{ty}; 64] = ["
        );
        for s in layout.slots(piece) {
            out.push_str(&entry_line(&ty, s));
        }
        out.push_str("];\n");
    }
    if options.with_lookup {
        let lookup = if options.runtime_fill {
            LOOKUP
        } else {
            CONST_LOOKUP
        };
        out.push_str(&names.apply(&layout_text(lookup, layout)));
    }
    out
}

fn entry_line(ty: &str, s: &Slot) -> String {
    format!(
        "    {ty} {{ mask: {}, magic: {}, shift: {}, offset: {} }}, // {}\n",
        hex(s.mask),
        hex(s.entry.magic),
        s.shift,
        s.offset,
        slot_note(s)
    )
}
