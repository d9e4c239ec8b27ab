//! `magichunt export` in one call, [`export`]: the store found as a reading command finds it
//! (or a packed table), its proofs vetted for the header's count, every square filled, the
//! tables rendered and written through the output guard.

use std::path::{Path, PathBuf};

use super::{render, ExportError, Format, Layout, Options, Source, Tables};
use crate::fs::output::{self, OutputError, Writes};
use crate::layout::indexed::is_indexed;
use crate::layout::{IndexedTable, PackedTable};
use crate::locate::{LocateError, Reading};
use crate::magic::format_magic;
use crate::progress::Progress;
use crate::question::Formula;
use crate::store::Store;
use crate::table::Table;

/// What `magichunt export` exports, how and where.
#[derive(Clone, Debug)]
pub struct ExportConfig {
    /// The output format.
    pub format: Format,
    /// The store (`None`: the default one, see [`crate::locate::for_reading`]).
    pub store: Option<PathBuf>,
    /// Export this packed table as it is, instead of a store.
    pub packed: Option<PathBuf>,
    /// Export even if the store does not exist: every square filled at popcount bits.
    pub allow_missing: bool,
    /// Write here (atomically, never onto a store or packed table, nor onto the store or
    /// table exported); `None`: [`export`] returns the text.
    pub out: Option<PathBuf>,
    /// The layout (`None`: fancy, or packed for a packed table).
    pub layout: Option<Layout>,
    /// The store's magics of this formula.
    pub formula: Formula,
    /// Count every proof the store records as proven, also those only claimed.
    pub count_claimed: bool,
    /// Lookup code and name prefix.
    pub options: Options,
}

impl ExportConfig {
    /// The default store's plain magics in `format`, fancy, returned as text.
    #[must_use]
    pub fn new(format: Format) -> ExportConfig {
        ExportConfig {
            format,
            store: None,
            packed: None,
            allow_missing: false,
            out: None,
            layout: None,
            formula: Formula::Plain,
            count_claimed: false,
            options: Options::default(),
        }
    }
}

/// Why an export could not be made or written.
#[derive(Debug, thiserror::Error)]
pub enum ExportFileError {
    /// The store cannot be read.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// There is no store where one was named.
    #[error("{0}: no such store (--allow-missing exports popcount-filled tables from nothing)")]
    Missing(String),
    /// A packed table exported in another layout.
    #[error("--packed exports a packed table as it is: --layout {0} does not apply")]
    PackedLayout(Layout),
    /// The packed table cannot be read.
    #[error(transparent)]
    Table(#[from] crate::error::TableError),
    /// The packed table cannot be exported as it is.
    #[error("{what}")]
    Packed {
        /// The table, and what is wrong with it.
        what: String,
        /// Why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The tables cannot be built.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// The output is refused by the guard.
    #[error(transparent)]
    Output(#[from] OutputError),
    /// The output could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The output.
        path: PathBuf,
        /// Why.
        source: OutputError,
    },
}

/// Exports as `cfg` says: the text is written to `cfg.out` (and `None` returned), or
/// returned. Notes (a square filled, the store read in place of the one named, the totals)
/// go to `progress`.
///
/// # Errors
/// [`ExportFileError`]: a missing store (unless allowed), a packed table that does not hold,
/// an output refused or not written.
pub fn export(
    cfg: &ExportConfig,
    progress: &mut dyn Progress,
) -> Result<Option<String>, ExportFileError> {
    // The store is read only when there is no packed table (and said only then).
    let from = match &cfg.packed {
        Some(_) => None,
        None => Some(crate::locate::for_reading(cfg.store.as_deref(), progress)),
    };
    // Checked before the work, and again as it is written (the output guard): never the
    // store or packed table it comes from (for the built-in table, the user's store it stands
    // in for), never another store or packed table.
    let source_path = match (&cfg.packed, &from) {
        (Some(p), _) => p.clone(),
        (None, Some(f)) => f.guarded_path(),
        (None, None) => unreachable!("a store is read when no packed table is"),
    };
    if let Some(path) = &cfg.out {
        output::check(path, Writes::Other, &[&source_path])?;
    }
    let layout = match (cfg.layout, &cfg.packed) {
        (Some(l), _) => l,
        (None, Some(_)) => Layout::Packed,
        (None, None) => Layout::Fancy,
    };
    if cfg.packed.is_some() && !layout.shared() {
        return Err(ExportFileError::PackedLayout(layout));
    }
    if cfg.format == Format::Json {
        if cfg.options.with_lookup {
            progress.note("--with-lookup adds code to Rust and C only; the JSON export has none");
        }
        if cfg.options.prefix != super::Prefix::default() {
            progress.note("--prefix names the Rust and C items only; the JSON export has none");
        }
    }
    let (tables, source) = match (&cfg.packed, &from) {
        (Some(path), _) => packed_tables(path, cfg.layout)?,
        (None, Some(from)) => store_tables(cfg, from, layout, progress)?,
        (None, None) => unreachable!("a store is read when no packed table is"),
    };
    let text = render(cfg.format, &tables, &source, &cfg.options);
    let text = match &cfg.out {
        Some(path) => {
            output::write(path, text.as_bytes(), Writes::Other, &[&source_path]).map_err(
                |source| ExportFileError::Write {
                    path: path.clone(),
                    source,
                },
            )?;
            None
        }
        None => Some(text),
    };
    progress.note(&format!(
        "{} layout, {} magics: {}",
        match tables.layout {
            Layout::Fancy => "2^bits",
            l => l.name(),
        },
        tables.formula,
        tables.totals()
    ));
    Ok(text)
}

/// The tables of the store's magics of `cfg.formula` in `layout`, squares it lacks filled.
fn store_tables(
    cfg: &ExportConfig,
    from: &Reading,
    layout: Layout,
    progress: &mut dyn Progress,
) -> Result<(Tables, Source), ExportFileError> {
    let missing = from.missing();
    if missing && !cfg.allow_missing {
        return Err(ExportFileError::Missing(from.name()));
    }
    let store = crate::trust::load_counting(from, cfg.count_claimed, progress)?;
    if missing {
        progress.note(&format!(
            "{}: no such store; every square is filled at popcount bits (--allow-missing)",
            from.name()
        ));
    }
    let tables = Tables::build(&store, layout, cfg.formula)?;
    for s in tables.filled() {
        progress.note(&format!(
            "{}: not in the store{}; filled with a {}-bit magic {} found now",
            s.entry.target,
            match cfg.formula {
                Formula::Plain => "",
                Formula::Black => " as a black magic",
            },
            s.entry.bits,
            format_magic(s.entry.magic)
        ));
    }
    if let Some(p) = &tables.packed {
        progress.note(&format!("packed by {}", p.how));
    }
    Ok((tables, Source::of(&store, &from.name())))
}

/// The tables of the packed or indexed table at `path`, checked as a whole first (`layout`,
/// when given, must be the file's).
fn packed_tables(path: &Path, layout: Option<Layout>) -> Result<(Tables, Source), ExportFileError> {
    let shown = path.display().to_string();
    let refused = |what: &str| {
        let what = format!("{shown}: {what}");
        move |e: ExportError| ExportFileError::Packed {
            what,
            source: Box::new(e),
        }
    };
    let table = Table::read_as(path, crate::fs::input::Kind::PackedTable)?;
    if is_indexed(&table) {
        if let Some(l) = layout.filter(|&l| l != Layout::Indexed) {
            return Err(ExportFileError::PackedLayout(l));
        }
        let indexed = IndexedTable::from_table(&table)
            .map_err(|e| refused("cannot export it as an indexed table")(e.into()))?;
        let fill = indexed
            .check()
            .map_err(|e| refused("not a valid indexed table, nothing exported")(e.into()))?;
        let source = Source::of_indexed(&indexed, &fill, &shown);
        let how = format!("the indexed table {}", source.name);
        let tables = Tables::from_indexed(&indexed, fill, &Store::new(), how)
            .map_err(refused("cannot export it as an indexed table"))?;
        return Ok((tables, source));
    }
    let packed = PackedTable::from_table(&table)
        .map_err(|e| refused("cannot export it as a packed table")(e.into()))?;
    let fill = packed
        .check()
        .map_err(|e| refused("not a valid packed table, nothing exported")(e.into()))?;
    let source = Source::of_packed(&packed, &fill, &shown);
    if layout == Some(Layout::Indexed) {
        // Its offsets as one-byte ids with the shared lists: its slots never meet, so every
        // square's ids fit as the lists give them.
        let placed = packed
            .entries
            .iter()
            .map(|p| (p.entry.clone(), p.offset))
            .collect();
        let mut indexed = IndexedTable::new(placed, crate::layout::lists::shared());
        indexed.declared = Some(fill.size);
        let ifill = indexed
            .check()
            .map_err(|e| refused("cannot lay it out with one-byte ids")(e.into()))?;
        let how = format!(
            "the packed table {} as one-byte ids with the shared lists",
            source.name
        );
        let tables = Tables::from_indexed(&indexed, ifill, &Store::new(), how)
            .map_err(refused("cannot export it as an indexed table"))?;
        return Ok((tables, source));
    }
    let how = format!("the packed table {}", source.name);
    let tables = Tables::from_packed(&packed, fill, &Store::new(), how)
        .map_err(refused("cannot export it as a packed table"))?;
    Ok((tables, source))
}
