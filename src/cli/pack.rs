//! `magichunt pack`: the store's magics in one shared array (the packed layout), written as a
//! packed table in the table format; optionally hunting magics that fit the array's holes.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args;
use serde_json::json;

use super::{formula_arg, Outcome};
use crate::export::kib;
use crate::interrupt::{self, Stop};
use crate::layout::pack::{complete, pack_entries, PackOptions};
use crate::layout::refit::{refit, RefitOptions};
use crate::layout::{per_square_size, Layout, PackedTable};
use crate::output::{self, Writes};
use crate::question::Formula;
use crate::store::Store;
use crate::table::Table;
use crate::timefmt::{format_duration, parse_duration};

/// Arguments of `pack`.
#[derive(Debug, Args)]
pub struct PackArgs {
    /// The results store whose magics are packed.
    #[arg(long, default_value = super::stores::DEFAULT_STORE)]
    store: PathBuf,
    /// Pack the store's magics of this formula (plain or black).
    #[arg(long, default_value = "plain", value_parser = formula_arg)]
    formula: Formula,
    /// Start from this packed table (its magics and offsets) instead of the store: resumes an
    /// earlier `pack`.
    #[arg(long, conflicts_with_all = ["store", "formula"])]
    from: Option<PathBuf>,
    /// Where to write the packed table (`-`: stdout).
    #[arg(long, default_value = "-")]
    out: PathBuf,
    /// Ruin-and-recreate steps after first-fit decreasing (0: none).
    #[arg(long, default_value_t = 20_000)]
    steps: u64,
    /// Stop the ruin-and-recreate steps after this long (90s, 10m).
    #[arg(long)]
    time: Option<String>,
    /// Hunt, for this long, new magics for the squares at the top of the array that fit the
    /// holes below (10m, 8h); the table is saved to `--out` whenever it shrinks.
    #[arg(long)]
    hunt: Option<String>,
    /// Bits above a square's own that the hunt may try (0: the same bits only).
    #[arg(long, default_value_t = 0)]
    spread: u32,
    /// Worker threads of the hunt (default: available cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Seed of the packer's and the hunt's choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `pack`.
pub(super) fn run(args: &PackArgs) -> anyhow::Result<Outcome> {
    let store_path = super::stores::for_reading(&args.store);
    let time = args.time.as_deref().map(parse_duration).transpose()?;
    let hunt = args.hunt.as_deref().map(parse_duration).transpose()?;
    if [time, hunt].contains(&Some(Duration::ZERO)) {
        bail!("invalid duration '0s' (expected more than zero)");
    }
    if args.hunt.is_some() && args.out.as_os_str() == "-" {
        bail!("--hunt saves the table as it shrinks: give --out FILE");
    }
    let threads = match args.threads {
        Some(0) => bail!("invalid threads 0 (expected 1 or more)"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, usize::from),
    };
    // The packed table may replace an earlier packed table (the one it resumes, say), never
    // a store: checked before the work, and again at every write.
    let inputs: Vec<&std::path::Path> = match &args.from {
        Some(_) => Vec::new(),
        None => vec![store_path.as_path()],
    };
    if args.out.as_os_str() != "-" {
        output::check(&args.out, Writes::PackedTable, &inputs)?;
    }
    let (entries, start, source) = match &args.from {
        Some(path) => {
            let table = PackedTable::from_table(&Table::read(path)?)
                .with_context(|| format!("cannot pack from {}", path.display()))?;
            let offsets: Vec<u32> = table.entries.iter().map(|p| p.offset).collect();
            table
                .fill()
                .map_err(|o| anyhow::anyhow!("{}: {o}", path.display()))?;
            let entries = table.entries.into_iter().map(|p| p.entry).collect();
            (entries, Some(offsets), path.display().to_string())
        }
        None => {
            if !store_path.exists() {
                bail!(
                    "no store at {} (a mistyped --store? pack needs magics to pack)",
                    store_path.display()
                );
            }
            let store = Store::load(&store_path)?;
            let (entries, filled) = complete(&store, args.formula)?;
            for t in &filled {
                crate::say!(
                    "magichunt: the store has no {} magic for {t}: filled at popcount bits",
                    args.formula
                );
            }
            (entries, None, store_path.display().to_string())
        }
    };
    let stop = Stop::new();
    interrupt::install(&stop)?;
    let t0 = Instant::now();
    let opts = PackOptions {
        steps: args.steps,
        time,
        seed: args.seed,
    };
    let (mut table, mut fill, packing) =
        pack_entries(&entries, start.as_deref(), &opts, stop.flag())?;
    crate::say!(
        "magichunt: {} squares from {source}: fancy {} entries, tight {}; packed {} by first-fit decreasing{}, {} after {} ruin-and-recreate steps ({} slots used, {} shared), {}",
        entries.len(),
        per_square_size(Layout::Fancy, &entries),
        per_square_size(Layout::Tight, &entries),
        packing.first_size,
        if start.is_some() { " (the starting table)" } else { "" },
        fill.size,
        packing.steps,
        fill.used,
        fill.shared,
        format_duration(t0.elapsed())
    );
    let meta = |steps: u64, hunted: Option<&str>| {
        let mut m = std::collections::BTreeMap::new();
        m.insert(
            "about".to_string(),
            json!(format!(
                "Packed by magichunt {}: one attack array shared by all squares, slot = offset + index_with(formula, occ, mask, magic, bits).",
                env!("CARGO_PKG_VERSION")
            )),
        );
        m.insert("source".to_string(), json!(source));
        let mut algorithm = format!(
            "first-fit decreasing (by span, then by slots used; equal attack sets share slots), then {steps} ruin-and-recreate steps, seed {}",
            args.seed
        );
        if let Some(h) = hunted {
            algorithm.push_str(&format!("; refit hunt: {h}"));
        }
        m.insert("algorithm".to_string(), json!(algorithm));
        m
    };
    table.meta = meta(packing.steps, None);
    write(&args.out, &table.to_json(&fill), &inputs)?;
    if let Some(limit) = hunt {
        let ropts = RefitOptions {
            time: limit,
            seed: args.seed,
            threads,
            spread: args.spread,
            pack_steps: 200,
        };
        // What the hunt had done when the table was written: the time it ran, not its limit.
        let hunt_start = std::time::Instant::now();
        let note = || {
            format!(
                "{} (of at most {}) on {threads} threads, up to {} bits above each square's own, seed {}",
                format_duration(hunt_start.elapsed()),
                format_duration(limit),
                args.spread,
                args.seed
            )
        };
        let mut failed = None;
        let mut save = |t: &PackedTable, f: &crate::layout::Fill| -> bool {
            let mut t = t.clone();
            t.meta = meta(packing.steps, Some(&note()));
            match write(&args.out, &t.to_json(f), &inputs) {
                Ok(()) => {
                    crate::say!(
                        "magichunt: {} entries ({} KiB), {} slots used, after {}: saved",
                        f.size,
                        kib(f.size),
                        f.used,
                        format_duration(t0.elapsed())
                    );
                    true
                }
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        };
        let (t, f) = refit(&table, &ropts, stop.flag(), &mut save)?;
        if let Some(e) = failed {
            return Err(e);
        }
        table = t;
        table.meta = meta(packing.steps, Some(&note()));
        fill = f;
        write(&args.out, &table.to_json(&fill), &inputs)?;
    }
    crate::say!(
        "magichunt: packed table of {} entries ({} KiB), {} slots used, checked by filling every subset of every square; written to {}",
        fill.size,
        kib(fill.size),
        fill.used,
        if args.out.as_os_str() == "-" {
            "stdout".to_string()
        } else {
            args.out.display().to_string()
        }
    );
    Ok(if stop.signalled() {
        Outcome::Interrupted
    } else {
        Outcome::Success
    })
}

fn write(out: &std::path::Path, text: &str, inputs: &[&std::path::Path]) -> anyhow::Result<()> {
    if out.as_os_str() == "-" {
        std::io::stdout().lock().write_all(text.as_bytes())?;
    } else {
        output::write(out, text.as_bytes(), Writes::PackedTable, inputs)
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(())
}
