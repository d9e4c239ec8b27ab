//! The table format shared by the results store, the published tables and the JSON export:
//! parsing with a checked, verified typed model, and writing it back deterministically.

pub mod sat;
pub mod wire;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::error::TableError;
use crate::exhaust::residue;
use crate::magic::{self, format_magic, parse_magic, Verified};
use crate::piece::{Piece, Target};
use crate::question::{Formula, Question};
use crate::square::Square;
use crate::timefmt::check_rfc3339;
use sat::{Sat, SatWire};
use wire::{
    EffortWire, EntryWire, ExhaustWire, MethodRecord, MethodWire, PartWire, ProofWire, TableWire,
};

/// The newest table version this build reads, and the one it writes.
pub const VERSION: u64 = 1;

/// The largest count a table may hold in a work counter (`tried`, `nodes`, `magics`,
/// `conflicts`): 10^18, thirty years of one machine at a billion a second. A larger one is
/// taken for a corrupt file and refused, so that sums of counters stay far from overflow.
pub const MAX_COUNT: u64 = 1_000_000_000_000_000_000;

/// The largest `seconds` a table may hold in one work record: 10^12, some 31,700 years.
pub const MAX_SECONDS: f64 = 1e12;

/// Checks a work counter against [`MAX_COUNT`].
///
/// # Errors
/// A message naming the field.
pub fn check_count(field: &str, n: u64) -> Result<(), String> {
    if n > MAX_COUNT {
        return Err(format!(
            "{field} {n} is beyond any real run (at most {MAX_COUNT}): a corrupt file?"
        ));
    }
    Ok(())
}

/// Checks a work time: finite, not negative, at most [`MAX_SECONDS`].
///
/// # Errors
/// A message naming the field.
pub fn check_seconds(field: &str, x: f64) -> Result<(), String> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(format!("{field} {x} is not a time"));
    }
    if x > MAX_SECONDS {
        return Err(format!(
            "{field} {x} is beyond any real run (at most {MAX_SECONDS:e}): a corrupt file?"
        ));
    }
    Ok(())
}

/// A verified magic with what is known of how it was found.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The index formula the magic was verified under.
    pub formula: Formula,
    /// The multiplier.
    pub magic: u64,
    /// Highest slot used, from verify.
    pub max_index: u32,
    /// Lowest slot used, from verify (0 for a plain magic).
    pub min_index: u32,
    /// When it was found (RFC 3339), if known.
    pub found_at: Option<String>,
    /// How it was found, if known.
    pub method: Option<MethodWire>,
    /// Other fields of `method`, kept as they were.
    pub method_extra: BTreeMap<String, Value>,
    /// Other fields of the entry, kept as they were (`found_by`, `source`, ...).
    pub extra: BTreeMap<String, Value>,
}

impl Entry {
    /// An entry for a magic that [`magic::verify`] accepted.
    #[must_use]
    pub fn from_verified(
        v: &Verified,
        found_at: Option<String>,
        method: Option<MethodWire>,
    ) -> Entry {
        Entry {
            target: v.target,
            bits: v.bits,
            formula: v.formula,
            magic: v.magic,
            max_index: v.max_index,
            min_index: v.min_index,
            found_at,
            method,
            method_extra: BTreeMap::new(),
            extra: BTreeMap::new(),
        }
    }

    /// The ordering key of quality: fewer bits first (the `2^bits` table and the engine's
    /// shift), then a smaller tight table ([`Entry::span`]: `max_index + 1` for a plain
    /// magic), then a smaller magic (only so that ties break the same way everywhere).
    /// Smaller is better. Entries of different formulas are never ranked against each other.
    #[must_use]
    pub fn rank(&self) -> (u32, u32, u64) {
        (self.bits, self.span(), self.magic)
    }

    /// Entries of the magic's tight table: `max_index - min_index + 1`.
    #[must_use]
    pub fn span(&self) -> u32 {
        self.max_index - self.min_index + 1
    }

    /// The question this magic answers "yes" to.
    #[must_use]
    pub fn question(&self) -> Question {
        Question {
            target: self.target,
            bits: self.bits,
            formula: self.formula,
        }
    }

    /// A text field among the extra fields (`found_by`, `source`), if present.
    #[must_use]
    pub fn extra_str(&self, key: &str) -> Option<&str> {
        self.extra.get(key).and_then(Value::as_str)
    }
}

/// A proof that no magic exists at `bits` index bits for a target (hence none at fewer:
/// a magic at `b - 1` bits is also one at `b` bits, since its index is the top `b - 1` bits).
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    /// Piece and square.
    pub target: Target,
    /// The bit count proven impossible.
    pub bits: u32,
    /// The index formula the proof is about.
    pub formula: Formula,
    /// How it was proven.
    pub method: Option<String>,
    /// Other fields (`claim`, `source`, ...).
    pub extra: BTreeMap<String, Value>,
}

/// Work done by one run on one (target, bits).
#[derive(Clone, Debug, PartialEq)]
pub struct Effort {
    /// Piece and square.
    pub target: Target,
    /// Index bits searched.
    pub bits: u32,
    /// The index formula searched (a run hunts one formula).
    pub formula: Formula,
    /// Run identifier.
    pub run: String,
    /// Candidates examined.
    pub tried: u64,
    /// Seconds of work.
    pub seconds: f64,
    /// Other fields, kept.
    pub extra: BTreeMap<String, Value>,
}

/// Progress of an exhaustive search of one (target, bits) split into `shards` parts.
#[derive(Clone, Debug, PartialEq)]
pub struct Exhaust {
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// Number of parts.
    pub shards: u32,
    /// `log2` of the number of tasks the space is cut into (and dealt to the parts): every
    /// part of one search must use the same.
    pub task_bits: u32,
    /// Parts worked on, by part number (1 to `shards`).
    pub parts: BTreeMap<u32, PartWire>,
    /// Other fields, kept.
    pub extra: BTreeMap<String, Value>,
}

impl Exhaust {
    /// Whether every part is done.
    #[must_use]
    pub fn complete(&self) -> bool {
        (1..=self.shards).all(|k| self.parts.get(&k).is_some_and(|p| p.done))
    }

    /// Magics found over all parts so far.
    #[must_use]
    pub fn magics(&self) -> u64 {
        self.parts
            .values()
            .fold(0, |n, p| n.saturating_add(p.magics))
    }
}

/// A parsed and checked table file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// Top-level fields other than the lists (`about`, `source`, ...).
    pub meta: BTreeMap<String, Value>,
    /// Verified magics, in file order.
    pub entries: Vec<Entry>,
    /// Proofs of none.
    pub proofs: Vec<Proof>,
    /// Work records.
    pub effort: Vec<Effort>,
    /// Exhaustive searches.
    pub exhaust: Vec<Exhaust>,
    /// SAT settlements.
    pub sat: Vec<Sat>,
}

impl Proof {
    /// The question this proof answers "none" to.
    #[must_use]
    pub fn question(&self) -> Question {
        Question {
            target: self.target,
            bits: self.bits,
            formula: self.formula,
        }
    }
}

impl Table {
    /// Reads and checks a table file; every entry is verified against the slow reference.
    ///
    /// # Errors
    /// [`TableError`] naming the file and, for a bad entry, which one and why.
    pub fn read(path: &Path) -> Result<Table, TableError> {
        let bytes = std::fs::read(path).map_err(|source| TableError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Table::parse(&bytes, path)
    }

    /// Parses and checks table JSON; `path` only names the source in errors.
    ///
    /// # Errors
    /// [`TableError`] naming the problem.
    pub fn parse(bytes: &[u8], path: &Path) -> Result<Table, TableError> {
        let mut top = top_level(bytes, path)?;
        let syntax = |message: String| TableError::Syntax {
            path: path.to_path_buf(),
            message,
        };
        let mut list = |key: &str, required: bool| -> Result<Vec<Value>, TableError> {
            match top.remove(key) {
                Some(Value::Array(items)) => Ok(items),
                Some(_) => Err(syntax(format!("`{key}` is not a list"))),
                None if required => Err(syntax(format!("missing field `{key}`"))),
                None => Ok(Vec::new()),
            }
        };
        let entries = list("entries", true)?;
        let proofs = list("proofs", false)?;
        let effort = list("effort", false)?;
        let exhaust = list("exhaust", false)?;
        let sat = list("sat", false)?;
        let ctx = Ctx {
            path,
            formula: default_formula(&top, path)?,
        };
        Ok(Table {
            meta: top.into_iter().collect(),
            entries: ctx.each(entries, "entry", Ctx::entry)?,
            proofs: ctx.each(proofs, "proof", Ctx::proof)?,
            effort: ctx.each(effort, "effort", Ctx::effort)?,
            exhaust: ctx.each(exhaust, "exhaust", Ctx::exhaust)?,
            sat: ctx.each(sat, "sat", Ctx::sat)?,
        })
    }

    /// The table as pretty JSON with a trailing newline; the same table gives the same bytes.
    #[must_use]
    pub fn to_json(&self) -> String {
        let wire = TableWire {
            version: VERSION,
            meta: self.meta.clone(),
            entries: self.entries.iter().map(entry_wire).collect(),
            proofs: self.proofs.iter().map(proof_wire).collect(),
            effort: self.effort.iter().map(effort_wire).collect(),
            exhaust: self.exhaust.iter().map(exhaust_wire).collect(),
            sat: self.sat.iter().map(Sat::to_wire).collect(),
        };
        let mut s = serde_json::to_string_pretty(&wire).expect("table serializes");
        s.push('\n');
        s
    }
}

/// An entry of a table read for its claim only, before verification: what `verify --file`
/// judges one by one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Position in `entries`, from 0.
    pub index: usize,
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The multiplier.
    pub magic: u64,
    /// The index formula (the entry's own, else the table's, else plain).
    pub formula: Formula,
    /// The highest index the file states, if any.
    pub max_index: Option<u32>,
    /// The lowest index the file states, if any.
    pub min_index: Option<u32>,
}

impl Claim {
    /// The question the claim answers "yes" to.
    #[must_use]
    pub fn question(&self) -> Question {
        Question {
            target: self.target,
            bits: self.bits,
            formula: self.formula,
        }
    }
}

/// The formula of a table's entries that name none: the top-level `formula` (published
/// packed tables state it there), else plain.
fn default_formula(
    top: &serde_json::Map<String, Value>,
    path: &Path,
) -> Result<Formula, TableError> {
    match top.get("formula") {
        None => Ok(Formula::Plain),
        Some(Value::String(f)) => f
            .parse()
            .map_err(|e: crate::error::ParseError| syntax_error(path, &e.to_string())),
        Some(_) => Err(syntax_error(path, "`formula` is not a string")),
    }
}

/// Reads the entries of table JSON as claims: every structural check of [`Table::parse`]
/// (version, fields, piece, square, bits range, magic spelling) but no verification.
///
/// # Errors
/// [`TableError`] naming the file and the bad entry.
pub fn parse_claims(bytes: &[u8], path: &Path) -> Result<Vec<Claim>, TableError> {
    let mut top = top_level(bytes, path)?;
    let items = match top.remove("entries") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(syntax_error(path, "`entries` is not a list")),
        None => return Err(syntax_error(path, "missing field `entries`")),
    };
    let ctx = Ctx {
        path,
        formula: default_formula(&top, path)?,
    };
    let claims = ctx.each(items, "entry", |ctx, item| {
        let w: EntryWire = serde_json::from_value(item).map_err(|e| e.to_string())?;
        ctx.claim(&w)
    })?;
    Ok(claims
        .into_iter()
        .enumerate()
        .map(|(index, c)| Claim { index, ..c })
        .collect())
}

fn syntax_error(path: &Path, message: &str) -> TableError {
    TableError::Syntax {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// Parses the JSON, checks `version`, and returns the top-level object without `version`.
fn top_level(bytes: &[u8], path: &Path) -> Result<serde_json::Map<String, Value>, TableError> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| syntax_error(path, &e.to_string()))?;
    let Value::Object(mut top) = value else {
        return Err(syntax_error(path, "not a JSON object"));
    };
    let version = top
        .remove("version")
        .ok_or_else(|| syntax_error(path, "missing field `version`"))?
        .as_u64()
        .ok_or_else(|| syntax_error(path, "`version` is not a whole number"))?;
    if version > VERSION {
        return Err(TableError::Version {
            path: path.to_path_buf(),
            found: version,
            supported: VERSION,
        });
    }
    if version == 0 {
        return Err(syntax_error(path, "`version` 0 is not a table version"));
    }
    Ok(top)
}

/// The wire form of an entry (without the derived effort counters).
#[must_use]
pub fn entry_wire(e: &Entry) -> EntryWire {
    EntryWire {
        piece: e.target.piece.name().to_string(),
        square: e.target.square.to_string(),
        bits: e.bits.into(),
        magic: format_magic(e.magic),
        formula: (e.formula != Formula::Plain).then(|| e.formula.name().to_string()),
        max_index: Some(e.max_index.into()),
        min_index: (e.min_index != 0).then(|| e.min_index.into()),
        found_at: e.found_at.clone(),
        tried: None,
        seconds: None,
        method: e.method.clone().map(|known| MethodRecord {
            known,
            extra: e.method_extra.clone(),
        }),
        extra: e.extra.clone(),
    }
}

fn proof_wire(p: &Proof) -> ProofWire {
    ProofWire {
        piece: p.target.piece.name().to_string(),
        square: p.target.square.to_string(),
        bits: p.bits.into(),
        formula: (p.formula != Formula::Plain).then(|| p.formula.name().to_string()),
        none: true,
        method: p.method.clone(),
        extra: p.extra.clone(),
    }
}

fn effort_wire(e: &Effort) -> EffortWire {
    EffortWire {
        piece: e.target.piece.name().to_string(),
        square: e.target.square.to_string(),
        bits: e.bits.into(),
        formula: (e.formula != Formula::Plain).then(|| e.formula.name().to_string()),
        run: e.run.clone(),
        tried: e.tried,
        seconds: e.seconds,
        extra: e.extra.clone(),
    }
}

fn exhaust_wire(x: &Exhaust) -> ExhaustWire {
    ExhaustWire {
        piece: x.target.piece.name().to_string(),
        square: x.target.square.to_string(),
        bits: x.bits.into(),
        shards: x.shards,
        task_bits: x.task_bits,
        parts: x.parts.values().cloned().collect(),
        extra: x.extra.clone(),
    }
}

/// Parsing context: names the file in errors and gives the entries' default formula.
struct Ctx<'a> {
    path: &'a Path,
    formula: Formula,
}

impl Ctx<'_> {
    fn each<T>(
        &self,
        items: Vec<Value>,
        kind: &'static str,
        f: fn(&Self, Value) -> Result<T, String>,
    ) -> Result<Vec<T>, TableError> {
        items
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                let what = describe(&item);
                f(self, item).map_err(|message| TableError::Entry {
                    path: self.path.to_path_buf(),
                    list: kind,
                    index,
                    what,
                    message: one_line(&message),
                })
            })
            .collect()
    }

    fn target(piece: &str, square: &str) -> Result<Target, String> {
        let piece: Piece = piece.parse().map_err(|e| format!("{e}"))?;
        let square: Square = square.parse().map_err(|e| format!("{e}"))?;
        Ok(Target::new(piece, square))
    }

    fn bits(target: Target, bits: i64) -> Result<u32, String> {
        u32::try_from(bits)
            .ok()
            .and_then(|b| target.check_bits(b).ok())
            .ok_or_else(|| format!("bits {bits} out of range 1..={}", target.piece.max_bits()))
    }

    fn claim(&self, w: &EntryWire) -> Result<Claim, String> {
        let target = Self::target(&w.piece, &w.square)?;
        let bits = Self::bits(target, w.bits)?;
        let magic = parse_magic(&w.magic).map_err(|e| e.to_string())?;
        let index = |name: &str, v: Option<i64>| match v {
            None => Ok(None),
            Some(m) => u32::try_from(m)
                .map(Some)
                .map_err(|_| format!("{name} {m} out of range")),
        };
        let formula = match &w.formula {
            None => self.formula,
            Some(f) => Self::formula(Some(f))?,
        };
        Ok(Claim {
            index: 0,
            target,
            bits,
            magic,
            formula,
            max_index: index("max_index", w.max_index)?,
            min_index: index("min_index", w.min_index)?,
        })
    }

    fn entry(&self, item: Value) -> Result<Entry, String> {
        let w: EntryWire = serde_json::from_value(item).map_err(|e| e.to_string())?;
        let c = self.claim(&w)?;
        let v = magic::verify_question(c.question(), c.magic).map_err(|col| {
            format!(
                "{} magic {} fails verification at {} bits: subsets {:#x} and {:#x} collide at index {}",
                c.formula,
                format_magic(c.magic),
                c.bits,
                col.first.0 .0,
                col.second.0 .0,
                col.index
            )
        })?;
        for (name, file, verified) in [
            ("max_index", c.max_index, v.max_index),
            ("min_index", c.min_index, v.min_index),
        ] {
            if file.is_some_and(|m| m != verified) {
                return Err(format!(
                    "{name} {} in the file, but verify gives {verified}",
                    file.unwrap_or_default()
                ));
            }
        }
        if let Some(t) = &w.found_at {
            check_rfc3339(t).map_err(|e| format!("found_at {e}"))?;
        }
        let (method, method_extra) = match w.method {
            Some(m) => (Some(m.known), m.extra),
            None => (None, BTreeMap::new()),
        };
        Ok(Entry {
            method_extra,
            extra: w.extra,
            ..Entry::from_verified(&v, w.found_at, method)
        })
    }

    fn proof(&self, item: Value) -> Result<Proof, String> {
        let w: ProofWire = serde_json::from_value(item).map_err(|e| e.to_string())?;
        let target = Self::target(&w.piece, &w.square)?;
        let bits = Self::bits(target, w.bits)?;
        if !w.none {
            return Err("`none` must be true".into());
        }
        Ok(Proof {
            target,
            bits,
            formula: Self::formula(w.formula.as_deref())?,
            method: w.method,
            extra: w.extra,
        })
    }

    fn formula(text: Option<&str>) -> Result<Formula, String> {
        text.map_or(Ok(Formula::Plain), |f| {
            f.parse().map_err(|e| format!("{e}"))
        })
    }

    fn sat(&self, item: Value) -> Result<Sat, String> {
        let w: SatWire = serde_json::from_value(item).map_err(|e| e.to_string())?;
        let target = Self::target(&w.piece, &w.square)?;
        let bits = Self::bits(target, w.bits)?;
        let formula = Self::formula(w.formula.as_deref())?;
        Sat::from_wire(
            w,
            Question {
                target,
                bits,
                formula,
            },
        )
    }

    fn effort(&self, item: Value) -> Result<Effort, String> {
        let w: EffortWire = serde_json::from_value(item).map_err(|e| e.to_string())?;
        let target = Self::target(&w.piece, &w.square)?;
        check_count("tried", w.tried)?;
        check_seconds("seconds", w.seconds)?;
        Ok(Effort {
            target,
            bits: Self::bits(target, w.bits)?,
            formula: Self::formula(w.formula.as_deref())?,
            run: w.run,
            tried: w.tried,
            seconds: w.seconds,
            extra: w.extra,
        })
    }

    fn exhaust(&self, item: Value) -> Result<Exhaust, String> {
        let w: ExhaustWire = serde_json::from_value(item).map_err(|e| e.to_string())?;
        let target = Self::target(&w.piece, &w.square)?;
        let bits = Self::bits(target, w.bits)?;
        if w.shards == 0 {
            return Err("shards must be at least 1".into());
        }
        if w.task_bits > crate::exhaust::MAX_TASK_BITS {
            return Err(format!(
                "task_bits {} is above {}",
                w.task_bits,
                crate::exhaust::MAX_TASK_BITS
            ));
        }
        let mut parts = BTreeMap::new();
        for p in w.parts {
            if !(1..=w.shards).contains(&p.shard) {
                return Err(format!("part {} outside 1..={}", p.shard, w.shards));
            }
            let part = |e: String| format!("part {}: {e}", p.shard);
            check_count("magics", p.magics).map_err(part)?;
            check_count("nodes", p.nodes).map_err(part)?;
            check_seconds("seconds", p.seconds).map_err(part)?;
            if let Some(r) = p.residue.as_ref().filter(|r| r.scheme == residue::SCHEME) {
                let shard = crate::exhaust::shard::Shard {
                    index: p.shard,
                    count: w.shards,
                };
                residue::check_wire(r, shard.len(1 << w.task_bits)).map_err(part)?;
            }
            if let Some(best) = &p.best {
                let m = parse_magic(best).map_err(|e| e.to_string())?;
                magic::verify(target, bits, m)
                    .map_err(|_| format!("part {} best {best} fails verification", p.shard))?;
            }
            if parts.insert(p.shard, p).is_some() {
                return Err("a part is listed twice".into());
            }
        }
        Ok(Exhaust {
            target,
            bits,
            shards: w.shards,
            task_bits: w.task_bits,
            parts,
            extra: w.extra,
        })
    }
}

/// "rook a8" from a raw list item, as far as it can be read, for error messages.
fn describe(item: &Value) -> String {
    let field = |k: &str| {
        item.get(k)
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    one_line(&format!("{} {}", field("piece"), field("square")))
}

/// `text` with control characters (newlines above all) escaped, so that an error quoting a
/// hostile file stays one line.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
