//! The Rust back end: self-contained source that compiles with
//! `rustc --edition 2021 --crate-type lib` without warnings.

use std::fmt::Write as _;

use super::{comment_block, hex, slot_note, Options, Slot, Tables};
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

@TABLES@/// Fills the attack tables by the slow ray walk. Call it once at startup; the lookups also
/// fill them on first use.
pub fn $pinit_attack_tables() {
    @INIT@;
}

/// Rook attacks from `square` (0 = a1 .. 63 = h8) given the `occupied` squares.
#[inline]
pub fn $prook_attacks(square: usize, occupied: u64) -> u64 {
    @ROOK_TABLE@[$PROOK_MAGICS[square].slot(occupied)]
}

/// Bishop attacks from `square` (0 = a1 .. 63 = h8) given the `occupied` squares.
#[inline]
pub fn $pbishop_attacks(square: usize, occupied: u64) -> u64 {
    @BISHOP_TABLE@[$PBISHOP_MAGICS[square].slot(occupied)]
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

/// The per-piece tables of fancy and tight.
const PER_PIECE: &str = r"/// Builds one piece's attack table: every blocker subset of every square's mask.
fn fill_table(magics: &[$TMagicEntry; 64], size: usize, directions: &[(i32, i32); 4]) -> Box<[u64]> {
    let mut table = vec![0u64; size];
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
    table.into_boxed_slice()
}

/// The filled rook and bishop attack tables.
struct AttackTables {
    rook: Box<[u64]>,
    bishop: Box<[u64]>,
}

static ATTACK_TABLES: std::sync::OnceLock<AttackTables> = std::sync::OnceLock::new();

fn tables() -> &'static AttackTables {
    ATTACK_TABLES.get_or_init(|| AttackTables {
        rook: fill_table(&$PROOK_MAGICS, $PROOK_TABLE_SIZE, &ROOK_DIRECTIONS),
        bishop: fill_table(&$PBISHOP_MAGICS, $PBISHOP_TABLE_SIZE, &BISHOP_DIRECTIONS),
    })
}

";

/// The one table of packed, shared by rooks and bishops.
const SHARED: &str = r"/// Fills `table` with one piece's attack sets: every blocker subset of every square's mask.
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

/// The filled attack table shared by rooks and bishops.
fn table() -> &'static [u64] {
    ATTACK_TABLE.get_or_init(|| {
        let mut table = vec![0u64; $PATTACK_TABLE_SIZE];
        fill_table(&mut table, &$PROOK_MAGICS, &ROOK_DIRECTIONS);
        fill_table(&mut table, &$PBISHOP_MAGICS, &BISHOP_DIRECTIONS);
        table.into_boxed_slice()
    })
}

";

/// Fills the layout's and the formula's placeholders of a template (before the prefix).
fn layout_text(template: &str, layout: &Tables) -> String {
    let packed = layout.packed.is_some();
    let (key, self_key) = match layout.formula {
        Formula::Plain => ("occ & mask", "occ & self.mask"),
        Formula::Black => ("occ | !mask", "occ | !self.mask"),
    };
    template
        .replace("@TABLES@", if packed { SHARED } else { PER_PIECE })
        .replace(
            "@ROOK_TABLE@",
            if packed { "table()" } else { "tables().rook" },
        )
        .replace(
            "@BISHOP_TABLE@",
            if packed { "table()" } else { "tables().bishop" },
        )
        .replace("@INIT@", if packed { "table()" } else { "tables()" })
        .replace("@WHOSE@", if packed { "the shared" } else { "its piece's" })
        .replace("@INTO@", if packed { "the shared" } else { "the piece's" })
        .replace("@SELF_KEY@", self_key)
        .replace("@KEY@", key)
}

/// How to use the module, for its opening comment.
const USAGE: &str = "Use: `mod magics;` on this file, then `magics::$PROOK_MAGICS[square].slot(occupied)` and the like.";

/// The usage line of `--with-lookup`.
const USAGE_LOOKUP: &str = "Call magics::$pinit_attack_tables() once at startup (the lookups also fill the tables on first
use), then magics::$prook_attacks(square, occupied) and magics::$pbishop_attacks(square, occupied).";

/// Renders the Rust source.
pub(super) fn render(layout: &Tables, header: &[String], options: &Options) -> String {
    let names = &options.prefix;
    let mut lines = header.to_vec();
    lines.push(String::new());
    lines.extend(names.apply(USAGE).lines().map(String::from));
    if options.with_lookup {
        lines.extend(names.apply(USAGE_LOOKUP).lines().map(String::from));
    }
    let mut out = String::new();
    comment_block(&mut out, "// ", &lines);
    out.push_str(&names.apply(&layout_text(ENTRY_TYPE, layout)));
    let (ty, upper) = (format!("{}MagicEntry", names.camel()), names.upper());
    if layout.packed.is_some() {
        let _ = write!(
            out,
            "\n/// Entries in the one attack table shared by rooks and bishops (packed).\npub const {upper}ATTACK_TABLE_SIZE: usize = {};\n",
            layout.total()
        );
    }
    for piece in Piece::ALL {
        let (piece_upper, name) = match piece {
            Piece::Rook => ("ROOK", "Rook"),
            Piece::Bishop => ("BISHOP", "Bishop"),
        };
        if layout.packed.is_none() {
            let _ = write!(
                out,
                "\n/// Entries in the {name} attack table.\npub const {upper}{piece_upper}_TABLE_SIZE: usize = {};\n",
                layout.size(piece)
            );
        }
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
        out.push_str(&names.apply(&layout_text(LOOKUP, layout)));
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
