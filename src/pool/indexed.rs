//! `magichunt pack --layout indexed`: the magics of a store, a packed table or an indexed
//! table (`--from`), with a pool's beside them, in one array of one-byte ids
//! ([`crate::layout::indexed`]), written as an indexed table. The packer chooses magics,
//! offsets and (with `--lists own`) ids together ([`crate::layout::pack_indexed`]); the
//! table is checked by filling every subset of every square before it is written, at most
//! every 30 seconds during a long run and at the end.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{json, Value};

use super::pack::{add_pool, source, write, Checkpoints, PackConfig, PackError, Packed, Source};
use crate::fs::output::{self, Writes};
use crate::interrupt::Stop;
use crate::layout::indexed::{is_indexed, IndexedTable};
use crate::layout::lists::{self, attack_sets, Lists};
use crate::layout::pack_indexed::{
    indexed_table, pack_indexed, shared_ids, IndexedPacking, ListsMode,
};
use crate::layout::Usage;
use crate::piece::Target;
use crate::progress::Progress;
use crate::question::Formula;
use crate::table::{Entry, Table};
use crate::timefmt::{format_duration, process_cpu_seconds};

/// The indexed table a run resumes: its lists and every square's ids.
struct From {
    lists: Lists,
    ids: Vec<Vec<u8>>,
}

/// Packs an indexed table as `cfg` says (its layout is [`crate::layout::Layout::Indexed`]).
///
/// # Errors
/// [`PackError`], as [`super::pack::pack`].
pub(super) fn pack(
    cfg: &PackConfig,
    stop: &Stop,
    progress: &mut dyn Progress,
) -> Result<Packed, PackError> {
    if let Some(out) = &cfg.out {
        output::check(out, Writes::PackedTable, &[])?;
    }
    let (mut src, from) = indexed_source(cfg, progress)?;
    let pool_note = match &cfg.pool {
        Some(path) => Some(add_pool(&mut src, path, cfg, progress)?),
        None => None,
    };
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
    let targets: Vec<Target> = src.groups.iter().map(|g| g[0].target).collect();
    // The lists and, with shared lists, the ids they fix: the table's own when resuming one.
    let (lists, fixed): (Option<Lists>, Option<Vec<Vec<u8>>>) = match (cfg.lists, &from) {
        (ListsMode::Shared, Some(f)) => (Some(f.lists.clone()), Some(f.ids.clone())),
        (ListsMode::Shared, None) => (Some(lists::shared().clone()), Some(shared_ids(&targets))),
        (ListsMode::Own, _) => (None, None),
    };
    let start = src.start.as_ref().map(|(picks, offsets)| {
        let ids = match (&fixed, &from) {
            (Some(ids), _) => ids.clone(),
            (None, Some(f)) => f.ids.clone(),
            // Lists of their own from a packed table: any numbering fits, slots never meet.
            (None, None) => targets
                .iter()
                .map(|&t| (0..attack_sets(t).len() as u8).collect())
                .collect(),
        };
        (picks.clone(), offsets.clone(), ids)
    });
    let opts = cfg.options();
    let patterns = src.patterns();
    let table_of = |p: &IndexedPacking| {
        let entries: Vec<Entry> = src
            .groups
            .iter()
            .zip(&p.picks)
            .map(|(g, &k)| g[k].clone())
            .collect();
        indexed_table(&entries, p, lists.as_ref())
    };
    let describe = |steps: u64| meta(cfg, &src, pool_note.as_deref(), steps, cpu());
    let mut saves = Checkpoints::new(cfg.out.as_deref());
    let mut checkpoint = |p: &IndexedPacking| {
        saves.save(|out| {
            let (mut t, f) = table_of(p)?;
            t.meta = describe(p.steps);
            write(out, &t.to_json(&f))
        });
    };
    let packing = pack_indexed(
        &patterns,
        &targets,
        fixed.as_deref(),
        cfg.hits,
        start.as_ref(),
        &opts,
        stop.flag(),
        &mut checkpoint,
    );
    saves.result()?;
    let (mut table, fill) = table_of(&packing)?;
    table.meta = describe(packing.steps);
    let text = table.to_json(&fill);
    if let Some(out) = &cfg.out {
        write(out, &text)?;
    }
    let b = fill.bytes();
    let chosen: Vec<&Entry> = table.entries.iter().map(|p| &p.entry).collect();
    progress.note(&format!(
        "magichunt: {} squares from {}: {} slots used; ids {} by {}, {} after {} annealing steps ({} slots shared), {}",
        chosen.len(),
        src.name,
        Usage::of(chosen.iter().copied()).total(),
        packing.first_size,
        if src.start.is_some() { "the starting table" } else { "first-fit decreasing" },
        fill.size,
        packing.steps,
        fill.shared,
        format_duration(t0.elapsed())
    ));
    progress.note(&format!(
        "magichunt: indexed table of {} bytes ({} KiB): ids {}, lists {} ({} entries, {}), magics {}; {} formula, checked by filling every subset of every square; written to {}",
        b.total(),
        crate::size::kib_bytes(b.total()),
        b.ids,
        b.lists,
        fill.lists,
        if fill.shared_lists { "shared" } else { "each square's own" },
        b.magics,
        src.formula,
        cfg.out
            .as_ref()
            .map_or_else(|| "stdout".to_string(), |p| p.display().to_string())
    ));
    Ok(Packed {
        text: cfg.out.is_none().then_some(text),
        size: b.total(),
        interrupted: stop.signalled(),
    })
}

/// The magics to pack and, from an indexed table, its lists and ids; a store or a packed
/// table as [`source`] reads them.
fn indexed_source(
    cfg: &PackConfig,
    progress: &mut dyn Progress,
) -> Result<(Source, Option<From>), PackError> {
    let Some(path) = &cfg.from else {
        return Ok((source(cfg, progress)?, None));
    };
    let table = Table::read_as(path, crate::fs::input::Kind::PackedTable)?;
    if !is_indexed(&table) {
        return Ok((source(cfg, progress)?, None));
    }
    let from_err = |source| PackError::From {
        path: path.clone(),
        source,
    };
    let t = IndexedTable::from_table(&table).map_err(from_err)?;
    t.fill().map_err(from_err)?;
    let formula = t.formula().unwrap_or(Formula::Plain);
    let offsets = t.entries.iter().map(|p| p.offset).collect();
    let ids = t.entries.iter().map(|p| p.ids.clone()).collect();
    let squares = t
        .entries
        .iter()
        .map(|p| lists::SquareList {
            target: p.entry.target,
            base: p.list,
            ids: p.ids.clone(),
        })
        .collect();
    let groups: Vec<Vec<Entry>> = t.entries.into_iter().map(|p| vec![p.entry]).collect();
    Ok((
        Source {
            start: Some((vec![0; groups.len()], offsets)),
            groups,
            name: path.display().to_string(),
            formula,
            history: super::pack::history_of(&table.meta),
        },
        Some(From {
            lists: Lists {
                entries: t.lists,
                squares,
            },
            ids,
        }),
    ))
}

/// The indexed table's record of how it was made.
fn meta(
    cfg: &PackConfig,
    src: &Source,
    pool_note: Option<&str>,
    steps: u64,
    cpu: f64,
) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    m.insert(
        "about".to_string(),
        json!(format!(
            "Indexed by magichunt {}: one array of one-byte ids shared by all squares, id = ids[offset + index_with(formula, occ, mask, magic, bits)], attacks = attack_lists[list + id]{}.",
            env!("CARGO_PKG_VERSION"),
            match cfg.lists {
                ListsMode::Shared => " & rays (every square the piece attacks from its square on an empty board)",
                ListsMode::Own => "",
            }
        )),
    );
    m.insert("source".to_string(), json!(src.name));
    let mut algorithm = format!(
        "first-fit decreasing on the id array (by span, then by slots used), then {steps} annealing steps over the order of the squares{} (hot {}, seed {}); a square may meet up to {} taken slots holding its own ids; lists {}",
        if pool_note.is_some() { " and each square's magic" } else { "" },
        cfg.hot,
        cfg.seed,
        cfg.hits,
        match (cfg.lists, &cfg.from) {
            (ListsMode::Shared, Some(_)) => "shared, kept from the starting table when it is indexed, else packed greedily for the board",
            (ListsMode::Shared, None) => "shared, packed greedily for the board (an entry serves every square whose rays keep its own attack set of it)",
            (ListsMode::Own, _) => "each square's own, numbered by the packer where it meets other squares' ids",
        }
    );
    if let Some(note) = pool_note {
        algorithm.push_str(&format!("; {note}"));
    }
    m.insert("algorithm".to_string(), json!(algorithm));
    m.insert("command".to_string(), json!(cfg.command));
    m.insert(
        "cpu_seconds".to_string(),
        json!((cpu * 10.0).round() / 10.0),
    );
    m
}
