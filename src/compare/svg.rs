//! The picture of a comparison: the rook and bishop boards side by side as an SVG, each
//! square drawn by its [`Status`] (the rule of the text grids) and showing our bits large
//! and theirs small, with a legend. 800 pixels wide, so it reads at the width of a README.
//!
//! A status is told by two cues that do not depend on each other: its fill (the same on every
//! square: the boards have no light and dark squares to shade it, and claimed squares are
//! striped) and the mark of the text grids in the square's corner (`*` proven, `~` claimed,
//! `+` ahead, `=` open, `-` behind, `?` missing), which reads without colour. A square that is
//! ahead of theirs and also proven optimal (or claimed so) keeps its status's fill and mark and
//! gets a blue frame and a `+` in its other corner, so a proven new record shows as both.
//!
//! Text from outside (the store's path, the name of the other table) is written escaped
//! ([`xml_text`]); everything else is made here.

use std::fmt::Write as _;

use super::{Report, Row, Standing, Status};
use crate::piece::Piece;
use crate::size::kib;
use crate::square::Square;

/// Width of the picture.
const WIDTH: u32 = 800;
/// Side of one square.
const CELL: u32 = 42;
/// Left edge of each board.
const BOARD_X: [u32; 2] = [36, 436];
/// Top edge of the boards.
const BOARD_Y: u32 = 104;
/// Top of the legend.
const LEGEND_Y: u32 = BOARD_Y + 8 * CELL + 44;
/// Height of the picture.
const HEIGHT: u32 = LEGEND_Y + 176;
/// The frame of a square ahead of theirs whose status is another (proven or claimed optimal):
/// the blue of [`Status::Ahead`], darker, so that it shows on the green fills.
const AHEAD_FRAME: &str = "#3b5bdb";

/// Whether `row` is ahead of theirs under another status (proven or claimed optimal): framed,
/// so that the picture shows both.
fn framed(row: &Row) -> bool {
    row.standing == Standing::Ahead && row.status() != Status::Ahead
}

/// How a status is drawn: one fill whatever the square's shade on a chessboard (the board
/// has no light and dark squares: a status reads the same on every square), a pattern for the
/// claimed squares so that they never look like proven ones, and the mark of the text grids
/// ([`Status::mark`]) in the corner, a cue that needs no colour at all. The fills were chosen
/// so that any two stay apart (CIE76 colour difference at least 16) also as seen with
/// deuteranopia, protanopia and tritanopia (Machado et al. 2009 simulation), with lightness
/// of at least 55 under black text; in greyscale the marks and the stripes carry it.
const fn fill(status: Status) -> &'static str {
    match status {
        Status::Optimal => "#6fbf85",
        Status::Claimed => "url(#claimed)",
        Status::Ahead => "#a9bcf5",
        Status::Level => "#f6d56e",
        Status::Behind => "#e0735a",
        Status::Missing => "#eeeeee",
    }
}

/// The pattern of the claimed squares: thin green stripes on white, so that a claimed square
/// looks like "proven, if the claim holds" and never like a proven one. Text on it is drawn
/// with a white halo (class `halo`) to stay legible.
const PATTERNS: &str = r##"<defs>
<pattern id="claimed" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">
<rect width="6" height="6" fill="#f4fbf6"/><rect width="1.6" height="6" fill="#52b07b"/>
</pattern>
</defs>
"##;

/// What the legend says of each status.
fn legend(status: Status, published: bool) -> &'static str {
    match (status, published) {
        (Status::Optimal, _) => "proven optimal: no magic with fewer bits exists",
        (Status::Claimed, _) => "optimal by a claimed proof, not checked here",
        (Status::Ahead, true) => "ahead of the records: a new record, not proven optimal",
        (Status::Ahead, false) => "ahead of theirs, not proven optimal",
        (Status::Level, true) => "open: fewer bits neither found nor ruled out",
        (Status::Level, false) => "open: level with theirs, not proven optimal",
        (Status::Behind, true) => "behind the records",
        (Status::Behind, false) => "behind theirs",
        (Status::Missing, _) => "missing: no magic of ours",
    }
}

pub use crate::escape::xml_text;

/// `name` cut to its last `max` characters (after an ellipsis) when longer: a path keeps its
/// file name.
fn tail(name: &str, max: usize) -> String {
    let n = name.chars().count();
    if n <= max {
        return name.to_string();
    }
    let rest: String = name.chars().skip(n - (max - 1)).collect();
    format!("…{rest}")
}

/// `n` with thousands separators: 89280 as `89,280`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// One board: caption, squares, rank and file labels.
fn board(out: &mut String, report: &Report, piece: Piece, x0: u32) {
    let name = match piece {
        Piece::Rook => "Rooks",
        Piece::Bishop => "Bishops",
    };
    let optimal = report.count_status(piece, Status::Optimal);
    let _ = writeln!(
        out,
        r#"<text x="{x0}" y="{}" class="caption">{name}</text><text x="{}" y="{}" class="note" text-anchor="end">{optimal} of 64 proven optimal</text>"#,
        BOARD_Y - 12,
        x0 + 8 * CELL,
        BOARD_Y - 12
    );
    for rank in 0..8 {
        for file in 0..8 {
            let sq = Square::from_coords(file, rank).expect("on the board");
            let row = report.row(piece, sq);
            let status = row.status();
            let halo = if status == Status::Claimed {
                " halo"
            } else {
                ""
            };
            let x = x0 + file.unsigned_abs() * CELL;
            let y = BOARD_Y + (7 - rank.unsigned_abs()) * CELL;
            let ours = row
                .ours
                .as_ref()
                .map_or("·".to_string(), |e| e.bits.to_string());
            let theirs = row
                .theirs
                .as_ref()
                .map_or("·".to_string(), |t| t.0.bits.to_string());
            let _ = writeln!(
                out,
                r##"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{}" stroke="#ffffff" stroke-width="1"/><text x="{}" y="{}" class="mark{halo}">{}</text><text x="{}" y="{}" class="ours{halo}">{ours}</text><text x="{}" y="{}" class="theirs{halo}">{theirs}</text>"##,
                fill(status),
                x + 3,
                y + 11,
                xml_text(&status.mark().to_string()),
                x + CELL / 2,
                y + 24,
                x + CELL / 2,
                y + CELL - 5
            );
            if framed(row) {
                let _ = writeln!(
                    out,
                    r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{AHEAD_FRAME}" stroke-width="3"/><text x="{}" y="{}" class="mark{halo}" text-anchor="end">+</text>"##,
                    x + 2,
                    y + 2,
                    CELL - 4,
                    CELL - 4,
                    x + CELL - 4,
                    y + 11
                );
            }
        }
    }
    let _ = writeln!(
        out,
        r##"<rect x="{x0}" y="{BOARD_Y}" width="{}" height="{}" fill="none" stroke="#3c3c3c" stroke-width="1.5"/>"##,
        8 * CELL,
        8 * CELL
    );
    for i in 0..8u32 {
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" class="label" text-anchor="middle">{}</text><text x="{}" y="{}" class="label" text-anchor="middle">{}</text>"#,
            x0 - 12,
            BOARD_Y + (7 - i) * CELL + CELL / 2 + 5,
            i + 1,
            x0 + i * CELL + CELL / 2,
            BOARD_Y + 8 * CELL + 18,
            char::from(b'a' + i as u8)
        );
    }
}

/// Renders `report` as an SVG picture of both boards.
#[must_use]
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let against = if report.against_published {
        "the published records".to_string()
    } else {
        report.theirs_name.clone()
    };
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(
        out,
        "<title>magichunt: index bits per square, {} against {}</title>",
        xml_text(&report.ours_name),
        xml_text(&against)
    );
    out.push_str(
        r##"<style>
.title { font-size: 20px; font-weight: bold; fill: #222; }
.sub { font-size: 13px; fill: #555; }
.caption { font-size: 15px; font-weight: bold; fill: #222; }
.note { font-size: 12px; fill: #555; }
.label { font-size: 12px; fill: #666; }
.ours { font-size: 17px; font-weight: bold; fill: #1e1e1e; text-anchor: middle; }
.theirs { font-size: 10.5px; fill: #555; text-anchor: middle; }
.legend { font-size: 12.5px; fill: #333; }
.halo { stroke: #ffffff; stroke-width: 3px; stroke-linejoin: round; paint-order: stroke; }
.mark { font-size: 11px; font-weight: bold; fill: #1e1e1e; font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; }
</style>
<rect width="100%" height="100%" fill="#ffffff"/>
"##,
    );
    out.push_str(PATTERNS);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="32" class="title">Index bits per square: ours against {}</text>"#,
        BOARD_X[0] - 12,
        if report.against_published {
            "the published records"
        } else {
            "theirs"
        }
    );
    let names = if report.against_published {
        format!("ours: {}", tail(&report.ours_name, 100))
    } else {
        format!(
            "ours: {}; theirs: {}",
            tail(&report.ours_name, 48),
            tail(&report.theirs_name, 48)
        )
    };
    let _ = writeln!(
        out,
        r#"<text x="{}" y="54" class="sub">{}</text>"#,
        BOARD_X[0] - 12,
        xml_text(&names)
    );
    board(&mut out, report, Piece::Rook, BOARD_X[0]);
    board(&mut out, report, Piece::Bishop, BOARD_X[1]);
    // The legend: a sample square, then the statuses in two columns.
    let (lx, ly) = (BOARD_X[0] - 12, LEGEND_Y);
    let _ = writeln!(
        out,
        r##"<rect x="{lx}" y="{ly}" width="{CELL}" height="{CELL}" fill="#ffffff" stroke="#3c3c3c" stroke-width="1"/><text x="{}" y="{}" class="ours">10</text><text x="{}" y="{}" class="theirs">11</text>"##,
        lx + CELL / 2,
        ly + 24,
        lx + CELL / 2,
        ly + CELL - 5
    );
    let theirs = if report.against_published {
        "the best published bits (the record)"
    } else {
        "their bits"
    };
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" class="legend">In each square: our index bits (large), {theirs} below (small); · none.</text>"#,
        lx + CELL + 12,
        ly + 18
    );
    let (o, t) = (report.ours_totals(), report.theirs_totals());
    let _ = writeln!(
        out,
        r#"<text x="{}" y="{}" class="legend">Tables at 2^bits: ours {} entries ({} KiB), theirs {} ({} KiB).</text>"#,
        lx + CELL + 12,
        ly + 36,
        thousands(o.entries),
        kib(o.entries),
        thousands(t.entries),
        kib(t.entries)
    );
    for (i, status) in Status::ALL.into_iter().enumerate() {
        let col = u32::from(i >= 3);
        let x = lx + col * 400;
        let y = ly + CELL + 20 + (i as u32 % 3) * 26;
        let n = report.rows.iter().filter(|r| r.status() == status).count();
        let _ = writeln!(
            out,
            r##"<rect x="{x}" y="{y}" width="20" height="20" fill="{}" stroke="#3c3c3c" stroke-width="0.5"/><text x="{}" y="{}" class="mark{}">{}</text><text x="{}" y="{}" class="legend">{} ({n})</text>"##,
            fill(status),
            x + 3,
            y + 11,
            if status == Status::Claimed {
                " halo"
            } else {
                ""
            },
            xml_text(&status.mark().to_string()),
            x + 28,
            y + 15,
            legend(status, report.against_published)
        );
    }
    let n_framed = report.rows.iter().filter(|r| framed(r)).count();
    let y = ly + CELL + 20 + 3 * 26;
    let _ = writeln!(
        out,
        r##"<rect x="{lx}" y="{y}" width="20" height="20" fill="#ffffff" stroke="{AHEAD_FRAME}" stroke-width="3"/><text x="{}" y="{}" class="mark" text-anchor="end">+</text><text x="{}" y="{}" class="legend">{} ({n_framed})</text>"##,
        lx + 18,
        y + 11,
        lx + 28,
        y + 15,
        if report.against_published {
            "framed, + in the right corner: also ahead of the records (a new record, proven or claimed optimal)"
        } else {
            "framed, + in the right corner: also ahead of theirs (proven or claimed optimal)"
        }
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Theirs;
    use crate::store::Store;

    #[test]
    fn text_from_outside_is_escaped() {
        assert_eq!(
            xml_text("<a href=\"x\">&'\u{1b}"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\\u{1b}"
        );
        let report = Report::new(
            &Store::new(),
            "</text><script>alert(1)</script>\n",
            &Theirs::published(),
        );
        let svg = render(&report);
        assert!(!svg.contains("<script>"), "{svg}");
        assert!(svg.contains("&lt;/text&gt;&lt;script&gt;"));
        assert!(
            svg.contains("&lt;/script&gt;\\u{a}"),
            "the newline is written escaped"
        );
    }

    #[test]
    fn a_status_looks_the_same_on_every_square_and_unlike_every_other() {
        // Each status has its own fill and mark, whatever the square.
        for (i, a) in Status::ALL.into_iter().enumerate() {
            for b in Status::ALL.into_iter().skip(i + 1) {
                assert_ne!(fill(a), fill(b), "{a:?} and {b:?}");
                assert_ne!(a.mark(), b.mark(), "{a:?} and {b:?}");
            }
        }
        // The built-in store has proven and claimed squares (its exhaustive proofs are
        // claimed until audited); every square is drawn with the fill and mark of its status,
        // so a1 (a dark square) and b1 (a light one) of one status look alike.
        let report = Report::new(
            crate::shipped::store(),
            crate::shipped::NAME,
            &Theirs::published(),
        );
        let svg = render(&report);
        let mut seen = std::collections::BTreeSet::new();
        for row in &report.rows {
            let s = row.status();
            seen.insert(s);
            let file = row.target.square.index() % 8;
            let rank = row.target.square.index() / 8;
            let x = match row.target.piece {
                Piece::Rook => BOARD_X[0],
                Piece::Bishop => BOARD_X[1],
            } + file as u32 * CELL;
            let y = BOARD_Y + (7 - rank as u32) * CELL;
            let cell = format!(
                r#"<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{}""#,
                fill(s)
            );
            let at = svg
                .find(&cell)
                .unwrap_or_else(|| panic!("{}: {cell}", row.target));
            let mark = format!(">{}</text>", xml_text(&s.mark().to_string()));
            assert!(
                svg[at..].find(&mark).is_some_and(|m| m < 250),
                "{}",
                row.target
            );
        }
        assert!(
            seen.contains(&Status::Optimal) && seen.contains(&Status::Claimed),
            "{seen:?}"
        );
        // The legend shows every status with its fill and mark.
        for s in Status::ALL {
            assert!(svg.contains(&format!(r#"width="20" height="20" fill="{}""#, fill(s))));
        }
    }

    #[test]
    fn a_proven_new_record_is_framed_as_ahead_too() {
        // Rook b1: 10 bits in the built-in store, 11 in the records, and no 9-bit magic by
        // an exhaustive proof (claimed until audited). Its status is the proof's; the frame
        // and the second `+` say it is also a new record. No other square is ahead.
        let report = Report::new(
            crate::shipped::store(),
            crate::shipped::NAME,
            &Theirs::published(),
        );
        let b1 = report.row(Piece::Rook, Square::from_coords(1, 0).expect("b1"));
        assert_eq!(b1.standing, Standing::Ahead);
        assert_ne!(b1.status(), Status::Ahead);
        let svg = render(&report);
        let frame = format!(
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="{AHEAD_FRAME}""#,
            BOARD_X[0] + CELL + 2,
            BOARD_Y + 7 * CELL + 2,
            CELL - 4,
            CELL - 4
        );
        assert!(svg.contains(&frame), "{frame}");
        assert_eq!(svg.matches(r##"fill="none" stroke="#3b5bdb""##).count(), 1);
        assert!(
            svg.contains("also ahead of the records (a new record, proven or claimed optimal) (1)")
        );
        // With nothing ahead, the legend's count is 0 and no square is framed.
        let empty = render(&Report::new(
            &Store::new(),
            "empty.json",
            &Theirs::published(),
        ));
        assert_eq!(
            empty.matches(r##"fill="none" stroke="#3b5bdb""##).count(),
            0
        );
        assert!(empty.contains("proven or claimed optimal) (0)"));
    }

    #[test]
    fn every_square_is_drawn_with_its_status() {
        let report = Report::new(&Store::new(), "empty.json", &Theirs::published());
        let svg = render(&report);
        assert_eq!(
            svg.matches(r#"class="ours">·<"#).count(),
            128,
            "all missing"
        );
        assert!(svg.contains("missing: no magic of ours (128)"));
        assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>\n"));
        assert_eq!(thousands(89_280), "89,280");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(tail("results/best.json", 40), "results/best.json");
        assert_eq!(tail("a/very/long/path/best.json", 10), "…best.json");
    }
}
