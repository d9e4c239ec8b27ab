//! What the hunt shows as it goes: new bests as notes, and as its status an overall line and
//! a line per running target ([`status_lines`]), for a [`crate::progress::Progress`] to draw
//! (the binary draws bars on a terminal; plain lines show the notes only).

use std::time::Duration;

use crate::piece::Target;
use crate::progress::human;
use crate::timefmt::format_duration;

/// Target lines shown at most; the others are counted on the overall line.
const MAX_LINES: usize = 12;

/// What a target line shows.
#[derive(Clone, Debug)]
pub struct Line {
    /// Piece and square.
    pub target: Target,
    /// Bits hunted now.
    pub bits: u32,
    /// Candidates per worker-second on this target in this run.
    pub rate: f64,
    /// Best bits in the store, if any.
    pub best: Option<u32>,
}

/// What the overall line shows.
#[derive(Clone, Debug)]
pub struct Overall {
    /// Wall time since the start.
    pub elapsed: Duration,
    /// Time left with `--time`.
    pub left: Option<Duration>,
    /// Candidates examined in this run.
    pub tried: u64,
    /// Improvements in this run.
    pub improved: usize,
    /// Targets still being hunted.
    pub active: usize,
}

/// The status lines of the hunt: the overall line, then the lines of the running targets
/// (the deepest reductions first, at most `MAX_LINES`).
#[must_use]
pub fn status_lines(o: &Overall, running: &[Line]) -> Vec<String> {
    let secs = o.elapsed.as_secs_f64().max(1e-3);
    let left = o.left.map_or_else(
        || "until Ctrl-C".to_string(),
        |d| format!("{} left", format_duration(d)),
    );
    let more = running.len().saturating_sub(MAX_LINES);
    let mut lines = vec![format!(
        "{} elapsed, {left}, {}/s, {} improved, {} targets hunted{}",
        format_duration(o.elapsed),
        human(o.tried as f64 / secs),
        o.improved,
        o.active,
        if more > 0 {
            format!(" ({more} not shown)")
        } else {
            String::new()
        }
    )];
    lines.extend(running.iter().take(MAX_LINES).map(|l| {
        format!(
            "  {:<10} {:>2} bits  {:>7}/s  best {}",
            l.target.to_string(),
            l.bits,
            human(l.rate),
            l.best
                .map_or_else(|| "none".to_string(), |b| format!("{b} bits"))
        )
    }));
    lines
}
