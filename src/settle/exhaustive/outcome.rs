//! How a run of a part ended, and what `magichunt exhaust` prints of it.

use crate::exhaust::campaign::run::Ending;
use crate::exhaust::campaign::shard::Shard;
use crate::exhaust::{Order, Tally};
use crate::magic::{format_magic, Verified};
use crate::progress::count;
use crate::question::Question;
use crate::timefmt::{format_duration, secs};

/// How [`run_part`](super::run_part) ended.
#[derive(Clone, Debug, PartialEq)]
pub enum PartOutcome {
    /// The store already proves that no magic exists at these bits (or more): nothing run.
    Proven {
        /// The question.
        question: Question,
        /// The most bits proven impossible.
        proven: u32,
        /// The store, as named.
        store: String,
    },
    /// The part is already done (and checked by this build): nothing run.
    Done {
        /// The question.
        question: Question,
        /// The part.
        shard: Shard,
        /// What the whole search says, when every part is done.
        whole: Option<Whole>,
    },
    /// Ctrl-C came while a part recorded done was checked: nothing run, nothing said.
    Interrupted {
        /// The question.
        question: Question,
        /// The part.
        shard: Shard,
    },
    /// The time limit ran out while a part recorded done (only claimed) had its blocks
    /// re-run: nothing decided, nothing changed.
    OutOfTime {
        /// The question.
        question: Question,
        /// The part.
        shard: Shard,
    },
    /// The part ran, and its state is saved.
    Ran(PartRun),
}

/// What a run of a part did.
#[derive(Clone, Debug, PartialEq)]
pub struct PartRun {
    /// The question.
    pub question: Question,
    /// The part.
    pub shard: Shard,
    /// How it ended: finished, stopped (Ctrl-C) or out of time.
    pub ending: Ending,
    /// Tasks (subtrees) of the part.
    pub len: u64,
    /// Tasks done when the run began.
    pub start_done: u64,
    /// Tasks done now.
    pub done: u64,
    /// What the part's tasks done gave.
    pub tally: Tally,
    /// Thread-seconds of work on the part, over every run.
    pub seconds: f64,
    /// Worker threads of this run.
    pub threads: usize,
    /// When the part finished: what the whole search says so far.
    pub whole: Option<Whole>,
}

/// What the whole search says once a part of it finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whole {
    /// Parts are still to do: the parts done, of how many.
    Parts {
        /// The parts done, in order.
        done: Vec<u32>,
        /// The parts of the search.
        count: u32,
    },
    /// Every part is done and none found a magic: the proof is recorded.
    NoneExists,
    /// Every part is done: magics exist.
    Exists {
        /// Magics in the period: residues modulo `2^period_bits`, each counted once (folded,
        /// a value and its negation are each tested by the definition and each counted).
        magics: u64,
        /// Of them, the ones the parts list (their own lists and those supplied).
        listed: u64,
        /// The tightest magic known (the smallest highest index, then the fewest slots used,
        /// then the smallest magic) among the listed ones and each part's best, verified.
        tightest: Option<Verified>,
        /// `log2` of the period.
        period_bits: u32,
        /// The order searched.
        order: Order,
    },
}

impl Whole {
    /// The line `magichunt exhaust` prints of a finished search (parts still to do: empty).
    #[must_use]
    pub fn render(&self, q: Question) -> String {
        let (target, bits) = (q.target, q.bits);
        match self {
            Whole::Parts { .. } => String::new(),
            Whole::NoneExists => format!("{target} at {bits} bits: none exists (proof recorded)\n"),
            Whole::Exists {
                magics,
                listed,
                tightest,
                period_bits,
                order,
            } => {
                let each = match 64 - period_bits {
                    e @ 0..=10 => (1u32 << e).to_string(),
                    e => format!("2^{e}"),
                };
                let fold = if *order == Order::Fold {
                    "; folded: each value of the half period and its negation tested by the definition, each counted"
                } else {
                    ""
                };
                let mut out = format!(
                    "{target} at {bits} bits: exists: {magics} magics in the period (residues modulo 2^{period_bits}, each standing for {each} 64-bit magics{fold})"
                );
                if listed == magics {
                    out += &format!("; all {magics} listed");
                } else {
                    out += &format!(
                        "; {listed} of {magics} listed (`exhaust --add-found FILE` supplies the others)"
                    );
                }
                if let Some(v) = tightest {
                    out += &format!(
                        "; tightest: highest index {}, {} slots used ({})",
                        v.max_index,
                        v.used_slots,
                        format_magic(v.magic)
                    );
                    if listed != magics {
                        out += &format!(
                            " (the highest index the smallest of all {magics}, the slots the fewest of the {listed} listed with it)"
                        );
                    }
                }
                out + "\n"
            }
        }
    }
}

impl PartOutcome {
    /// What `magichunt exhaust` prints on stdout.
    #[must_use]
    pub fn render_text(&self) -> String {
        match self {
            PartOutcome::Proven {
                question: q,
                proven,
                store,
            } => format!(
                "{} at {} bits is already proven in {store}: no magic with {proven} bits or fewer exists (--recheck searches again)\n",
                q.target, q.bits
            ),
            PartOutcome::Done {
                question: q,
                shard,
                whole,
            } => format!(
                "part {shard} of {} at {} bits is already done\n{}",
                q.target,
                q.bits,
                whole.as_ref().map_or_else(String::new, |w| w.render(*q))
            ),
            PartOutcome::Interrupted { .. } => String::new(),
            PartOutcome::OutOfTime { question: q, shard } => format!(
                "part {shard} of {} at {} bits: the time ran out while its record was re-run; nothing changed\n",
                q.target, q.bits
            ),
            PartOutcome::Ran(run) => run.render_text(),
        }
    }
}

impl PartRun {
    /// What `magichunt exhaust` prints on stdout after a run.
    #[must_use]
    pub fn render_text(&self) -> String {
        let (q, shard) = (self.question, self.shard);
        let (target, bits) = (q.target, q.bits);
        match &self.whole {
            Some(Whole::Parts { done, count }) => {
                let list = if done.len() <= 20 {
                    let names: Vec<String> = done.iter().map(ToString::to_string).collect();
                    format!(" ({})", names.join(", "))
                } else {
                    String::new()
                };
                return format!(
                    "part {shard} done ({} magics in it); parts done: {} of {count}{list}\n",
                    self.tally.magics,
                    done.len()
                );
            }
            Some(w @ (Whole::NoneExists | Whole::Exists { .. })) => return w.render(q),
            None => {}
        }
        let fraction = if self.len == 0 {
            1.0
        } else {
            self.done as f64 / self.len as f64
        };
        let mut out = format!(
            "part {shard} of {target} at {bits} bits: {:.4}% searched ({} of {} subtrees), checkpoint saved\n",
            100.0 * fraction,
            self.done,
            self.len
        );
        if self.done > self.start_done {
            let took = secs(self.seconds / self.threads as f64);
            out += &format!(
                "projected time for the part at {}: {} ({} so far)\n",
                count(self.threads, "thread"),
                format_duration(secs(took.as_secs_f64() / fraction)),
                format_duration(took)
            );
        } else {
            out += "no subtree finished in this run: no projection yet\n";
        }
        if let Some(b) = self.tally.best {
            out += &format!(
                "{} magics found so far; the tightest, {} (highest index {}), is verified and offered to the store (which keeps it unless it holds a better one)\n",
                self.tally.magics,
                format_magic(b.magic),
                b.max_index
            );
        }
        out
    }
}
