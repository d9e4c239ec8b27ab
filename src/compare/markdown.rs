//! The Markdown rendering of a comparison: tables to paste into an issue or a README.

use std::fmt::Write as _;

use super::{verify_command, Report, Row, Standing, Status};
use crate::magic::format_magic;
use crate::piece::Piece;
use crate::square::Square;

/// Text from a store or a table, escaped for Markdown (see [`crate::escape`]): no HTML,
/// markup or cell boundary of its own.
fn cell(text: &str) -> String {
    crate::escape::markdown_text(text)
}

/// One 8x8 table of a piece, rank 8 on top; each cell `ours/theirs mark`.
fn board(out: &mut String, report: &Report, piece: Piece) {
    let base = match piece {
        Piece::Rook => 0,
        Piece::Bishop => 64,
    };
    let _ = writeln!(out, "| {piece} | a | b | c | d | e | f | g | h |");
    out.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for rank in (0..8).rev() {
        let _ = write!(out, "| **{}** |", rank + 1);
        for file in 0..8 {
            let sq = Square::from_coords(file, rank).expect("on the board");
            let r = &report.rows[base + sq.index()];
            let bits = |b: Option<u32>| b.map_or_else(|| ".".to_string(), |b| b.to_string());
            let _ = write!(
                out,
                " {}/{} {} |",
                bits(r.ours.as_ref().map(|e| e.bits)),
                bits(r.theirs.as_ref().map(|t| t.0.bits)),
                mark(r)
            );
        }
        out.push('\n');
    }
}

/// The mark, with `*` and `+` escaped for Markdown.
fn mark(r: &Row) -> String {
    match r.mark() {
        '*' => "\\*".into(),
        m => m.to_string(),
    }
}

/// Renders `report` as Markdown.
#[must_use]
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## {} compared with {}\n",
        crate::escape::markdown_code(&report.ours_name),
        cell(&report.theirs_name)
    );
    let ahead: Vec<&Row> = report.ahead_of_theirs().collect();
    if !ahead.is_empty() {
        let _ = writeln!(out, "### {}\n", report.ahead_heading());
        out.push_str("| square | bits | theirs | by | magic | check | optimal |\n");
        out.push_str("|---|---|---|---|---|---|---|\n");
        for r in ahead {
            if let (Some(ours), Some((theirs, finder))) = (&r.ours, &r.theirs) {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | `{}` | `{}` | {} |",
                    r.target,
                    ours.bits,
                    theirs.bits,
                    cell(finder),
                    format_magic(ours.magic),
                    verify_command(ours),
                    match r.status() {
                        Status::Optimal => "proven",
                        Status::Claimed => "claimed (`magichunt audit` checks it)",
                        _ => "open",
                    }
                );
            }
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "### Bits per square\n\nEach cell is `ours/theirs mark`: + ahead, = level, - behind, \\* proven optimal, ? missing from ours; . no magic.{}\n",
        if report.claimed() > 0 {
            " ~ optimal by a proof that is only claimed (recorded, not checked here)."
        } else {
            ""
        }
    );
    for piece in Piece::ALL {
        board(&mut out, report, piece);
        out.push('\n');
    }
    out.push_str("### Summary\n\n| ahead | level | behind | missing | proven optimal |\n");
    out.push_str("|---|---|---|---|---|\n");
    let _ = writeln!(
        out,
        "| {} | {} | {} | {} | {} |\n",
        report.count(Standing::Ahead),
        report.count(Standing::Level),
        report.count(Standing::Behind),
        report.count(Standing::Missing),
        report.optimal()
    );
    let note = super::counting_note(report);
    if !note.is_empty() {
        let _ = writeln!(out, "Proven optimal{note}.\n");
    }
    if !report.proofs.is_empty() {
        let checked = report.proofs.iter().filter(|(_, p)| p.is_checked()).count();
        let _ = writeln!(
            out,
            "Proofs of none in the store: {checked} checked here, {} only claimed.\n\n| question | provenance |\n|---|---|",
            report.proofs.len() - checked
        );
        for (q, p) in &report.proofs {
            let _ = writeln!(out, "| {q} | {} |", cell(&p.describe()));
        }
        out.push('\n');
    }
    out.push_str("| fancy tables | squares | at 2^bits | tight (max_index + 1) |\n");
    out.push_str("|---|---|---|---|\n");
    for (name, t) in [
        ("ours", report.ours_totals()),
        ("theirs", report.theirs_totals()),
    ] {
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} |",
            t.squares,
            t.full_text(),
            t.tight_text()
        );
    }
    out.push_str(
        "\n| layout | ours | how | smallest published | source |\n|---|---|---|---|---|\n",
    );
    for row in &report.layouts {
        let (ours, how) = row.ours.as_ref().map_or_else(
            || ("-".to_string(), String::new()),
            |o| {
                let mut s = o.text(row.layout);
                if row.record() {
                    s = format!("**{s}** (record)");
                }
                (s, format!("{} ({})", o.how, o.shift.text()))
            },
        );
        let (theirs, source) = row.theirs.as_ref().map_or_else(
            || ("none published".to_string(), String::new()),
            |t| {
                (
                    t.text(row.layout),
                    format!("{} ({})", t.how, t.shift.text()),
                )
            },
        );
        let _ = writeln!(
            out,
            "| {} | {ours} | {} | {theirs} | {} |",
            row.name(),
            cell(&how),
            cell(&source)
        );
    }
    out.push_str(
        "\nBytes: the data of the C export (`nm -S`), the tables and 128 magics of 24 bytes (indexed with shared lists: 32).\n",
    );
    out.push_str(
        "\n| table | slots used (rooks + bishops) | sum of per-square spans | shared array | bytes |\n|---|---:|---:|---:|---:|\n",
    );
    for row in &report.usage {
        let opt = |v: Option<u64>| v.map_or_else(String::new, |v| v.to_string());
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            cell(&row.name),
            row.usage.slots_text(),
            opt(row.usage.spans),
            opt(row.array),
            opt(row.bytes)
        );
    }
    let behind: Vec<&Row> = report
        .rows
        .iter()
        .filter(|r| r.standing == Standing::Behind)
        .collect();
    if !behind.is_empty() {
        out.push_str("\n### Behind\n\n| square | ours | theirs | by |\n|---|---|---|---|\n");
        for r in behind {
            if let (Some(ours), Some((theirs, finder))) = (&r.ours, &r.theirs) {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    r.target,
                    ours.bits,
                    theirs.bits,
                    cell(finder)
                );
            }
        }
    }
    out.push_str(
        "\n<details><summary>Every square</summary>\n\n| square | ours | theirs | mark | theirs found by |\n|---|---|---|---|---|\n",
    );
    for r in &report.rows {
        let bits = |b: Option<u32>| b.map_or_else(|| ".".to_string(), |b| b.to_string());
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.target,
            bits(r.ours.as_ref().map(|e| e.bits)),
            bits(r.theirs.as_ref().map(|t| t.0.bits)),
            mark(r),
            r.theirs.as_ref().map_or_else(String::new, |t| cell(&t.1))
        );
    }
    out.push_str("\n</details>\n");
    out
}
