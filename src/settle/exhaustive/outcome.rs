//! How a run of a part ended, and what `magichunt exhaust` prints of it.

use crate::exhaust::campaign::run::Ending;
use crate::exhaust::campaign::shard::Shard;
use crate::exhaust::Tally;
use crate::magic::{format_magic, Verified};
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
    },
    /// Ctrl-C came while a part recorded done was checked: nothing run, nothing said.
    Interrupted {
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
        /// Magics in the period.
        magics: u64,
        /// The tightest magic found (smallest highest index), verified.
        tightest: Option<Verified>,
    },
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
            PartOutcome::Done { question: q, shard } => format!(
                "part {shard} of {} at {} bits is already done\n",
                q.target, q.bits
            ),
            PartOutcome::Interrupted { .. } => String::new(),
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
            Some(Whole::NoneExists) => {
                return format!("{target} at {bits} bits: none exists (proof recorded)\n")
            }
            Some(Whole::Exists { magics, tightest }) => {
                return match tightest {
                    Some(v) => format!(
                        "{target} at {bits} bits: exists: {magics} magics in the period, tightest highest index {} ({})\n",
                        v.max_index,
                        format_magic(v.magic)
                    ),
                    None => format!("{target} at {bits} bits: exists: {magics} magics in the period\n"),
                }
            }
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
                "projected time for the part at {} threads: {} ({} so far)\n",
                self.threads,
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
