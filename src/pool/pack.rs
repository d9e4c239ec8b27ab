//! `magichunt pack` in one call, [`pack`]: magics in one shared array (the packed layout),
//! written as a packed table in the table format. The magics come from a store, or from a
//! packed table to improve; with a pool every square may also take any magic of the pool, and
//! the packer ([`crate::layout::pack`]) chooses magics and offsets together. Optionally a
//! refit hunt ([`crate::layout::refit`]) looks for magics that fit the array's holes.
//!
//! The job lives with the pools, not in [`crate::layout`], because it reads them: a pool
//! keeps slot patterns of the layout room, so the pool room sits above it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::Pool;
use crate::error::TableError;
use crate::fs::output::{self, OutputError, Writes};
use crate::interrupt::Stop;
use crate::layout::pack::{complete, pack_choosing, PackOptions, Packing};
use crate::layout::pack_indexed::ListsMode;
use crate::layout::refit::{refit, RefitOptions};
use crate::layout::{
    per_square_size, Fill, Layout, LayoutError, PackedEntry, PackedTable, Pattern,
};
use crate::locate::LocateError;
use crate::magic::verify_question;
use crate::progress::{count, Progress};
use crate::question::{Formula, Question};
use crate::size::kib;
use crate::table::{Entry, Table};
use crate::timefmt::{format_duration, process_cpu_seconds};

/// A packed table's record of how it was made.
type Meta = BTreeMap<String, Value>;

/// A long run keeps its best table on disk at most this often.
pub(super) const CHECKPOINT: Duration = Duration::from_secs(30);

/// What `magichunt pack` packs, how, and where the table goes.
#[derive(Clone, Debug)]
pub struct PackConfig {
    /// The store whose magics are packed (`None`: the default one, see
    /// [`crate::locate::for_reading`]).
    pub store: Option<PathBuf>,
    /// The store's magics of this formula.
    pub formula: Formula,
    /// Start from this packed table (its magics and offsets) instead of the store.
    pub from: Option<PathBuf>,
    /// Let every square also take any magic of this pool.
    pub pool: Option<PathBuf>,
    /// With a pool: magics per square the packer chooses among at most (at least 1).
    pub choices: usize,
    /// Fixed shift: every rook at 12 bits and every bishop at 9, one shift per piece (the
    /// category of the published fixed-shift tables, whose lookup writes the shift into the
    /// code). A store's magic at fewer bits is taken at the piece's bits (a magic valid at
    /// `b` bits is valid at every count above); pool magics at other bits are not offered.
    pub fixed_shift: bool,
    /// With a pool: rank magics by their slots plus their holes of at most this many slots
    /// (`None`: the pool's own gap).
    pub gap: Option<u32>,
    /// Where the packed table goes, rewritten whenever it shrinks during a long run (`None`:
    /// [`pack`] returns it, at the end).
    pub out: Option<PathBuf>,
    /// Annealing steps after first-fit decreasing (`None`: 20,000, or as many as fit in
    /// `time`).
    pub steps: Option<u64>,
    /// Stop the annealing after this long; the temperature falls over it.
    pub time: Option<Duration>,
    /// Starting temperature of the annealing, in entries (1 or more).
    pub hot: f64,
    /// Hunt, for this long, magics that fit the holes (needs `out`, and no pool).
    pub hunt: Option<Duration>,
    /// Bits above a square's own that the hunt may try.
    pub spread: u32,
    /// Worker threads of the hunt (at least 1).
    pub threads: usize,
    /// Seed of the packer's and the hunt's choices.
    pub seed: u64,
    /// How the table was made, for its record (the command line).
    pub command: String,
    /// The layout made: packed (8-byte slots) or indexed (one-byte ids, see
    /// [`super::indexed`]).
    pub layout: Layout,
    /// Indexed: shared lists or lists of each square's own.
    pub lists: ListsMode,
    /// Indexed: taken slots a square may meet where it is placed (with ids equal to its own).
    pub hits: u32,
}

impl PackConfig {
    /// The annealing's options: `steps`, else unbounded under `time`, else 20,000.
    pub(super) fn options(&self) -> PackOptions {
        PackOptions {
            steps: self.steps.unwrap_or(if self.time.is_some() {
                u64::MAX
            } else {
                20_000
            }),
            time: self.time,
            seed: self.seed,
            hot: self.hot,
            cold: 1.0,
        }
    }

    /// The default store's plain magics, 20,000 annealing steps from 100 entries, seed 1,
    /// the table returned.
    #[must_use]
    pub fn new() -> PackConfig {
        PackConfig {
            store: None,
            formula: Formula::Plain,
            from: None,
            pool: None,
            choices: 24,
            fixed_shift: false,
            gap: None,
            out: None,
            steps: None,
            time: None,
            hot: 100.0,
            hunt: None,
            spread: 0,
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            seed: 1,
            command: "magichunt pack".into(),
            layout: Layout::Packed,
            lists: ListsMode::Shared,
            hits: crate::layout::ids::DEFAULT_HITS,
        }
    }

    /// Refuses settings that cannot work together.
    ///
    /// # Errors
    /// [`PackError::Config`] naming the setting.
    pub fn check(&self) -> Result<(), PackError> {
        let bad = |s: &str| Err(PackError::Config(s.into()));
        if [self.time, self.hunt].contains(&Some(Duration::ZERO)) {
            return bad("invalid duration '0s' (expected more than zero)");
        }
        if self.hunt.is_some() && self.out.is_none() {
            return bad("--hunt saves the table as it shrinks: give --out FILE");
        }
        if self.hunt.is_some() && self.pool.is_some() {
            return bad(
                "--hunt refits single magics; with --pool the packer chooses among the pool's",
            );
        }
        if self.choices == 0 {
            return bad("invalid choices 0 (expected 1 or more)");
        }
        if !(self.hot.is_finite() && self.hot >= 1.0) {
            return Err(PackError::Config(format!(
                "invalid hot {} (expected a temperature of 1 or more)",
                self.hot
            )));
        }
        if self.threads == 0 {
            return bad("invalid threads 0 (expected 1 or more)");
        }
        if !self.layout.shared() {
            return Err(PackError::Config(format!(
                "invalid layout {} (pack makes packed or indexed tables)",
                self.layout
            )));
        }
        if self.layout == Layout::Indexed && self.hunt.is_some() {
            return bad("--hunt refits the magics of a packed table, not of an indexed one");
        }
        Ok(())
    }
}

impl Default for PackConfig {
    fn default() -> PackConfig {
        PackConfig::new()
    }
}

/// Why a table could not be packed or written.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// Settings that cannot work together.
    #[error("{0}")]
    Config(String),
    /// The store cannot be read.
    #[error(transparent)]
    Locate(#[from] LocateError),
    /// There is no store where one was named.
    #[error("no store at {0} (a mistyped --store? pack needs magics to pack)")]
    Missing(String),
    /// The starting table or the pool cannot be read.
    #[error(transparent)]
    Table(#[from] TableError),
    /// The starting table does not hold together.
    #[error("cannot pack from {path}")]
    From {
        /// The table.
        path: PathBuf,
        /// Why.
        source: LayoutError,
    },
    /// The starting table's squares overlap.
    #[error("{0}")]
    Overlap(String),
    /// Packing or the refit hunt failed its own check.
    #[error(transparent)]
    Layout(#[from] LayoutError),
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

/// What [`pack`] made.
#[derive(Clone, Debug)]
pub struct Packed {
    /// The packed table's text, when it was not written to a file.
    pub text: Option<String>,
    /// Entries of the shared array.
    pub size: u64,
    /// Stopped by Ctrl-C (the best table so far is kept).
    pub interrupted: bool,
}

/// The commands that made a table, oldest first: its `commands_before`, then its `command`.
pub(super) fn history_of(meta: &std::collections::BTreeMap<String, Value>) -> Vec<String> {
    let mut history: Vec<String> = meta
        .get("commands_before")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str().map(str::to_string))
        .collect();
    history.extend(
        meta.get("command")
            .and_then(Value::as_str)
            .map(str::to_string),
    );
    history
}

/// The magics to pack: per square, its candidates (best first) and the start, if any.
pub(super) struct Source {
    pub(super) groups: Vec<Vec<Entry>>,
    pub(super) start: Option<(Vec<usize>, Vec<u32>)>,
    pub(super) name: String,
    pub(super) formula: Formula,
    /// The commands that made a starting table, oldest first (its `commands_before`, then
    /// its `command`), so that a table resumed many times still says how to rebuild it.
    pub(super) history: Vec<String>,
}

impl Source {
    /// Every candidate's slot pattern, square by square.
    pub(super) fn patterns(&self) -> Vec<Vec<Pattern>> {
        self.groups
            .iter()
            .map(|g| g.iter().map(Pattern::of).collect())
            .collect()
    }
}

/// A long run's saves of its best table: at most one every [`CHECKPOINT`], and the first
/// that failed kept to be returned when the run ends (a checkpoint cannot stop the packer).
pub(super) struct Checkpoints<'a> {
    out: Option<&'a Path>,
    last: Instant,
    failed: Option<PackError>,
}

impl<'a> Checkpoints<'a> {
    /// Saves to `out`, none when it is `None` (the table goes to stdout at the end).
    pub(super) fn new(out: Option<&'a Path>) -> Checkpoints<'a> {
        Checkpoints {
            out,
            last: Instant::now(),
            failed: None,
        }
    }

    /// Runs `save` with the output when a checkpoint is due, keeping its first error.
    pub(super) fn save(&mut self, save: impl FnOnce(&Path) -> Result<(), PackError>) {
        let Some(out) = self.out.filter(|_| self.last.elapsed() >= CHECKPOINT) else {
            return;
        };
        self.last = Instant::now();
        if let Err(e) = save(out) {
            self.failed.get_or_insert(e);
        }
    }

    /// The first checkpoint that failed, if any.
    ///
    /// # Errors
    /// That checkpoint's [`PackError`].
    pub(super) fn result(self) -> Result<(), PackError> {
        self.failed.map_or(Ok(()), Err)
    }
}

/// Packs as `cfg` says, until the annealing ends or `stop` is set, then hunts magics that fit
/// the holes if asked; the table is checked by filling every subset of every square before
/// it is written. Notes (the sizes reached) go to `progress`.
///
/// # Errors
/// [`PackError`]: settings that cannot work together, a missing store, a starting table or
/// pool that cannot be read or does not hold, an output refused or not written.
pub fn pack(
    cfg: &PackConfig,
    stop: &Stop,
    progress: &mut dyn Progress,
) -> Result<Packed, PackError> {
    cfg.check()?;
    if cfg.layout == Layout::Indexed {
        return super::indexed::pack(cfg, stop, progress);
    }
    // The packed table may replace an earlier packed table (the one it resumes, say), never
    // a store: checked before the work, and again at every write.
    if let Some(out) = &cfg.out {
        output::check(out, Writes::PackedTable, &[])?;
    }
    let mut src = source(cfg, progress)?;
    if cfg.fixed_shift {
        fix_shift(&mut src, cfg.from.as_deref())?;
    }
    let pool_note = match &cfg.pool {
        Some(path) => Some(add_pool(&mut src, path, cfg, progress)?),
        None => None,
    };
    // Again, now that every input is read: never the pool, the store or a certificate it
    // reads (the packed table it resumes, it may replace).
    if let Some(out) = &cfg.out {
        output::check(out, Writes::PackedTable, &[])?;
    }
    let t0 = Instant::now();
    let cpu0 = process_cpu_seconds();
    let cpu = move || {
        process_cpu_seconds()
            .zip(cpu0)
            .map_or_else(|| t0.elapsed().as_secs_f64(), |(now, then)| now - then)
    };
    let describe = |steps: u64, hunted: Option<&str>| {
        meta(cfg, &src, pool_note.as_deref(), steps, hunted, cpu())
    };
    let (mut table, packing) = anneal(cfg, &src, stop, &describe)?;
    let mut fill = table.check()?;
    let chosen: Vec<Entry> = table.entries.iter().map(|p| p.entry.clone()).collect();
    progress.note(&format!(
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
    ));
    table.meta = describe(packing.steps, None);
    let mut text = table.to_json(&fill);
    if let Some(out) = &cfg.out {
        write(out, &text)?;
    }
    if let Some(limit) = cfg.hunt {
        let describe_hunt = |h: &str| describe(packing.steps, Some(h));
        (table, fill) = refit_hunt(cfg, &table, limit, stop, &describe_hunt, progress)?;
        text = table.to_json(&fill);
    }
    progress.note(&format!(
        "magichunt: packed table of {} entries ({} KiB), {} slots used, {} formula, checked by filling every subset of every square; written to {}",
        fill.size,
        kib(fill.size),
        fill.used,
        src.formula,
        cfg.out
            .as_ref()
            .map_or_else(|| "stdout".to_string(), |p| p.display().to_string())
    ));
    Ok(Packed {
        text: cfg.out.is_none().then_some(text),
        size: fill.size,
        interrupted: stop.signalled(),
    })
}

/// First-fit decreasing, then the annealing; the best table so far is written to `cfg.out`
/// at most every [`CHECKPOINT`], so that a kill or a stop leaves something to resume
/// from. Returns the table (its record not yet described) and the packing.
fn anneal(
    cfg: &PackConfig,
    src: &Source,
    stop: &Stop,
    describe: &dyn Fn(u64, Option<&str>) -> Meta,
) -> Result<(PackedTable, Packing), PackError> {
    let opts = cfg.options();
    let patterns = src.patterns();
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
    let mut saves = Checkpoints::new(cfg.out.as_deref());
    let mut checkpoint = |p: &Packing| {
        saves.save(|out| {
            let mut t = table_of(p);
            t.meta = describe(p.steps, None);
            let f = t.check()?;
            write(out, &t.to_json(&f))
        });
    };
    let packing = pack_choosing(
        &patterns,
        src.start.as_ref(),
        &opts,
        stop.flag(),
        &mut checkpoint,
    );
    saves.result()?;
    Ok((table_of(&packing), packing))
}

/// The packed table's record of how it was made.
fn meta(
    cfg: &PackConfig,
    src: &Source,
    pool_note: Option<&str>,
    steps: u64,
    hunted: Option<&str>,
    cpu: f64,
) -> Meta {
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
        cfg.hot,
        cfg.seed
    );
    if let Some(note) = pool_note {
        algorithm.push_str(&format!("; {note}"));
    }
    if cfg.fixed_shift {
        algorithm.push_str("; fixed shift: every rook at 12 bits, every bishop at 9");
    }
    if let Some(h) = hunted {
        algorithm.push_str(&format!("; refit hunt: {h}"));
    }
    m.insert("algorithm".to_string(), json!(algorithm));
    m.insert("command".to_string(), json!(cfg.command));
    if !src.history.is_empty() {
        m.insert("commands_before".to_string(), json!(src.history));
    }
    m.insert(
        "cpu_seconds".to_string(),
        json!((cpu * 10.0).round() / 10.0),
    );
    m
}

/// The store's magics (one per square, filled at popcount bits where it has none) or a
/// packed table's magics and offsets.
pub(super) fn source(cfg: &PackConfig, progress: &mut dyn Progress) -> Result<Source, PackError> {
    if let Some(path) = &cfg.from {
        let from_err = |source| PackError::From {
            path: path.clone(),
            source,
        };
        let read = Table::read_as(path, crate::fs::input::Kind::PackedTable)?;
        if crate::layout::indexed::is_indexed(&read) {
            return Err(from_err(LayoutError::Format(
                "it is an indexed table (one-byte ids): resume it with `--layout indexed`".into(),
            )));
        }
        let table = PackedTable::from_table(&read).map_err(from_err)?;
        table
            .fill()
            .map_err(|o| PackError::Overlap(format!("{}: {o}", path.display())))?;
        let formula = table.formula().unwrap_or(Formula::Plain);
        let offsets = table.entries.iter().map(|p| p.offset).collect();
        let history = history_of(&table.meta);
        let groups: Vec<Vec<Entry>> = table.entries.into_iter().map(|p| vec![p.entry]).collect();
        return Ok(Source {
            start: Some((vec![0; groups.len()], offsets)),
            groups,
            name: path.display().to_string(),
            formula,
            history,
        });
    }
    let from = crate::locate::for_reading(cfg.store.as_deref(), progress);
    if from.missing() {
        return Err(PackError::Missing(from.name()));
    }
    let store = from.load()?;
    let (entries, filled) = complete(&store, cfg.formula)?;
    for t in &filled {
        progress.note(&format!(
            "magichunt: the store has no {} magic for {t}: filled at popcount bits",
            cfg.formula
        ));
    }
    Ok(Source {
        groups: entries.into_iter().map(|e| vec![e]).collect(),
        start: None,
        name: from.name(),
        formula: cfg.formula,
        history: Vec::new(),
    })
}

/// Offers every square the pool's magics of the source's formula beside its own: the best
/// `cfg.choices` of them all by footprint at `cfg.gap` (the pool's gap when not given). A
/// starting table's magic is always kept, first, where its pick points. Returns a note for
/// the table's `algorithm`.
pub(super) fn add_pool(
    src: &mut Source,
    path: &Path,
    cfg: &PackConfig,
    progress: &mut dyn Progress,
) -> Result<String, PackError> {
    let pool = Pool::read(path)?;
    let (choices, gap) = (cfg.choices, cfg.gap.unwrap_or(pool.gap));
    let footprint = |e: &Entry| Pattern::of(e).footprint(gap);
    let mut offered = 0;
    for group in &mut src.groups {
        let own = group[0].clone();
        let same = |e: &Entry| e.magic == own.magic && e.bits == own.bits;
        let mut members: Vec<(u32, Entry)> = pool
            .of_target(own.target, src.formula)
            .into_iter()
            .filter(|m| !same(&m.entry))
            .filter(|m| !cfg.fixed_shift || m.entry.bits == own.target.piece.max_bits())
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
    progress.note(&format!(
        "magichunt: {} magics of {} offered with the squares' own, the best {} per square by footprint at gap {} ({} in the pool)",
        offered,
        path.display(),
        choices,
        gap,
        pool.len(),
    ));
    Ok(format!(
        "magics chosen among the best {choices} per square, by footprint at gap {gap}, of the source's and pool {}",
        path.display(),
    ))
}

/// Takes every square's magic at its piece's top bits (12 for a rook, 9 for a bishop): a
/// store's magic at fewer bits is verified again at the piece's bits. A starting table must
/// already be fixed shift (its offsets would not hold otherwise).
fn fix_shift(src: &mut Source, from: Option<&Path>) -> Result<(), PackError> {
    for group in &mut src.groups {
        let e = &mut group[0];
        let bits = e.target.piece.max_bits();
        if e.bits == bits {
            continue;
        }
        if let Some(path) = from {
            return Err(PackError::Config(format!(
                "--fixed-shift: {} has {} at {} bits, not {bits} (pack it from a store instead)",
                path.display(),
                e.target,
                e.bits
            )));
        }
        let q = Question {
            target: e.target,
            bits,
            formula: e.formula,
        };
        let v = verify_question(q, e.magic).map_err(|c| {
            PackError::Layout(LayoutError::Format(format!(
                "the magic of {} at {} bits fails at {bits} (slot {} taken twice)",
                e.target, e.bits, c.index
            )))
        })?;
        e.extra.insert("from_bits".into(), e.bits.into());
        (e.bits, e.max_index, e.min_index) = (v.bits, v.max_index, v.min_index);
    }
    Ok(())
}

/// The refit hunt after packing: new magics for the squares at the top of the array, the
/// table saved to `cfg.out` whenever it shrinks.
fn refit_hunt(
    cfg: &PackConfig,
    table: &PackedTable,
    limit: Duration,
    stop: &Stop,
    describe: &dyn Fn(&str) -> Meta,
    progress: &mut dyn Progress,
) -> Result<(PackedTable, Fill), PackError> {
    let out = cfg.out.as_deref().ok_or_else(|| {
        PackError::Config("--hunt saves the table as it shrinks: give --out FILE".into())
    })?;
    let ropts = RefitOptions {
        time: limit,
        seed: cfg.seed,
        threads: cfg.threads,
        spread: cfg.spread,
        pack_steps: 200,
    };
    let hunt_start = Instant::now();
    let note = || {
        format!(
            "{} (of at most {}) on {}, up to {} bits above each square's own, seed {}",
            format_duration(hunt_start.elapsed()),
            format_duration(limit),
            count(cfg.threads, "thread"),
            cfg.spread,
            cfg.seed
        )
    };
    let mut failed = None;
    let mut save = |t: &PackedTable, f: &Fill| -> bool {
        let mut t = t.clone();
        t.meta = describe(&note());
        match write(out, &t.to_json(f)) {
            Ok(()) => {
                progress.note(&format!(
                    "magichunt: {} entries ({} KiB), {} slots used, after {}: saved",
                    f.size,
                    kib(f.size),
                    f.used,
                    format_duration(hunt_start.elapsed())
                ));
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
    t.meta = describe(&note());
    write(out, &t.to_json(&f))?;
    Ok((t, f))
}

/// Writes the table to `out` through the output guard: it may replace a packed table, never
/// a store.
pub(super) fn write(out: &Path, text: &str) -> Result<(), PackError> {
    output::write(out, text.as_bytes(), Writes::PackedTable, &[])
        .map(|_| ())
        .map_err(|source| PackError::Write {
            path: out.to_path_buf(),
            source,
        })
}
