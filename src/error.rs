//! Typed errors of the library. The binary adds context with `anyhow` at the edge.

use std::path::PathBuf;

/// A value from the command line or a table that does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Not `a1`..`h8` or `0`..`63`.
    #[error("invalid square '{0}' (expected a1..h8 or 0..63)")]
    Square(String),
    /// Not `rook` or `bishop`.
    #[error("invalid piece '{0}' (expected rook or bishop)")]
    Piece(String),
    /// Not `0x` hex or decimal fitting in 64 bits.
    #[error("invalid magic '{0}' (expected 0x and up to 16 hex digits, or a decimal below 2^64)")]
    Magic(String),
    /// Index bits out of range for the piece.
    #[error("invalid bits {bits} for {piece} (expected 1 to {max})")]
    Bits {
        /// The rejected value.
        bits: i64,
        /// The name of the piece it was given for (`rook`, `bishop`).
        piece: &'static str,
        /// The piece's largest mask popcount.
        max: u32,
    },
    /// Anything else, with a message naming the value.
    #[error("{0}")]
    Other(String),
}

/// Why a table file (store, published table) cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not a regular file, or cannot be opened.
    #[error(transparent)]
    Input(#[from] crate::fs::input::InputError),
    /// The file is not JSON of the table format.
    #[error("{path}: not a magic table: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// What serde said.
        message: String,
    },
    /// The file was written by a newer magichunt.
    #[error("{path}: table version {found} is newer than this build reads ({supported}); upgrade magichunt")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u64,
        /// The newest version this build reads.
        supported: u64,
    },
    /// One item of a list has a bad value.
    #[error("{path}: {list} {index} ({what}): {message}")]
    Entry {
        /// The file.
        path: PathBuf,
        /// Which list: `entry`, `proof`, `effort` or `exhaust`.
        list: &'static str,
        /// Position in that list, from 0.
        index: usize,
        /// The item's piece and square, as far as they can be read.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// A contradiction inside a table or between two tables.
    #[error("{0}")]
    Conflict(String),
}

/// Why a store could not be saved.
#[derive(Debug, thiserror::Error)]
#[error("cannot save {path}")]
pub struct SaveError {
    /// The store's path.
    pub path: PathBuf,
    /// Why: refused by the output guard, or the write failed.
    pub source: crate::fs::output::OutputError,
}
