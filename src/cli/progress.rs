//! The binary's [`Progress`]: bars on a terminal (indicatif), plain lines in a log.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::progress::{Lines, Progress};

/// Notes and status on stderr: redrawn bars on a terminal (unless quiet), else notes one a
/// line and the status as a plain line at most once every so often.
pub(super) struct Display {
    /// Bars are drawn (stderr is a terminal, and not quiet).
    fancy: bool,
    /// The bars, from the first status to [`Progress::finish`].
    bars: Option<Bars>,
    /// Without bars.
    plain: Lines,
}

/// One bar per status line, the first with a spinner.
struct Bars {
    multi: MultiProgress,
    lines: Vec<ProgressBar>,
}

impl Display {
    /// Bars when stderr is a terminal and not `quiet`; otherwise the status as a plain line
    /// at most once every `plain_every` (never when `None`).
    pub(super) fn new(quiet: bool, plain_every: Option<Duration>) -> Display {
        Display {
            fancy: !quiet && std::io::stderr().is_terminal(),
            bars: None,
            plain: Lines::new(plain_every),
        }
    }
}

impl Progress for Display {
    fn note(&mut self, line: &str) {
        match &self.bars {
            Some(b) => {
                let _ = b.multi.println(crate::escape::terminal_text(line));
            }
            None => self.plain.note(line),
        }
    }

    fn status(&mut self, lines: &[String]) {
        if !self.fancy {
            return self.plain.status(lines);
        }
        let b = self.bars.get_or_insert_with(|| Bars {
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(4)),
            lines: Vec::new(),
        });
        while b.lines.len() > lines.len() {
            if let Some(bar) = b.lines.pop() {
                bar.finish_and_clear();
                b.multi.remove(&bar);
            }
        }
        while b.lines.len() < lines.len() {
            let template = if b.lines.is_empty() {
                "{spinner} {msg}"
            } else {
                "{msg}"
            };
            let bar = b.multi.add(ProgressBar::new_spinner());
            bar.set_style(ProgressStyle::with_template(template).expect("template"));
            b.lines.push(bar);
        }
        for (bar, line) in b.lines.iter().zip(lines) {
            bar.set_message(crate::escape::one_line(line));
        }
        if let Some(first) = b.lines.first() {
            first.tick();
        }
    }

    fn finish(&mut self) {
        if let Some(b) = self.bars.take() {
            for bar in &b.lines {
                bar.finish_and_clear();
            }
            let _ = b.multi.clear();
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        self.finish();
    }
}
