//! The exhaust bench: whole-period enumerations of a fixed set of targets on one thread, each
//! checked against its known count of magics (see the README, "Speed", and issue 17).
//!
//! The set covers the mask shapes: bishops whose last levels hold most subsets (d7, c8), a
//! table wider than the mask (d8 at 9 bits), a long period (h2), rank-7 and rank-8 rooks one
//! and two bits below the popcount, and a target with no magic. A count that differs from the
//! expected one is an error: the bench is also a correctness check.

use std::time::Instant;

use serde::Serialize;

use super::residue::{Residue, Search};
use super::run::{run_part, PartState, RunConfig, REPORT};
use super::shard::Shard;
use crate::exhaust::{search_all, Plan, Tally};
use crate::interrupt::Stop;
use crate::piece::{Piece, Target};
use crate::square::Square;

/// One target of the bench and what its enumeration must give.
#[derive(Copy, Clone, Debug)]
pub struct Case {
    /// The sliding piece.
    pub piece: Piece,
    /// Its square, as a name.
    pub square: &'static str,
    /// Index bits.
    pub bits: u32,
    /// Magics in the period: niklasf/magics v2 `daq` and magichunt's earlier search agree.
    pub magics: u64,
    /// Part of `--quick` (seconds rather than minutes).
    pub quick: bool,
}

impl Case {
    /// The target.
    ///
    /// # Panics
    /// If the square name is bad (the table is fixed).
    #[must_use]
    pub fn target(&self) -> Target {
        let square: Square = self.square.parse().expect("a square of the bench table");
        Target::new(self.piece, square)
    }

    /// `bishop d7 @5`.
    #[must_use]
    pub fn name(&self) -> String {
        format!("{} {} @{}", self.piece.name(), self.square, self.bits)
    }
}

const fn case(piece: Piece, square: &'static str, bits: u32, magics: u64, quick: bool) -> Case {
    Case {
        piece,
        square,
        bits,
        magics,
        quick,
    }
}

/// The fixed set, cheapest first within each piece: the five bishops of issue 17, the rooks,
/// the target with no magic.
pub const CASES: [Case; 8] = [
    case(Piece::Bishop, "e8", 5, 267_317, true),
    case(Piece::Bishop, "d8", 9, 46_971_044, true),
    case(Piece::Bishop, "c8", 5, 4_167_992, true),
    case(Piece::Bishop, "d7", 5, 2_400_702, true),
    case(Piece::Bishop, "h2", 4, 5_229_050, false),
    case(Piece::Rook, "h7", 9, 0, true),
    case(Piece::Rook, "h7", 10, 1, false),
    case(Piece::Bishop, "d8", 4, 0, true),
];

/// The figures of one case.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// `bishop d7 @5`.
    pub target: String,
    /// Index bits.
    pub bits: u32,
    /// `log2` of the period.
    pub period_bits: u32,
    /// Magics found in the period (equal to the expected count, or the bench fails).
    pub magics: u64,
    /// The tightest highest index of a magic, if any.
    pub tightest: Option<u32>,
    /// Partial magics tested.
    pub nodes: u64,
    /// Wall seconds of one enumeration (median of the repetitions).
    pub seconds: f64,
    /// CPU seconds of the searching thread (median), where the system tells them
    /// (`/proc/thread-self/schedstat`); `None` elsewhere.
    pub cpu_seconds: Option<f64>,
    /// Partial magics per second of CPU (of wall time when the CPU time is unknown).
    pub nodes_per_s: f64,
    /// Repetitions behind the medians.
    pub reps: usize,
}

/// Why the exhaust bench failed.
#[derive(Debug, thiserror::Error)]
pub enum ExhaustBenchError {
    /// A count of magics differs from the known one: the search is wrong.
    #[error("{target}: {got} magics in the period, expected {want}")]
    Count {
        /// The case.
        target: String,
        /// Found.
        got: u64,
        /// Known.
        want: u64,
    },
    /// The worker threads of a threaded run could not be started.
    #[error("cannot start the worker threads: {0}")]
    Threads(#[from] std::io::Error),
}

/// How one case scales: the whole period with one thread and with `threads`, as `exhaust`
/// runs it (chunks of tasks, credited in order).
#[derive(Clone, Debug, Serialize)]
pub struct Scaling {
    /// `bishop d7 @5`.
    pub target: String,
    /// The thread count compared with one.
    pub threads: usize,
    /// Wall seconds with one thread (median).
    pub one_s: f64,
    /// Wall seconds with `threads` (median).
    pub many_s: f64,
    /// The median over the repetitions of one-thread wall time over `threads` wall time; each
    /// repetition runs the two back to back, so a slow spell of a shared machine hits both.
    pub speedup: f64,
    /// Repetitions behind the medians.
    pub reps: usize,
}

/// Enumerates the period of `case` with `threads` workers as `exhaust` does: the tally and
/// the wall seconds.
///
/// # Errors
/// When the threads cannot be started.
pub fn enumerate_threaded(case: &Case, threads: usize) -> Result<(Tally, f64), std::io::Error> {
    let plan = Plan::new(case.target(), case.bits);
    let cfg = RunConfig {
        threads,
        time_limit: None,
        report: REPORT,
        until: None,
        node_limit: None,
    };
    // With its residue, as `exhaust` runs a part.
    let search = Search::of(case.target(), &plan, Shard::WHOLE);
    let mut state = PartState {
        residue: Some(Residue::new(search, plan.tasks())),
        ..PartState::default()
    };
    let start = Instant::now();
    run_part(
        &plan,
        Shard::WHOLE,
        &mut state,
        &cfg,
        &Stop::new(),
        |_, _| {},
    )?;
    Ok((state.tally, start.elapsed().as_secs_f64()))
}

/// Runs `case` `reps` times (at least once) with one thread and with `threads`, alternating,
/// and checks both counts.
///
/// # Errors
/// [`ExhaustBenchError::Count`] when a count of magics is not the known one;
/// [`ExhaustBenchError::Threads`] when the threads cannot be started.
pub fn run_scaling(case: &Case, threads: usize, reps: usize) -> Result<Scaling, ExhaustBenchError> {
    let (mut ones, mut manys, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..reps.max(1) {
        let mut pair = [0.0; 2];
        for (k, n) in [1, threads].into_iter().enumerate() {
            let (t, wall) = enumerate_threaded(case, n)?;
            if t.magics != case.magics {
                return Err(ExhaustBenchError::Count {
                    target: case.name(),
                    got: t.magics,
                    want: case.magics,
                });
            }
            pair[k] = wall;
        }
        ones.push(pair[0]);
        manys.push(pair[1]);
        ratios.push(pair[0] / pair[1].max(1e-9));
    }
    Ok(Scaling {
        target: case.name(),
        threads,
        one_s: median(&mut ones),
        many_s: median(&mut manys),
        speedup: median(&mut ratios),
        reps: ratios.len(),
    })
}

/// Enumerates the period of `case` once on this thread: the tally, wall and CPU seconds.
#[must_use]
pub fn enumerate(case: &Case) -> (Tally, f64, Option<f64>) {
    let plan = Plan::new(case.target(), case.bits);
    let cpu0 = thread_cpu_ns();
    let start = Instant::now();
    let tally = search_all(&plan);
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu0
        .zip(thread_cpu_ns())
        .map(|(a, b)| b.saturating_sub(a) as f64 * 1e-9);
    (tally, wall, cpu)
}

/// Runs `case` `reps` times (at least once) and checks its count.
///
/// # Errors
/// [`ExhaustBenchError::Count`] when the count of magics is not the known one.
pub fn run_case(case: &Case, reps: usize) -> Result<Figure, ExhaustBenchError> {
    let plan = Plan::new(case.target(), case.bits);
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut tally = Tally::default();
    for _ in 0..reps.max(1) {
        let (t, wall, cpu) = enumerate(case);
        if t.magics != case.magics {
            return Err(ExhaustBenchError::Count {
                target: case.name(),
                got: t.magics,
                want: case.magics,
            });
        }
        tally = t;
        walls.push(wall);
        cpus.extend(cpu);
    }
    let seconds = median(&mut walls);
    let cpu_seconds = (cpus.len() == walls.len()).then(|| median(&mut cpus));
    #[allow(clippy::cast_precision_loss)]
    let nodes_per_s = tally.nodes as f64 / cpu_seconds.unwrap_or(seconds).max(1e-9);
    Ok(Figure {
        target: case.name(),
        bits: case.bits,
        period_bits: plan.period_bits(),
        magics: tally.magics,
        tightest: tally.best.map(|b| b.max_index),
        nodes: tally.nodes,
        seconds,
        cpu_seconds,
        nodes_per_s,
        reps: walls.len(),
    })
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// CPU time of the calling thread in nanoseconds, on Linux (the first field of
/// `/proc/thread-self/schedstat`); on a machine shared with other work it is what the thread
/// really got, where wall time is not.
pub(super) fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The header of the table `magichunt bench --exhaust` prints ([`Figure::render_row`]).
#[must_use]
pub fn header() -> String {
    format!(
        "{:<15} {:>6} {:>12} {:>8} {:>14} {:>9} {:>9} {:>12}",
        "target", "period", "magics", "tightest", "partial", "wall_s", "cpu_s", "partial/s"
    )
}

impl Figure {
    /// Its row of the table `magichunt bench --exhaust` prints.
    #[must_use]
    pub fn render_row(&self) -> String {
        let tightest = self.tightest.map_or("-".to_string(), |t| t.to_string());
        let cpu = self
            .cpu_seconds
            .map_or("-".to_string(), |c| format!("{c:.2}"));
        format!(
            "{:<15} {:>6} {:>12} {:>8} {:>14} {:>9.2} {:>9} {:>12.3e}",
            self.target,
            format!("2^{}", self.period_bits),
            self.magics,
            tightest,
            self.nodes,
            self.seconds,
            cpu,
            self.nodes_per_s
        )
    }
}

/// The header of the table `magichunt bench --exhaust --threads N` prints
/// ([`Scaling::render_row`]).
#[must_use]
pub fn scaling_header() -> String {
    format!(
        "{:<15} {:>7} {:>9} {:>9} {:>8}",
        "target", "threads", "one_s", "many_s", "speedup"
    )
}

impl Scaling {
    /// Its row of the table `magichunt bench --exhaust --threads N` prints.
    #[must_use]
    pub fn render_row(&self) -> String {
        format!(
            "{:<15} {:>7} {:>9.2} {:>9.2} {:>7.2}x",
            self.target, self.threads, self.one_s, self.many_s, self.speedup
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts of the cheap cases, untimed: e8 at 5, d8 at 9 and the target with no magic.
    #[test]
    fn cheap_cases_count_what_they_should() {
        for (square, bits) in [("e8", 5), ("d8", 9), ("d8", 4)] {
            let case = CASES
                .iter()
                .find(|c| c.piece == Piece::Bishop && c.square == square && c.bits == bits)
                .expect("in the table");
            let (tally, _, _) = enumerate(case);
            assert_eq!(tally.magics, case.magics, "{}", case.name());
        }
    }

    /// The threaded run, as `exhaust` does it, finds what the one-thread search finds.
    #[test]
    fn a_threaded_enumeration_counts_the_same() {
        let case = CASES
            .iter()
            .find(|c| c.piece == Piece::Bishop && c.square == "d8" && c.bits == 9)
            .expect("in the table");
        let (tally, _) = enumerate_threaded(case, 2).unwrap();
        let plan = Plan::new(case.target(), case.bits);
        assert_eq!(tally, search_all(&plan));
        assert_eq!(tally.magics, case.magics);
    }

    #[test]
    fn the_table_covers_the_shapes() {
        assert!(CASES.iter().any(|c| c.magics == 0));
        assert!(CASES.iter().filter(|c| c.piece == Piece::Rook).count() >= 2);
        for c in CASES {
            assert!(c.bits <= c.piece.max_bits(), "{}", c.name());
        }
    }
}
