//! magichunt: hunt magic multipliers for magic bitboards, above all reduced-bit ones.
//!
//! A magic for (piece, square, bits) maps every blocker subset of the square's relevant mask
//! to a slot `((occ & mask) * magic) >> (64 - bits)` so that subsets with different attack
//! sets never share a slot. Subsets with equal attack sets may share one (constructive
//! collisions): that is what lets a table use fewer bits than the mask's popcount.
//!
//! The library is layered, imports running one way (`scripts/module-cycles.py` lists them):
//! geometry ([`square`], [`bitboard`], [`piece`]), the slow reference ([`attacks`]) that every
//! other check trusts, the one index formula and verify ([`magic`]), the table format
//! ([`table`]), the published data ([`published`]) and the results [`store`] (with the rule
//! that says when bits are proven optimal), the search ([`search`]) and what runs it
//! ([`hunt`], [`exhaust`], [`prove`]), a question settled into a store part by part
//! ([`settle`]), the evidence checked here ([`trust`]), the table layouts ([`layout`]: fancy,
//! tight and packed), and what people read: [`export`] into an engine, [`compare`] with the
//! records. The shipped best table is built in ([`shipped`]); [`locate`] says which store a
//! command works on, and a long call reports through [`progress::Progress`]. Every workflow
//! of the binary is one library call (`examples/` runs three of them); the binary in
//! `src/main.rs` only parses arguments and calls [`cli`], which prints.
//!
//! # A tour
//!
//! ```
//! use magichunt::compare::{render_text, Report, Theirs};
//! use magichunt::export::{render, Format, Layout, Options, Source, Tables};
//! use magichunt::{magic, shipped, Formula, Piece, Square, Target};
//!
//! // Verify a magic against the slow reference: rook a8 at 11 bits (one below its popcount).
//! let a8 = Target::new(Piece::Rook, "a8".parse::<Square>()?);
//! let v = magic::verify(a8, 11, 0x00ff_fcdd_fced_714a).expect("a valid magic");
//! assert_eq!(v.max_index, 2047);
//!
//! // The best table, built into the binary: every square, and which are proven optimal (the
//! // published proofs and lower bounds; its own proofs count once checked, so here they are
//! // claimed).
//! let store = shipped::store();
//! let report = Report::new(store, shipped::NAME, &Theirs::published());
//! assert!(report.optimal() + report.claimed() >= 112);
//! assert!(render_text(&report).contains("proven optimal"));
//!
//! // Export it as a C header for an engine.
//! let tables = Tables::build(store, Layout::Fancy, Formula::Plain)?;
//! let header = render(Format::C, &tables, &Source::of(store, shipped::NAME), &Options::default());
//! assert!(header.contains("ROOK_MAGICS[64]"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The results store
//!
//! A [`store::Store`] keeps the best magic per square (a worse one never replaces it), the
//! work done and the proofs of none; it is saved atomically and verified again on load.
//!
//! ```
//! use magichunt::store::{proven_optimal, Offer, Store};
//! use magichunt::table::Entry;
//! use magichunt::{magic, search, Piece, Square, Target};
//!
//! let d8 = Target::new(Piece::Bishop, "d8".parse::<Square>()?);
//! let mut store = Store::new();
//! let five = search::find_magic(d8, 5, 1).expect("a 5-bit magic");
//! assert_eq!(store.offer(Entry::from_verified(&five, None, None)), Offer::New);
//! let six = magic::verify(d8, 6, five.magic).expect("valid at more bits too");
//! assert_eq!(store.offer(Entry::from_verified(&six, None, None)), Offer::Kept);
//! // A published proof says no 4-bit magic exists: 5 bits are optimal.
//! assert!(proven_optimal(&store, d8, 5));
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("store.json");
//! store.save(&path)?;
//! assert_eq!(Store::load(&path)?.best(d8).map(|e| e.bits), Some(5));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

/// `eprintln!` that never panics: a line for the user on stderr, dropped when stderr is gone
/// (`magichunt ... 2>&1 | head` closes it, and a progress line must not end a run with a
/// panic before it saves). What a store or a path put in it is shown, never obeyed: control
/// characters are written escaped ([`escape::terminal_text`]).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let line = $crate::escape::terminal_text(&::std::format!($($arg)*));
        let _ = ::std::writeln!(::std::io::stderr(), "{line}");
    }};
}

pub mod attacks;
pub mod bench;
pub mod bitboard;
pub mod cli;
pub mod compare;
pub mod error;
pub mod escape;
pub mod exhaust;
pub mod export;
pub mod fs;
pub mod hunt;
pub mod interrupt;
pub mod layout;
pub mod locate;
pub mod magic;
pub mod piece;
pub mod pool;
pub mod progress;
pub mod prove;
pub mod published;
pub mod question;
pub mod search;
pub mod settle;
pub mod shipped;
pub mod size;
pub mod square;
pub mod store;
pub mod table;
pub mod timefmt;
pub mod trust;
pub mod verify;

pub use bitboard::Bitboard;
pub use piece::{Piece, Target};
pub use question::{Formula, Question};
pub use square::Square;
