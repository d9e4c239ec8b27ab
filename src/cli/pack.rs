//! `magichunt pack`: magics in one shared array (the packed layout), written as a packed
//! table in the table format. The magics come from a store, or from a packed table to
//! improve (`--from`); with `--pool` every square may also take any magic of a pool, and the
//! packer chooses magics and offsets together. Optionally it hunts magics that fit the
//! array's holes (`--hunt`).

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Args;
use serde_json::json;

use super::{formula_arg, Outcome};
use crate::interrupt::{self, Stop};
use crate::layout::pack::{complete, pack_choosing, PackOptions, Packing};
use crate::layout::refit::{refit, RefitOptions};
use crate::layout::{per_square_size, Fill, Layout, PackedEntry, PackedTable, Pattern};
use crate::output::{self, Writes};
use crate::pool::Pool;
use crate::question::Formula;
use crate::size::kib;
use crate::table::{Entry, Table};
use crate::timefmt::{format_duration, parse_duration, process_cpu_seconds};

/// Arguments of `pack`.
#[derive(Debug, Args)]
pub struct PackArgs {
    /// The results store whose magics are packed [default: results/mine.json in a checkout,
    /// else your own store in the data folder; when it does not exist yet, the shipped
    /// results/best.json or the table built into magichunt; MAGICHUNT_STORE names the default].
    #[arg(long)]
    store: Option<PathBuf>,
    /// Pack the store's magics of this formula (plain or black).
    #[arg(long, default_value = "plain", value_parser = formula_arg)]
    formula: Formula,
    /// Start from this packed table (its magics and offsets) instead of the store: resumes an
    /// earlier `pack`; the result is never larger.
    #[arg(long, conflicts_with_all = ["store", "formula"])]
    from: Option<PathBuf>,
    /// Let every square also take any magic of this pool (`hunt --objective slots`): the
    /// packer chooses magics and offsets together.
    #[arg(long)]
    pool: Option<PathBuf>,
    /// With `--pool`: magics per square the packer chooses among at most, the best by
    /// footprint of the source's and the pool's (a `--from` table's magic always among them).
    #[arg(long, default_value_t = 24)]
    choices: usize,
    /// With `--pool`: rank magics by their slots plus their holes of at most this many slots
    /// (default: the pool's own gap).
    #[arg(long)]
    gap: Option<u32>,
    /// Where to write the packed table (`-`: stdout); written whenever the table shrinks
    /// during a long run, so that `--from` resumes it.
    #[arg(long, default_value = "-")]
    out: PathBuf,
    /// Annealing steps after first-fit decreasing (0: none).
    /// [default: 20000 without --time; with --time, as many as fit in it]
    #[arg(long)]
    steps: Option<u64>,
    /// Stop the annealing after this long (90s, 10m); the temperature falls over it.
    #[arg(long)]
    time: Option<String>,
    /// Starting temperature of the annealing, in entries (lower it to refine a good table).
    #[arg(long, default_value_t = 100.0)]
    hot: f64,
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

/// The magics to pack: per square, its candidates (best first) and the start, if any.
struct Source {
    groups: Vec<Vec<Entry>>,
    start: Option<(Vec<usize>, Vec<u32>)>,
    name: String,
    formula: Formula,
}

/// Runs `pack`.
pub(super) fn run(args: &PackArgs) -> anyhow::Result<Outcome> {
    let time = args.time.as_deref().map(parse_duration).transpose()?;
    let hunt = args.hunt.as_deref().map(parse_duration).transpose()?;
    if [time, hunt].contains(&Some(Duration::ZERO)) {
        bail!("invalid duration '0s' (expected more than zero)");
    }
    if args.hunt.is_some() && args.out.as_os_str() == "-" {
        bail!("--hunt saves the table as it shrinks: give --out FILE");
    }
    if args.hunt.is_some() && args.pool.is_some() {
        bail!("--hunt refits single magics; with --pool the packer chooses among the pool's");
    }
    if args.choices == 0 {
        bail!("invalid choices 0 (expected 1 or more)");
    }
    if !(args.hot.is_finite() && args.hot >= 1.0) {
        bail!(
            "invalid hot {} (expected a temperature of 1 or more)",
            args.hot
        );
    }
    let threads = match args.threads {
        Some(0) => bail!("invalid threads 0 (expected 1 or more)"),
        n => super::threads_or_all(n),
    };
    // The packed table may replace an earlier packed table (the one it resumes, say), never
    // a store: checked before the work, and again at every write.
    if args.out.as_os_str() != "-" {
        output::check(&args.out, Writes::PackedTable, &[])?;
    }
    let mut src = source(args)?;
    let pool_note = match &args.pool {
        Some(path) => Some(add_pool(&mut src, path, args.choices, args.gap)?),
        None => None,
    };
    // Again, now that every input is read: never the pool, the store or a certificate it
    // reads (the packed table it resumes, it may replace).
    if args.out.as_os_str() != "-" {
        output::check(&args.out, Writes::PackedTable, &[])?;
    }
    let stop = Stop::new();
    interrupt::install(&stop)?;
    let t0 = Instant::now();
    let cpu0 = process_cpu_seconds();
    let cpu = move || {
        process_cpu_seconds()
            .zip(cpu0)
            .map_or_else(|| t0.elapsed().as_secs_f64(), |(now, then)| now - then)
    };
    let opts = PackOptions {
        steps: args
            .steps
            .unwrap_or(if time.is_some() { u64::MAX } else { 20_000 }),
        time,
        seed: args.seed,
        hot: args.hot,
        cold: 1.0,
    };
    let patterns: Vec<Vec<Pattern>> = src
        .groups
        .iter()
        .map(|g| g.iter().map(Pattern::of).collect())
        .collect();
    let describe = |steps: u64, hunted: Option<&str>, cpu: f64| {
        let mut m = BTreeMap::new();
        m.insert(
            "about".to_string(),
            json!(format!(
                "Packed by magichunt {}: one attack array shared by all squares, slot = offset + index_with(formula, occ, mask, magic, bits).",
                env!("CARGO_PKG_VERSION")
            )),
        );
        m.insert("source".to_string(), json!(src.name));
        let mut algorithm = format!(
            "first-fit decreasing (by span, then by slots used), then {steps} annealing steps over the order of the squares{} (hot {}, seed {})",
            if pool_note.is_some() { " and each square's magic" } else { "" },
            args.hot,
            args.seed
        );
        if let Some(note) = &pool_note {
            algorithm.push_str(&format!("; {note}"));
        }
        if let Some(h) = hunted {
            algorithm.push_str(&format!("; refit hunt: {h}"));
        }
        m.insert("algorithm".to_string(), json!(algorithm));
        m.insert("command".to_string(), json!(command_line()));
        m.insert(
            "cpu_seconds".to_string(),
            json!((cpu * 10.0).round() / 10.0),
        );
        m
    };
    let table_of = |p: &Packing| PackedTable {
        entries: src
            .groups
            .iter()
            .zip(p.picks.iter().zip(&p.offsets))
            .map(|(g, (&pick, &offset))| PackedEntry {
                entry: g[pick].clone(),
                offset,
            })
            .collect(),
        declared: Some(p.size),
        stated_used: Some(p.used),
        meta: BTreeMap::new(),
    };
    // A long run keeps its best table on disk, at most every 30 s, so that a kill -9 or the
    // end of a session leaves something to resume from.
    let mut last_save = Instant::now();
    let mut failed = None;
    let mut checkpoint = |p: &Packing| {
        if args.out.as_os_str() == "-" || last_save.elapsed() < Duration::from_secs(30) {
            return;
        }
        last_save = Instant::now();
        let mut t = table_of(p);
        t.meta = describe(p.steps, None, cpu());
        let result = t
            .check()
            .map_err(anyhow::Error::from)
            .and_then(|f| write(&args.out, &t.to_json(&f)));
        if let Err(e) = result {
            failed.get_or_insert(e);
        }
    };
    let packing = pack_choosing(
        &patterns,
        src.start.as_ref(),
        &opts,
        stop.flag(),
        &mut checkpoint,
    );
    if let Some(e) = failed {
        return Err(e);
    }
    let mut table = table_of(&packing);
    let mut fill = table.check()?;
    let chosen: Vec<Entry> = table.entries.iter().map(|p| p.entry.clone()).collect();
    crate::say!(
        "magichunt: {} squares from {}: fancy {} entries, tight {}; packed {} by {}, {} after {} annealing steps ({} slots used), {}",
        chosen.len(),
        src.name,
        per_square_size(Layout::Fancy, &chosen),
        per_square_size(Layout::Tight, &chosen),
        packing.first_size,
        if src.start.is_some() { "the starting table" } else { "first-fit decreasing" },
        fill.size,
        packing.steps,
        fill.used,
        format_duration(t0.elapsed())
    );
    table.meta = describe(packing.steps, None, cpu());
    write(&args.out, &table.to_json(&fill))?;
    if let Some(limit) = hunt {
        let describe_hunt = |h: &str, c: f64| describe(packing.steps, Some(h), c);
        (_, fill) = refit_hunt(args, &table, limit, threads, &stop, &describe_hunt, &cpu)?;
    }
    crate::say!(
        "magichunt: packed table of {} entries ({} KiB), {} slots used, {} formula, checked by filling every subset of every square; written to {}",
        fill.size,
        kib(fill.size),
        fill.used,
        src.formula,
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

/// The store's magics (one per square, filled at popcount bits where it has none) or a
/// packed table's magics and offsets.
fn source(args: &PackArgs) -> anyhow::Result<Source> {
    if let Some(path) = &args.from {
        let table =
            PackedTable::from_table(&Table::read_as(path, crate::input::Kind::PackedTable)?)
                .with_context(|| format!("cannot pack from {}", path.display()))?;
        table
            .fill()
            .map_err(|o| anyhow::anyhow!("{}: {o}", path.display()))?;
        let formula = table.formula().unwrap_or(Formula::Plain);
        let offsets = table.entries.iter().map(|p| p.offset).collect();
        let groups: Vec<Vec<Entry>> = table.entries.into_iter().map(|p| vec![p.entry]).collect();
        return Ok(Source {
            start: Some((vec![0; groups.len()], offsets)),
            groups,
            name: path.display().to_string(),
            formula,
        });
    }
    let from = super::stores::for_reading(args.store.as_deref());
    if from.missing() {
        bail!(
            "no store at {} (a mistyped --store? pack needs magics to pack)",
            from.name()
        );
    }
    let store = from.load()?;
    let (entries, filled) = complete(&store, args.formula)?;
    for t in &filled {
        crate::say!(
            "magichunt: the store has no {} magic for {t}: filled at popcount bits",
            args.formula
        );
    }
    Ok(Source {
        groups: entries.into_iter().map(|e| vec![e]).collect(),
        start: None,
        name: from.name(),
        formula: args.formula,
    })
}

/// Offers every square the pool's magics of the source's formula beside its own: the best
/// `choices` of them all by footprint at `gap` (the pool's gap when not given). A starting
/// table's magic is always kept, first, where its pick points. Returns a note for the
/// table's `algorithm`.
fn add_pool(
    src: &mut Source,
    path: &Path,
    choices: usize,
    gap: Option<u32>,
) -> anyhow::Result<String> {
    let pool = Pool::read(path)?;
    let gap = gap.unwrap_or(pool.gap);
    let footprint = |e: &Entry| Pattern::of(e).footprint(gap);
    let mut offered = 0;
    for group in &mut src.groups {
        let own = group[0].clone();
        let same = |e: &Entry| e.magic == own.magic && e.bits == own.bits;
        let mut members: Vec<(u32, Entry)> = pool
            .of_target(own.target, src.formula)
            .into_iter()
            .filter(|m| !same(&m.entry))
            .map(|m| {
                let f = if gap == pool.gap {
                    m.footprint
                } else {
                    footprint(&m.entry)
                };
                (f, m.entry.clone())
            })
            .collect();
        members.push((footprint(&own), own.clone()));
        members.sort_by_key(|(f, e)| (*f, e.bits, e.magic));
        members.truncate(choices);
        if src.start.is_some() {
            // The starting table's magic stays at position 0, where its pick points.
            members.retain(|(_, e)| !same(e));
            members.insert(0, (footprint(&own), own.clone()));
        }
        offered += members.iter().filter(|(_, e)| !same(e)).count();
        *group = members.into_iter().map(|(_, e)| e).collect();
    }
    crate::say!(
        "magichunt: {} magics of {} offered with the squares' own, the best {} per square by footprint at gap {} ({} in the pool)",
        offered,
        path.display(),
        choices,
        gap,
        pool.len(),
    );
    Ok(format!(
        "magics chosen among the best {choices} per square, by footprint at gap {gap}, of the source's and pool {}",
        path.display(),
    ))
}

/// The refit hunt after packing: new magics for the squares at the top of the array.
fn refit_hunt(
    args: &PackArgs,
    table: &PackedTable,
    limit: Duration,
    threads: usize,
    stop: &Stop,
    describe: &dyn Fn(&str, f64) -> BTreeMap<String, serde_json::Value>,
    cpu: &dyn Fn() -> f64,
) -> anyhow::Result<(PackedTable, Fill)> {
    let ropts = RefitOptions {
        time: limit,
        seed: args.seed,
        threads,
        spread: args.spread,
        pack_steps: 200,
    };
    let hunt_start = Instant::now();
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
    let mut save = |t: &PackedTable, f: &Fill| -> bool {
        let mut t = t.clone();
        t.meta = describe(&note(), cpu());
        match write(&args.out, &t.to_json(f)) {
            Ok(()) => {
                crate::say!(
                    "magichunt: {} entries ({} KiB), {} slots used, after {}: saved",
                    f.size,
                    kib(f.size),
                    f.used,
                    format_duration(hunt_start.elapsed())
                );
                true
            }
            Err(e) => {
                failed = Some(e);
                false
            }
        }
    };
    let (mut t, f) = refit(table, &ropts, stop.flag(), &mut save)?;
    if let Some(e) = failed {
        return Err(e);
    }
    t.meta = describe(&note(), cpu());
    write(&args.out, &t.to_json(&f))?;
    Ok((t, f))
}

/// The command line as run, for the table's record of how it was made.
fn command_line() -> String {
    let mut words = vec!["magichunt".to_string()];
    words.extend(std::env::args().skip(1));
    words.join(" ")
}

/// Writes the table to `out` (`-`: stdout) through the output guard: it may replace a packed
/// table, never a store.
fn write(out: &Path, text: &str) -> anyhow::Result<()> {
    if out.as_os_str() == "-" {
        std::io::stdout().lock().write_all(text.as_bytes())?;
    } else {
        output::write(out, text.as_bytes(), Writes::PackedTable, &[])
            .with_context(|| format!("cannot write {}", out.display()))?;
    }
    Ok(())
}
