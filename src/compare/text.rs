//! The terminal rendering of a comparison: 8x8 grids of bits side by side, then the marks.

use std::fmt::Write as _;

use super::{verify_command, Report, Row, Standing, Status};
use crate::piece::Piece;
use crate::square::Square;

/// Width of one grid: the rank digit and eight cells of three characters.
const GRID: usize = 1 + 8 * 3;

/// Draws an 8x8 grid (rank 8 on top, files a..h) of `cell(square)`, as 9 lines.
fn grid(cell: impl Fn(Square) -> String) -> Vec<String> {
    let mut lines: Vec<String> = (0..8)
        .rev()
        .map(|rank| {
            let mut line = format!("{}", rank + 1);
            for file in 0..8 {
                let sq = Square::from_coords(file, rank).expect("on the board");
                let _ = write!(line, "{:>3}", cell(sq));
            }
            line
        })
        .collect();
    lines.push("   a  b  c  d  e  f  g  h".to_string());
    lines
}

/// Grids side by side under their captions.
fn side_by_side(grids: &[(&str, Vec<String>)]) -> String {
    let mut out = String::new();
    let captions: Vec<String> = grids.iter().map(|(c, _)| format!("{c:<GRID$}")).collect();
    out.push_str(captions.join("    ").trim_end());
    out.push('\n');
    for row in 0..9 {
        let cells: Vec<String> = grids
            .iter()
            .map(|(_, g)| format!("{:<GRID$}", g[row]))
            .collect();
        out.push_str(cells.join("    ").trim_end());
        out.push('\n');
    }
    out
}

fn row_of(report: &Report, piece: Piece, sq: Square) -> &Row {
    report.row(piece, sq)
}

/// The three grids of one piece: our bits, their bits, the marks.
fn piece_grids(report: &Report, piece: Piece) -> String {
    let bits = |e: Option<u32>| e.map_or_else(|| ".".to_string(), |b| b.to_string());
    let ours = grid(|sq| bits(row_of(report, piece, sq).ours.as_ref().map(|e| e.bits)));
    let theirs = grid(|sq| bits(row_of(report, piece, sq).theirs.as_ref().map(|t| t.0.bits)));
    let marks = grid(|sq| row_of(report, piece, sq).mark().to_string());
    let name = match piece {
        Piece::Rook => "rook",
        Piece::Bishop => "bishop",
    };
    let ours_caption = format!("{name}: ours");
    let theirs_caption = format!("{name}: theirs");
    side_by_side(&[
        (&ours_caption, ours),
        (&theirs_caption, theirs),
        ("marks", marks),
    ])
}

/// Renders `report` for a terminal.
#[must_use]
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} compared with {}: index bits per square",
        report.ours_name, report.theirs_name
    );
    let ahead: Vec<&Row> = report.ahead_of_theirs().collect();
    if !ahead.is_empty() {
        let _ = writeln!(out, "\n{}:", report.ahead_heading());
        for r in ahead {
            let (Some(ours), Some((theirs, finder))) = (&r.ours, &r.theirs) else {
                continue;
            };
            let _ = writeln!(
                out,
                "  {}: {} bits, magic {}, highest index {} (theirs {} bits; their finder: {finder})\n    check: {}",
                r.target,
                ours.bits,
                crate::magic::format_magic(ours.magic),
                ours.max_index,
                theirs.bits,
                verify_command(ours)
            );
            match r.status() {
                Status::Optimal => {
                    let _ = writeln!(
                        out,
                        "    proven optimal: no magic with {} bits exists",
                        ours.bits - 1
                    );
                }
                Status::Claimed => {
                    let _ = writeln!(
                        out,
                        "    optimal if its recorded proof holds (no magic with {} bits; `magichunt audit` checks it)",
                        ours.bits - 1
                    );
                }
                _ => {}
            }
        }
    }
    for piece in Piece::ALL {
        out.push('\n');
        out.push_str(&piece_grids(report, piece));
    }
    out.push_str(
        "\nmarks: + ahead, = level, - behind, * proven optimal (one above a proof of none, or at\n\
         the lower bound), ? missing from ours; . no magic\n",
    );
    if report.claimed() > 0 {
        out.push_str(
            "       ~ optimal by a proof that is only claimed: recorded, not checked here\n",
        );
    }
    let _ = writeln!(
        out,
        "\nsummary: {} ahead, {} level, {} behind, {} missing; {} proven optimal{}",
        report.count(Standing::Ahead),
        report.count(Standing::Level),
        report.count(Standing::Behind),
        report.count(Standing::Missing),
        report.optimal(),
        super::counting_note(report)
    );
    out.push_str(&proofs(report));
    let (o, t) = (report.ours_totals(), report.theirs_totals());
    let _ = writeln!(
        out,
        "\nfancy tables      {:<28}tight (max_index + 1)",
        "at 2^bits"
    );
    for (name, tot) in [("ours", o), ("theirs", t)] {
        let label = format!("{name} ({}/128)", tot.squares);
        let _ = writeln!(
            out,
            "{label:<18}{:<28}{}",
            tot.full_text(),
            tot.tight_text()
        );
    }
    out.push_str(&layouts(report));
    out.push_str(&usage(report));
    let _ = writeln!(out, "\ntheirs found by (squares, finder):");
    for (finder, n) in report.finders() {
        let _ = writeln!(out, "  {n:>3}  {finder}");
    }
    let behind: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.standing == Standing::Behind)
        .collect();
    if !behind.is_empty() {
        let _ = writeln!(out, "\nbehind:");
        for r in behind {
            if let (Some(ours), Some((theirs, finder))) = (&r.ours, &r.theirs) {
                let _ = writeln!(
                    out,
                    "  {}: ours {} bits, theirs {} bits (by {finder})",
                    r.target, ours.bits, theirs.bits
                );
            }
        }
    }
    out
}

/// The store's own proofs with their provenance, when it has any.
fn proofs(report: &Report) -> String {
    let mut out = String::new();
    if report.proofs.is_empty() {
        return out;
    }
    let checked = report.proofs.iter().filter(|(_, p)| p.is_checked()).count();
    let _ = writeln!(
        out,
        "\nproofs of none in {}: {checked} checked here, {} only claimed",
        report.ours_name,
        report.proofs.len() - checked
    );
    for (q, p) in &report.proofs {
        let _ = writeln!(out, "  {q}: {}", p.describe());
    }
    out
}

/// The table sizes by layout, ours beside the smallest published, in entries and bytes, each
/// table with its category.
fn layouts(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{:<28}{:<38}smallest published",
        "sizes by layout", "ours"
    );
    for row in &report.layouts {
        let ours = row.ours.as_ref().map_or_else(
            || "-".to_string(),
            |o| {
                let mut s = o.text(row.layout);
                if row.record() {
                    s.push_str(" RECORD");
                }
                s
            },
        );
        let theirs = row.theirs.as_ref().map_or_else(
            || "none published".to_string(),
            |t| format!("{}, {} ({})", t.text(row.layout), t.how, t.shift.text()),
        );
        let _ = writeln!(out, "{:<28}{ours:<38}{theirs}", row.name());
    }
    for row in report.layouts.iter().filter(|r| r.layout.shared()) {
        if let Some(o) = &row.ours {
            let _ = writeln!(out, "ours {}: {} ({})", row.name(), o.how, o.shift.text());
        }
    }
    out.push_str(
        "bytes: the data of the C export (nm -S): the tables and 128 magics of 24 bytes (indexed with shared lists: 32)\n",
    );
    out
}

/// Slots used, sum of spans and shared array per table.
fn usage(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{:<64}{:>26}{:>14}{:>14}{:>10}",
        "slots used, spans, shared array",
        "slots (rooks + bishops)",
        "sum of spans",
        "shared array",
        "bytes"
    );
    for row in &report.usage {
        let opt = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
        let _ = writeln!(
            out,
            "{:<64}{:>26}{:>14}{:>14}{:>10}",
            row.name,
            row.usage.slots_text(),
            opt(row.usage.spans),
            opt(row.array),
            opt(row.bytes)
        );
    }
    out
}
