//! The reports of `magichunt compare` and `magichunt show`, each in one call from where the
//! store lies: the store found as a reading command finds it ([`crate::locate::for_reading`]),
//! its proofs vetted ([`crate::trust::load_counting`]), the other side and the packed tables
//! read and checked, the picture drawn.

use std::path::{Path, PathBuf};

use super::{render_svg, OurFile, OurTable, Report, SquareReport, Theirs};
use crate::error::TableError;
use crate::fs::output::{self, OutputError, Writes};
use crate::layout::indexed::is_indexed;
use crate::layout::{IndexedTable, PackedTable};
use crate::locate::LocateError;
use crate::piece::Target;
use crate::progress::Progress;
use crate::table::Table;

/// What `magichunt compare` compares.
#[derive(Clone, Debug, Default)]
pub struct CompareConfig {
    /// The store (`None`: the default one, see [`crate::locate::for_reading`]).
    pub store: Option<PathBuf>,
    /// The other side: a table file (`None`: the published records).
    pub against: Option<PathBuf>,
    /// Packed tables of ours, checked and shown in the sizes by layout.
    pub packed: Vec<PathBuf>,
    /// Compare an empty store when there is no file at `store` (else that is an error: a
    /// mistyped path would show every square missing).
    pub allow_missing: bool,
    /// Count every proof the store records, also those only claimed.
    pub count_claimed: bool,
    /// Draw both boards as an SVG picture into this file (written atomically; never onto a
    /// store or packed table, nor onto the store compared).
    pub svg: Option<PathBuf>,
}

/// Why a comparison could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    /// The store cannot be read.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// There is no store where one was named.
    #[error("{0}")]
    Missing(String),
    /// The other side, or a packed table, cannot be read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A packed table does not hold together.
    #[error("{0}")]
    Packed(String),
    /// The picture's file is refused by the output guard.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The picture could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The picture's file.
        path: PathBuf,
        /// Why.
        source: OutputError,
    },
}

/// The report of `magichunt compare`: the store `cfg.store` names against `cfg.against`, with
/// `cfg.packed`; the picture drawn into `cfg.svg` (said to `progress`, as is a store read
/// in place of the one named or proofs that do not hold).
///
/// # Errors
/// [`CompareError`]: a missing store (unless allowed), a file that cannot be read, a packed
/// table that does not hold, a picture's file refused or not written.
pub fn compare(cfg: &CompareConfig, progress: &mut dyn Progress) -> Result<Report, CompareError> {
    let from = crate::locate::for_reading(cfg.store.as_deref(), progress);
    // The output guard, before the work and again as it is written: never the store it
    // reads, never another store or packed table; through symlinks.
    let guarded = from.guarded_path();
    if let Some(path) = &cfg.svg {
        output::check(path, Writes::Other, &[&guarded])?;
    }
    if from.missing() && !cfg.allow_missing {
        return Err(CompareError::Missing(format!(
            "no store at {} (a mistyped --store? --allow-missing compares an empty store)",
            from.name()
        )));
    }
    let store = crate::trust::load_counting(&from, cfg.count_claimed, progress)?;
    let theirs = match &cfg.against {
        None => Theirs::published(),
        Some(path) => Theirs::from_table(&Table::read(path)?, &path.display().to_string()),
    };
    let mut packed = Vec::new();
    for path in &cfg.packed {
        let name = path.display().to_string();
        let bad = |e: crate::layout::LayoutError| CompareError::Packed(format!("{name}: {e}"));
        let table = Table::read_as(path, crate::fs::input::Kind::PackedTable)?;
        let table = if is_indexed(&table) {
            let t = IndexedTable::from_table(&table).map_err(bad)?;
            let fill = t.check().map_err(bad)?;
            OurTable::Indexed(t, fill)
        } else {
            let t = PackedTable::from_table(&table).map_err(bad)?;
            let fill = t.check().map_err(bad)?;
            OurTable::Packed(t, fill)
        };
        packed.push(OurFile { name, table });
    }
    let report = Report::with_packed(&store, &from.name(), &theirs, &packed);
    if let Some(path) = &cfg.svg {
        output::write(
            path,
            render_svg(&report).as_bytes(),
            Writes::Other,
            &[&guarded],
        )
        .map_err(|source| CompareError::Write {
            path: path.clone(),
            source,
        })?;
        progress.note(&format!(
            "magichunt: drew both boards into {}",
            path.display()
        ));
    }
    Ok(report)
}

/// The report of `magichunt show`: what is known of `target`, with the store `store` names.
///
/// # Errors
/// A missing store, or one that cannot be read.
pub fn show(
    store: Option<&Path>,
    target: Target,
    progress: &mut dyn Progress,
) -> Result<SquareReport, CompareError> {
    let from = crate::locate::for_reading(store, progress);
    if from.missing() {
        return Err(CompareError::Missing(format!(
            "no store at {} (a mistyped --store?)",
            from.name()
        )));
    }
    let store = crate::trust::load_counting(&from, false, progress)?;
    Ok(SquareReport::new(&store, &from.name(), target))
}
