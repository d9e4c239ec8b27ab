//! magichunt: hunt magic multipliers for magic bitboards, above all reduced-bit ones.
//!
//! A magic for (piece, square, bits) maps every blocker subset of the square's relevant mask
//! to a slot `((occ & mask) * magic) >> (64 - bits)` so that subsets with different attack
//! sets never share a slot. Subsets with equal attack sets may share one (constructive
//! collisions): that is what lets a table use fewer bits than the mask's popcount.
//!
//! The library is layered: geometry ([`square`], [`bitboard`], [`piece`]), the slow reference
//! ([`attacks`]) that every other check trusts, the one index formula and verify ([`magic`]),
//! the table format ([`table`]) and the results [`store`], the table layouts ([`layout`]:
//! fancy, tight and packed), and the published data ([`published`]). The binary in
//! `src/main.rs` only parses arguments and calls [`cli`].

/// `eprintln!` that never panics: a line for the user on stderr, dropped when stderr is gone
/// (`magichunt ... 2>&1 | head` closes it, and a progress line must not end a run with a
/// panic before it saves).
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr(), $($arg)*);
    }};
}

/// `eprint!` that never panics (see [`say!`]): a progress line redrawn in place.
#[macro_export]
macro_rules! say_inline {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let mut err = ::std::io::stderr();
        let _ = ::std::write!(err, $($arg)*);
        let _ = err.flush();
    }};
}

pub mod atomic;
pub mod attacks;
pub mod bench;
pub mod bitboard;
pub mod cli;
pub mod compare;
pub mod error;
pub mod exhaust;
pub mod export;
pub mod hunt;
pub mod interrupt;
pub mod layout;
pub mod lock;
pub mod magic;
pub mod output;
pub mod piece;
pub mod prove;
pub mod published;
pub mod question;
pub mod search;
pub mod square;
pub mod store;
pub mod table;
pub mod timefmt;
pub mod trust;

pub use bitboard::Bitboard;
pub use piece::{Piece, Target};
pub use question::{Formula, Question};
pub use square::Square;
