//! Why a part of an exhaustive search could not run or be recorded.

use crate::error::{ParseError, SaveError, TableError};
use crate::fs::lock::LockError;
use crate::locate::LocateError;
use crate::question::Question;

/// Why a part could not run or be recorded.
#[derive(Debug, thiserror::Error)]
pub enum PartError {
    /// A black question.
    #[error("exhaust enumerates one period of plain magics; a black key (occ | !mask) is odd, so every bit of a black magic matters (period 2^64) and the low-bits-first search cannot prune: settle black questions with `magichunt prove --formula black` (SAT)")]
    Black,
    /// The default store could not be started.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// The store is locked by another process, or cannot be locked.
    #[error(transparent)]
    Lock(#[from] LockError),
    /// The store does not load.
    #[error("cannot use {name}")]
    Load {
        /// The store as named.
        name: String,
        /// Why.
        source: TableError,
    },
    /// The search was begun with other settings (task bits, order) than those asked for.
    #[error("{0}")]
    Begun(String),
    /// The stored record of the part cannot be resumed (its cursor, best magic or residue).
    #[error("{0}")]
    Record(String),
    /// The worker threads could not start.
    #[error("cannot start the worker threads")]
    Threads(#[source] std::io::Error),
    /// A checkpoint failed; the store on disk is the previous checkpoint.
    #[error("checkpoint failed")]
    Checkpoint(#[source] SaveError),
    /// The store could not be saved.
    #[error(transparent)]
    Save(#[from] SaveError),
    /// The finished search could not be recorded as a proof.
    #[error(transparent)]
    Settle(#[from] TableError),
    /// The search produced a magic that does not verify: a bug.
    #[error("internal error: exhaustive search produced {magic} for {question}, which collides at index {index}")]
    Collides {
        /// The question.
        question: Question,
        /// The magic, spelled.
        magic: String,
        /// The slot of the collision.
        index: usize,
    },
}

impl From<ParseError> for PartError {
    fn from(e: ParseError) -> PartError {
        PartError::Record(e.to_string())
    }
}
