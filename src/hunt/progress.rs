//! Progress on stderr: indicatif bars on a terminal (an overall line and a line per running
//! target), otherwise, or with `--quiet`, one plain line per new best.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::piece::Target;
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

/// The progress display.
pub enum Progress {
    /// Bars on a terminal.
    Bars {
        /// The bar group.
        multi: MultiProgress,
        /// The overall line.
        overall: ProgressBar,
        /// One line per shown target.
        lines: BTreeMap<Target, ProgressBar>,
    },
    /// Plain lines, one per new best.
    Plain,
}

impl Progress {
    /// Bars when stderr is a terminal and not `quiet`, plain lines otherwise.
    #[must_use]
    pub fn new(quiet: bool) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress::Plain;
        }
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(4));
        let overall = multi.add(ProgressBar::new_spinner());
        overall.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("template"));
        Progress::Bars {
            multi,
            overall,
            lines: BTreeMap::new(),
        }
    }

    /// Prints a message above the bars (or as a plain line).
    pub fn note(&self, text: &str) {
        match self {
            Progress::Bars { multi, .. } => {
                let _ = multi.println(text);
            }
            Progress::Plain => crate::say!("{text}"),
        }
    }

    /// Redraws: the overall line and the lines of the running targets (the deepest
    /// reductions first, at most `MAX_LINES`).
    pub fn update(&mut self, o: &Overall, running: &[Line]) {
        let Progress::Bars {
            multi,
            overall,
            lines,
        } = self
        else {
            return;
        };
        let secs = o.elapsed.as_secs_f64().max(1e-3);
        let left = o.left.map_or_else(
            || "until Ctrl-C".to_string(),
            |d| format!("{} left", format_duration(d)),
        );
        let more = running.len().saturating_sub(MAX_LINES);
        overall.set_message(format!(
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
        ));
        overall.tick();
        let shown: Vec<&Line> = running.iter().take(MAX_LINES).collect();
        lines.retain(|t, bar| {
            let keep = shown.iter().any(|l| l.target == *t);
            if !keep {
                bar.finish_and_clear();
                multi.remove(bar);
            }
            keep
        });
        for l in shown {
            let bar = lines.entry(l.target).or_insert_with(|| {
                let b = multi.add(ProgressBar::new_spinner());
                b.set_style(ProgressStyle::with_template("  {msg}").expect("template"));
                b
            });
            bar.set_message(format!(
                "{:<10} {:>2} bits  {:>7}/s  best {}",
                l.target.to_string(),
                l.bits,
                human(l.rate),
                l.best
                    .map_or_else(|| "none".to_string(), |b| format!("{b} bits"))
            ));
        }
    }

    /// Clears the bars.
    pub fn finish(&mut self) {
        if let Progress::Bars {
            multi,
            overall,
            lines,
        } = self
        {
            for bar in lines.values() {
                bar.finish_and_clear();
            }
            overall.finish_and_clear();
            let _ = multi.clear();
        }
    }
}

/// `1234567.0` as `1.23M`.
#[must_use]
pub fn human(x: f64) -> String {
    match x {
        x if x >= 1e9 => format!("{:.2}G", x / 1e9),
        x if x >= 1e6 => format!("{:.2}M", x / 1e6),
        x if x >= 1e3 => format!("{:.1}k", x / 1e3),
        x => format!("{x:.0}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn human_numbers() {
        assert_eq!(super::human(1_234_567.0), "1.23M");
        assert_eq!(super::human(950.0), "950");
        assert_eq!(super::human(12_345.0), "12.3k");
    }
}
