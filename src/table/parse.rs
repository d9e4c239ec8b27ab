//! Reading the records of a table one by one (each checked, magics verified) and writing them
//! back in their wire form.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::sat::{Sat, SatWire};
use super::wire::{EffortWire, EntryWire, ExhaustWire, MethodRecord, ProofWire};
use super::{check_count, check_seconds, Claim, Effort, Entry, Exhaust, Proof};
use crate::attacks::Occupancies;
use crate::error::TableError;
use crate::exhaust::campaign::{found, residue};
use crate::magic::{self, format_magic, parse_magic};
use crate::piece::{Piece, Target};
use crate::question::{Formula, Question};
use crate::square::Square;
use crate::timefmt::check_rfc3339;

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

pub(super) fn proof_wire(p: &Proof) -> ProofWire {
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

pub(super) fn effort_wire(e: &Effort) -> EffortWire {
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

pub(super) fn exhaust_wire(x: &Exhaust) -> ExhaustWire {
    ExhaustWire {
        piece: x.target.piece.name().to_string(),
        square: x.target.square.to_string(),
        bits: x.bits.into(),
        shards: x.shards,
        task_bits: x.task_bits,
        order: (x.order != crate::exhaust::Order::Low).then(|| x.order.name().to_string()),
        parts: x.parts.values().cloned().collect(),
        extra: x.extra.clone(),
    }
}

/// Parsing context: names the file in errors, gives the entries' default formula, and keeps
/// the reference pairs of every target met (a pool lists thousands of magics of 128 targets).
pub(super) struct Ctx<'a> {
    pub(super) path: &'a Path,
    pub(super) formula: Formula,
    pub(super) pairs: std::cell::RefCell<BTreeMap<Target, std::rc::Rc<Occupancies>>>,
}

impl Ctx<'_> {
    pub(super) fn each<T>(
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

    pub(super) fn claim(&self, w: &EntryWire) -> Result<Claim, String> {
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
            extra: BTreeMap::new(),
        })
    }

    pub(super) fn entry(&self, item: Value) -> Result<Entry, String> {
        let w: EntryWire = serde_json::from_value(item).map_err(|e| e.to_string())?;
        let c = self.claim(&w)?;
        let pairs = std::rc::Rc::clone(
            self.pairs
                .borrow_mut()
                .entry(c.target)
                .or_insert_with(|| std::rc::Rc::new(Occupancies::new(c.target))),
        );
        let v = magic::verify_pairs_with(&pairs, c.bits, c.formula, c.magic).map_err(|col| {
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

    pub(super) fn proof(&self, item: Value) -> Result<Proof, String> {
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

    pub(super) fn sat(&self, item: Value) -> Result<Sat, String> {
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

    pub(super) fn effort(&self, item: Value) -> Result<Effort, String> {
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

    pub(super) fn exhaust(&self, item: Value) -> Result<Exhaust, String> {
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
        let order = match w.order.as_deref() {
            None => crate::exhaust::Order::Low,
            Some(o) => o
                .parse()
                .map_err(|e: crate::error::ParseError| e.to_string())?,
        };
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
                let shard = crate::exhaust::campaign::shard::Shard {
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
            let shard = crate::exhaust::campaign::shard::Shard {
                index: p.shard,
                count: w.shards,
            };
            found::check_lists(
                target,
                bits,
                order,
                w.task_bits,
                shard,
                p.magics,
                p.found.as_ref(),
                p.supplied.as_ref(),
            )
            .map_err(part)?;
            if parts.insert(p.shard, p).is_some() {
                return Err("a part is listed twice".into());
            }
        }
        Ok(Exhaust {
            target,
            bits,
            shards: w.shards,
            task_bits: w.task_bits,
            order,
            parts,
            extra: w.extra,
        })
    }
}

/// "rook a8" from a raw list item, as far as it can be read, for error messages.
pub(super) fn describe(item: &Value) -> String {
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
pub(super) fn one_line(text: &str) -> String {
    crate::escape::one_line(text)
}
