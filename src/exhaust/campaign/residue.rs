//! The evidence a finished part of an exhaustive search carries: a *residue* that anyone can
//! check by re-running a sample of it.
//!
//! A part searches its subtrees in a fixed order ([`super::shard::Shard::task_at`]). That order
//! is cut into at most [`BLOCKS`] blocks of [`block_len`] consecutive subtrees, and each block
//! records the number of partial magics its subtrees tested and a 64-bit digest of, subtree by
//! subtree in order, the subtree, its node count, its magics and its best magic. A node count
//! is the plain search's (one per value of a level tried; the engines are tested to count
//! exactly that), so two honest runs of one block give the same digest on any machine, and
//! nobody can write it without doing the block's work: a forged or corrupt block fails as soon
//! as an audit re-runs it ([`crate::trust`]). The block sums also add up to the part's node
//! count, and no block can count fewer nodes than its subtrees' first level alone.
//!
//! The digest is seeded with the question, the task split, the part and the block's number,
//! so a residue copied from another search or another block does not fit. It is folded off
//! the search's inner loop: once per subtree, on the thread that credits them in order.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::shard::Shard;
use crate::exhaust::{Best, Order, Plan, Tally};
use crate::piece::Target;

/// The residue of a part as a store keeps it (in `table::wire::PartWire`): per block of
/// consecutive subtrees (in the part's search order) the digest of their results and the
/// nodes they tested. It lives here, not in `table`, so that imports run one way (the table
/// reads the search's types, never the reverse).
///
/// ```json
/// "residue": {"scheme": "magichunt-residue 1", "block": 1024,
///             "blocks": ["9f3a1c2b4d5e6f70:770211", "…"], "open": "…"}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResidueWire {
    /// How the digests are computed, with its version.
    pub scheme: String,
    /// Subtrees per block.
    pub block: u64,
    /// The closed blocks in order, each `<16 hex digits>:<nodes>`.
    pub blocks: Vec<String>,
    /// The block being filled, while the part is unfinished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    /// Other fields, kept.
    #[serde(flatten)]
    pub extra: BTreeMap<String, Value>,
}

/// The name and version of the residue, recorded with it: a build that computes it
/// differently must use another name.
pub const SCHEME: &str = "magichunt-residue 1";

/// Blocks per part, at most: 256 digests keep a part's record near 8 KB, and an audit of one
/// block re-runs 1/256 of the part (seconds for the shipped searches).
pub const BLOCKS: u64 = 256;

/// Subtrees per block of a part of `len` subtrees.
#[must_use]
pub fn block_len(len: u64) -> u64 {
    len.div_ceil(BLOCKS).max(1)
}

/// Number of blocks of a part of `len` subtrees.
#[must_use]
pub fn blocks(len: u64) -> u64 {
    len.div_ceil(block_len(len))
}

/// What one subtree gave, as the residue folds it in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TaskResult {
    /// The subtree (the value of the low task bits of `m`).
    pub task: u64,
    /// What its search gave.
    pub tally: Tally,
}

/// One block's sum: the digest of its subtrees and the nodes they tested.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockSum {
    /// Digest of the block's subtrees, in order.
    pub digest: u64,
    /// Partial magics tested in the block.
    pub nodes: u64,
}

impl fmt::Display for BlockSum {
    /// `digest:nodes`, the digest in 16 hex digits: the store's spelling.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}:{}", self.digest, self.nodes)
    }
}

impl std::str::FromStr for BlockSum {
    type Err = String;

    fn from_str(s: &str) -> Result<BlockSum, String> {
        let bad = || format!("block sum '{s}' is not <16 hex digits>:<nodes>");
        let (d, n) = s.split_once(':').ok_or_else(bad)?;
        if d.len() != 16 || !d.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(bad());
        }
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        Ok(BlockSum {
            digest: u64::from_str_radix(d, 16).map_err(|_| bad())?,
            nodes: n.parse().map_err(|_| bad())?,
        })
    }
}

/// Which search a residue belongs to: it seeds every block's digest.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Search {
    /// Piece and square.
    pub target: Target,
    /// Index bits.
    pub bits: u32,
    /// The task split.
    pub task_bits: u32,
    /// The order the bits are fixed in.
    pub order: Order,
    /// The part.
    pub shard: Shard,
}

impl Search {
    /// The search of `plan` for `target`, part `shard`.
    #[must_use]
    pub fn of(target: Target, plan: &Plan, shard: Shard) -> Search {
        Search {
            target,
            bits: plan.bits(),
            task_bits: plan.task_bits(),
            order: plan.order(),
            shard,
        }
    }

    /// The digest's starting value for block `block`.
    fn seed(&self, block: u64) -> u64 {
        let mut h = mix(0x6d61_6769_6368_756e); // "magichun"
        for x in [
            self.target.piece as u64,
            self.target.square.index() as u64,
            u64::from(self.bits),
            u64::from(self.task_bits),
            u64::from(self.shard.index),
            u64::from(self.shard.count),
            block,
        ] {
            h = mix(h ^ x);
        }
        match self.order {
            Order::Low => {}                         // low-order digests stay what they were
            Order::High => h = mix(h ^ 0x6869_6768), // "high"
            Order::Trim => h = mix(h ^ 0x7472_696d), // "trim"
            Order::Fold => h = mix(h ^ 0x666f_6c64), // "fold"
        }
        h
    }
}

/// Checks the shape of a residue on the wire for a part of `len` subtrees: this build's
/// scheme, the block length [`block_len`] gives, no more blocks than the part has, and
/// readable sums.
///
/// # Errors
/// A message saying what is wrong.
pub fn check_wire(w: &ResidueWire, len: u64) -> Result<(), String> {
    if w.scheme != SCHEME {
        return Err(format!(
            "residue scheme '{}' is not the one this build computes ({SCHEME})",
            w.scheme
        ));
    }
    if w.block != block_len(len) {
        return Err(format!(
            "residue blocks of {} subtrees, but a part of {len} subtrees has blocks of {}",
            w.block,
            block_len(len)
        ));
    }
    if w.blocks.len() as u64 > blocks(len) {
        return Err(format!(
            "{} residue blocks, but a part of {len} subtrees has {}",
            w.blocks.len(),
            blocks(len)
        ));
    }
    for b in w.blocks.iter().chain(&w.open) {
        b.parse::<BlockSum>()?;
    }
    Ok(())
}

/// The splitmix64 finalizer: a bijection of `u64` whose output bits all depend on every
/// input bit.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Folds one subtree into a block's digest.
fn fold(digest: u64, r: &TaskResult) -> u64 {
    let (best_max, best_magic) = r
        .tally
        .best
        .map_or((u64::MAX, 0), |b: Best| (u64::from(b.max_index), b.magic));
    [r.task, r.tally.nodes, r.tally.magics, best_max, best_magic]
        .into_iter()
        .fold(digest, |h, x| mix(h ^ x))
}

/// The residue of a part so far: the closed blocks, and the one being filled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Residue {
    /// Which search.
    pub search: Search,
    /// Subtrees of the part.
    pub len: u64,
    /// Subtrees per block.
    pub block: u64,
    /// The closed blocks, in order.
    pub blocks: Vec<BlockSum>,
    /// The block being filled, when the part stopped inside one.
    pub open: Option<BlockSum>,
}

impl Residue {
    /// The empty residue of part `search.shard` of a plan with `tasks` subtrees.
    #[must_use]
    pub fn new(search: Search, tasks: u64) -> Residue {
        let len = search.shard.len(tasks);
        Residue {
            search,
            len,
            block: block_len(len),
            blocks: Vec::new(),
            open: None,
        }
    }

    /// The store's form.
    #[must_use]
    pub fn to_wire(&self) -> ResidueWire {
        ResidueWire {
            scheme: SCHEME.to_string(),
            block: self.block,
            blocks: self.blocks.iter().map(ToString::to_string).collect(),
            open: self.open.map(|o| o.to_string()),
            extra: BTreeMap::new(),
        }
    }

    /// The residue a part of `search` (of a plan with `tasks` subtrees) records.
    ///
    /// # Errors
    /// A message when the scheme is not this build's, the block length is not the one
    /// [`block_len`] gives, there are more blocks than the part has, or a sum is unreadable.
    pub fn from_wire(w: &ResidueWire, search: Search, tasks: u64) -> Result<Residue, String> {
        check_wire(w, search.shard.len(tasks))?;
        let mut r = Residue::new(search, tasks);
        r.blocks = w
            .blocks
            .iter()
            .map(|b| b.parse())
            .collect::<Result<_, _>>()?;
        r.open = w.open.as_deref().map(str::parse).transpose()?;
        Ok(r)
    }

    /// Whether the residue is that of the first `done` subtrees of the part: the blocks they
    /// close, and an open block when they end inside one.
    #[must_use]
    pub fn fits(&self, done: u64) -> bool {
        if done >= self.len {
            return self.open.is_none() && self.blocks.len() as u64 == blocks(self.len);
        }
        self.blocks.len() as u64 == done / self.block
            && self.open.is_some() != done.is_multiple_of(self.block)
    }

    /// Folds in the subtree at position `j` of the part's order; `j` must be the next one.
    pub fn push(&mut self, j: u64, r: &TaskResult) {
        let block = j / self.block;
        let sum = self.open.get_or_insert_with(|| BlockSum {
            digest: self.search.seed(block),
            nodes: 0,
        });
        sum.digest = fold(sum.digest, r);
        sum.nodes = sum.nodes.saturating_add(r.tally.nodes);
        if (j + 1).is_multiple_of(self.block) || j + 1 == self.len {
            let closed = self.open.take().expect("just filled");
            self.blocks.push(closed);
        }
    }

    /// The sum of block `b` computed afresh from its subtrees' results (what an audit
    /// compares with the record).
    #[must_use]
    pub fn block_of(search: Search, b: u64, results: &[TaskResult]) -> BlockSum {
        results.iter().fold(
            BlockSum {
                digest: search.seed(b),
                nodes: 0,
            },
            |s, r| BlockSum {
                digest: fold(s.digest, r),
                nodes: s.nodes.saturating_add(r.tally.nodes),
            },
        )
    }

    /// The positions of block `b` in the part's order.
    #[must_use]
    pub fn positions(&self, b: u64) -> std::ops::Range<u64> {
        let start = b * self.block;
        start..(start + self.block).min(self.len)
    }

    /// Checks a finished part's residue against its record and its plan: every block present,
    /// none counting fewer nodes than its subtrees' first level alone, and the blocks adding
    /// up to the part's `nodes`.
    ///
    /// # Errors
    /// A message saying what does not fit.
    pub fn check_finished(&self, plan: &Plan, nodes: u64) -> Result<(), String> {
        if self.open.is_some() {
            return Err("the part is recorded done, but its residue has an open block".into());
        }
        let want = blocks(self.len);
        if self.blocks.len() as u64 != want {
            return Err(format!(
                "its residue has {} blocks, a part of {} subtrees has {want}",
                self.blocks.len(),
                self.len
            ));
        }
        let first = plan.first_level_nodes();
        for (b, s) in self.blocks.iter().enumerate() {
            let tasks = self.positions(b as u64).count() as u64;
            let least = tasks.saturating_mul(first);
            if s.nodes < least {
                return Err(format!(
                    "block {b} counts {} nodes, fewer than the {least} its {tasks} subtrees' first level alone tests",
                    s.nodes
                ));
            }
        }
        let sum = self
            .blocks
            .iter()
            .fold(0u64, |n, s| n.saturating_add(s.nodes));
        if sum != nodes {
            return Err(format!(
                "its blocks add up to {sum} nodes, but the part records {nodes}"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exhaust::Searcher;
    use crate::{Piece, Square};
    use std::sync::atomic::AtomicBool;

    fn plan() -> (Target, Plan) {
        let t = Target::new(Piece::Bishop, "d8".parse::<Square>().unwrap());
        (t, Plan::new(t, 6).with_task_bits(10))
    }

    fn results(plan: &Plan, shard: Shard, range: std::ops::Range<u64>) -> Vec<TaskResult> {
        let stop = AtomicBool::new(false);
        let mut s = Searcher::new(plan);
        range
            .map(|j| {
                let task = shard.task_at(j, plan.tasks());
                TaskResult {
                    task,
                    tally: s.run_task(task, &stop).unwrap(),
                }
            })
            .collect()
    }

    #[test]
    fn blocks_cover_a_part_and_fit_the_record() {
        for len in [1u64, 2, 255, 256, 257, 1000, 1 << 18] {
            let b = block_len(len);
            assert!(blocks(len) <= BLOCKS);
            assert!(
                blocks(len) * b >= len && (blocks(len) - 1) * b < len,
                "{len}"
            );
        }
        let (t, plan) = plan();
        let shard = Shard { index: 2, count: 3 };
        let search = Search::of(t, &plan, shard);
        let mut r = Residue::new(search, plan.tasks());
        let all = results(&plan, shard, 0..r.len);
        for (j, x) in all.iter().enumerate() {
            r.push(j as u64, x);
        }
        let nodes: u64 = all.iter().map(|x| x.tally.nodes).sum();
        r.check_finished(&plan, nodes).unwrap();
        assert!(r.check_finished(&plan, nodes + 1).is_err());
        // Any block recomputed from its own subtrees gives the recorded sum.
        for b in [0, 7, blocks(r.len) - 1] {
            let pos = r.positions(b);
            let again = Residue::block_of(search, b, &all[pos.start as usize..pos.end as usize]);
            assert_eq!(again, r.blocks[b as usize]);
        }
        // One subtree told differently changes its block's digest, and only that one.
        let mut forged = all.clone();
        forged[5].tally.magics += 1;
        let b = 5 / r.block;
        let pos = r.positions(b);
        let f = Residue::block_of(search, b, &forged[pos.start as usize..pos.end as usize]);
        assert_ne!(f.digest, r.blocks[b as usize].digest);
        // Another part's seed does not fit.
        let other = Search {
            shard: Shard { index: 1, count: 3 },
            ..search
        };
        let g = Residue::block_of(other, b, &all[pos.start as usize..pos.end as usize]);
        assert_ne!(g.digest, r.blocks[b as usize].digest);
    }

    #[test]
    fn block_sums_round_trip_and_refuse_junk() {
        let s = BlockSum {
            digest: 0x0123_4567_89ab_cdef,
            nodes: 42,
        };
        assert_eq!(s.to_string(), "0123456789abcdef:42");
        assert_eq!(s.to_string().parse::<BlockSum>().unwrap(), s);
        for bad in [
            "",
            "0123456789abcdef",
            "0123456789abcdef:",
            "0123456789ABCDEF:1",
            "123:1",
            "0123456789abcdef:-1",
            "0123456789abcdef:1e3",
            "0123456789abcdef:99999999999999999999999",
        ] {
            assert!(bad.parse::<BlockSum>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_block_below_the_first_level_is_refused() {
        let (t, plan) = plan();
        let search = Search::of(t, &plan, Shard::WHOLE);
        let mut r = Residue::new(search, plan.tasks());
        for j in 0..r.len {
            r.push(
                j,
                &TaskResult {
                    task: j,
                    tally: Tally::default(),
                },
            );
        }
        let e = r.check_finished(&plan, 0).unwrap_err();
        assert!(e.contains("first level"), "{e}");
    }
}
