//! `magichunt export`: the store as Rust, C or JSON for an engine.

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use super::stores::Reading;
use super::{formula_arg, Outcome};
use crate::export::{render, Format, Layout, Options, Prefix, Source, Tables};
use crate::layout::PackedTable;
use crate::output::{self, Writes};
use crate::question::Formula;
use crate::store::Store;
use crate::table::Table;

/// Arguments of `export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// rust, c or json.
    #[arg(long, value_parser = |s: &str| s.parse::<Format>())]
    format: Format,
    /// The results store to export; a given one must exist (see --allow-missing)
    /// [default: results/mine.json in a checkout, else your own store in the data folder; when
    /// it does not exist yet, the shipped results/best.json or the table built into magichunt;
    /// MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Export even if the store does not exist: every square filled at popcount bits.
    #[arg(long)]
    allow_missing: bool,
    /// Write here (atomically) instead of stdout; `-` is stdout. Never a store.
    #[arg(long)]
    out: Option<PathBuf>,
    /// fancy (each square 2^bits entries in its piece's table), tight (max_index - min_index + 1
    /// entries) or packed (one table shared by rooks and bishops, offsets chosen by the packer:
    /// first-fit decreasing, then 20000 seeded annealing steps, as `magichunt pack`).
    #[arg(long, value_parser = |s: &str| s.parse::<Layout>(), conflicts_with = "tight")]
    layout: Option<Layout>,
    /// The same as --layout tight.
    #[arg(long)]
    tight: bool,
    /// Export the store's magics of this formula: plain, or black (index
    /// ((occ | ~mask) * magic) >> (64 - bits)).
    #[arg(long, default_value = "plain", value_parser = formula_arg)]
    formula: Formula,
    /// Export this packed table (written by `magichunt pack`) as it is, instead of a store:
    /// checked as a whole first (every subset of every square in the shared array).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["store", "allow_missing", "formula", "tight"])]
    packed: Option<PathBuf>,
    /// Count every proof the store records as proven in the header, also those only claimed
    /// (not checked here).
    #[arg(long, conflicts_with = "packed")]
    count_claimed: bool,
    /// Rust and C: add the table fill by ray walk and rook_attacks / bishop_attacks.
    #[arg(long)]
    with_lookup: bool,
    /// Rust and C: put P in front of every public name (C: P lower-case for functions and
    /// types, upper-case for macros and constants; `mh_` gives mh_rook_attacks, MH_ROOK_MAGICS).
    #[arg(long, value_name = "P", value_parser = |s: &str| s.parse::<Prefix>())]
    prefix: Option<Prefix>,
}

/// Runs `export`.
pub(super) fn run(args: &ExportArgs) -> anyhow::Result<Outcome> {
    // The store is read only when there is no --packed table (and said only then).
    let from = match &args.packed {
        Some(_) => None,
        None => Some(super::stores::for_reading(args.store.as_deref())),
    };
    // Checked before the work, and again as it is written (the output guard): never the
    // store or packed table it comes from (for the built-in table, the user's store it stands
    // in for), never another store or packed table.
    let source_path = match (&args.packed, &from) {
        (Some(p), _) => p.clone(),
        (None, Some(f)) => f.guarded_path(),
        (None, None) => unreachable!("a store is read when no packed table is"),
    };
    let out = args.out.as_ref().filter(|p| p.as_os_str() != "-");
    if let Some(path) = out {
        output::check(path, Writes::Other, &[&source_path])?;
    }
    let layout = match (args.layout, args.tight) {
        (Some(l), _) => l,
        (None, true) => Layout::Tight,
        (None, false) if args.packed.is_some() => Layout::Packed,
        (None, false) => Layout::Fancy,
    };
    if args.packed.is_some() && layout != Layout::Packed {
        anyhow::bail!("--packed exports a packed table as it is: --layout {layout} does not apply");
    }
    if args.format == Format::Json {
        if args.with_lookup {
            crate::say!("--with-lookup adds code to Rust and C only; the JSON export has none");
        }
        if args.prefix.is_some() {
            crate::say!("--prefix names the Rust and C items only; the JSON export has none");
        }
    }
    let (tables, source) = match (&args.packed, &from) {
        (Some(path), _) => packed_tables(path)?,
        (None, Some(from)) => store_tables(args, from, layout)?,
        (None, None) => unreachable!("a store is read when no packed table is"),
    };
    let options = Options {
        with_lookup: args.with_lookup,
        prefix: args.prefix.clone().unwrap_or_default(),
    };
    let text = render(args.format, &tables, &source, &options);
    match &out {
        Some(path) => output::write(path, text.as_bytes(), Writes::Other, &[&source_path])
            .map(|_| ())
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    crate::say!(
        "{} layout, {} magics: {}",
        match layout {
            Layout::Fancy => "2^bits",
            l => l.name(),
        },
        tables.formula,
        tables.totals()
    );
    Ok(Outcome::Success)
}

/// The tables of the store's magics of `--formula` in `layout`, squares it lacks filled.
fn store_tables(
    args: &ExportArgs,
    from: &Reading,
    layout: Layout,
) -> anyhow::Result<(Tables, Source)> {
    let missing = from.missing();
    if missing && !args.allow_missing {
        anyhow::bail!(
            "{}: no such store (--allow-missing exports popcount-filled tables from nothing)",
            from.name()
        );
    }
    let store = super::stores::load_counting(from, args.count_claimed)?;
    if missing {
        crate::say!(
            "{}: no such store; every square is filled at popcount bits (--allow-missing)",
            from.name()
        );
    }
    let tables = Tables::build(&store, layout, args.formula)?;
    for s in tables.filled() {
        crate::say!(
            "{}: not in the store{}; filled with a {}-bit magic {} found now",
            s.entry.target,
            match args.formula {
                Formula::Plain => "",
                Formula::Black => " as a black magic",
            },
            s.entry.bits,
            crate::magic::format_magic(s.entry.magic)
        );
    }
    if let Some(p) = &tables.packed {
        crate::say!("packed by {}", p.how);
    }
    Ok((tables, Source::of(&store, &from.name())))
}

/// The tables of the packed table at `path`, checked as a whole first.
fn packed_tables(path: &std::path::Path) -> anyhow::Result<(Tables, Source)> {
    let shown = path.display().to_string();
    let table = Table::read_as(path, crate::input::Kind::PackedTable)?;
    let packed = PackedTable::from_table(&table)
        .with_context(|| format!("{shown}: cannot export it as a packed table"))?;
    let fill = packed
        .check()
        .with_context(|| format!("{shown}: not a valid packed table, nothing exported"))?;
    let source = Source::of_packed(&packed, &fill, &shown);
    let tables = Tables::from_packed(
        &packed,
        fill,
        &Store::new(),
        format!("the packed table {}", source.name),
    )
    .with_context(|| format!("{shown}: cannot export it as a packed table"))?;
    Ok((tables, source))
}
