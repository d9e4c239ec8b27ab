//! Deterministic parts of the space and the cursor that resumes one.
//!
//! Part `K` of `M` holds the tasks `t` with `t mod M = K - 1`: neighbouring tasks have
//! similar cost, so interleaving balances the parts. A part searches its tasks in a fixed
//! scrambled order ([`Shard::task_at`]), so that the fraction done predicts the time left. A cursor is the
//! number of the part's tasks already searched, written `t<task bits>:<done>` so that a cursor
//! of an incompatible build is refused instead of misread.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;

/// Part `index` of `count` (1-based).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which part, 1 to `count`.
    pub index: u32,
    /// How many parts.
    pub count: u32,
}

impl Shard {
    /// The whole space as one part.
    pub const WHOLE: Shard = Shard { index: 1, count: 1 };

    /// Number of the part's tasks among `tasks` tasks.
    #[must_use]
    pub fn len(self, tasks: u64) -> u64 {
        let first = u64::from(self.index - 1);
        if first >= tasks {
            0
        } else {
            (tasks - first).div_ceil(u64::from(self.count))
        }
    }

    /// Whether the part has no task at all (more parts than tasks).
    #[must_use]
    pub fn is_empty(self, tasks: u64) -> bool {
        self.len(tasks) == 0
    }

    /// The `j`-th task of the part in increasing order.
    #[must_use]
    pub fn task(self, j: u64) -> u64 {
        u64::from(self.index - 1) + j * u64::from(self.count)
    }

    /// The `j`-th task of the part in search order: a fixed scrambling of the part's tasks, so
    /// that any prefix of the order is a fair sample (neighbouring tasks share their low bits
    /// of `m`, and some runs of them prune at once) and the ETA is honest.
    #[must_use]
    pub fn task_at(self, j: u64, tasks: u64) -> u64 {
        self.task(scramble(j, self.len(tasks)))
    }
}

/// A fixed bijection of `0..len`: an invertible mix of `0..2^b` (odd multiply-add, then a
/// right xorshift), walked until it lands below `len`.
fn scramble(j: u64, len: u64) -> u64 {
    if len <= 2 {
        return j;
    }
    let b = 64 - (len - 1).leading_zeros();
    let mask = if b == 64 { u64::MAX } else { (1 << b) - 1 };
    let mix = |x: u64| {
        let y = x
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .wrapping_add(0x632b_e59b_d9b4_e019)
            & mask;
        y ^ (y >> b.div_ceil(2))
    };
    let mut x = mix(j);
    while x >= len {
        x = mix(x);
    }
    x
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Shard, ParseError> {
        let bad = || {
            ParseError::Other(format!(
                "invalid shard '{s}' (expected K/M with 1 <= K <= M, e.g. 3/8)"
            ))
        };
        let (k, m) = s.trim().split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = m.trim().parse().map_err(|_| bad())?;
        if count == 0 || index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Where an unfinished part resumes: how many of its tasks are searched.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// The task bits of the plan it belongs to.
    pub task_bits: u32,
    /// Tasks of the part searched so far (in search order).
    pub done: u64,
}

impl Cursor {
    /// The store's spelling.
    #[must_use]
    pub fn encode(self) -> String {
        format!("t{}:{}", self.task_bits, self.done)
    }

    /// Reads a cursor from the store.
    ///
    /// # Errors
    /// [`ParseError::Other`] if it is not one this build wrote.
    pub fn decode(text: &str) -> Result<Cursor, ParseError> {
        let bad = || ParseError::Other(format!("unreadable exhaust cursor '{text}'"));
        let rest = text.strip_prefix('t').ok_or_else(bad)?;
        let (bits, done) = rest.split_once(':').ok_or_else(bad)?;
        Ok(Cursor {
            task_bits: bits.parse().map_err(|_| bad())?,
            done: done.parse().map_err(|_| bad())?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_reject() {
        assert_eq!(
            "3/8".parse::<Shard>().unwrap(),
            Shard { index: 3, count: 8 }
        );
        for bad in ["0/4", "5/4", "x/y", "1", "1/0", "-1/4", "", "2/3/4"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_partition_the_tasks() {
        for tasks in [1u64, 2, 3, 7, 64, 100, 1000] {
            for count in [1u32, 2, 3, 4, 7, 150] {
                let mut seen = vec![0; tasks as usize];
                for index in 1..=count {
                    let s = Shard { index, count };
                    for j in 0..s.len(tasks) {
                        seen[s.task_at(j, tasks) as usize] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n == 1), "{tasks} tasks, {count} parts");
            }
        }
    }

    #[test]
    fn cursors_round_trip() {
        let c = Cursor {
            task_bits: 18,
            done: 12345,
        };
        assert_eq!(Cursor::decode(&c.encode()).unwrap(), c);
        assert!(Cursor::decode("18:5").is_err());
        assert!(Cursor::decode("t18:").is_err());
    }
}
