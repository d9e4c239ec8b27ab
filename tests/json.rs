//! The JSON documents of `compare`, `show`, `verify` and `audit` (`--json`, docs/format.md)
//! hold every figure the text shows: each test runs the binary twice, with and without
//! `--json`, and rebuilds the text from the document alone; the rebuilt text must be the
//! text, byte for byte. The statuses follow their definitions in docs/format.md.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{magichunt, FIXTURE};
use magichunt::bitboard::side_by_side;
use magichunt::Bitboard;
use serde_json::Value;

const POPCOUNT: &str = "results/published/plain-popcount-tord-romstad-style.json";

/// Stdout of a run that exits with `code`.
fn out(o: &Output, code: i32) -> String {
    assert_eq!(
        o.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// `compare` of the shipped store, document and text, run once for every test of this file
/// (checking its certificates takes a few seconds).
fn shipped_compare() -> &'static (Value, String) {
    static BOTH: std::sync::OnceLock<(Value, String)> = std::sync::OnceLock::new();
    BOTH.get_or_init(|| both(&["compare", "--store", "results/best.json"], 0))
}

/// The document printed by `args` plus `--json`, and the text printed without it.
fn both(args: &[&str], code: i32) -> (Value, String) {
    let text = out(&magichunt(args), code);
    let mut with = args.to_vec();
    with.push("--json");
    let json = out(&magichunt(&with), code);
    assert!(json.ends_with("}\n"), "{json}");
    (serde_json::from_str(&json).unwrap(), text)
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

fn n(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A KiB figure as the text writes it.
fn kib(v: &Value) -> String {
    let x = v.as_f64().unwrap();
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

fn head(doc: &Value, schema: &str) {
    assert_eq!(doc["schema"], schema);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["magichunt"], env!("CARGO_PKG_VERSION"));
}

// ---- compare ----

/// The status of a square by its definition in docs/format.md, from the document's own
/// figures.
fn status_by_definition(sq: &Value) -> &'static str {
    let (ours, theirs, proof) = (&sq["ours"], &sq["theirs"], &sq["proof"]);
    if ours.is_null() {
        return "missing";
    }
    if !proof.is_null() {
        return if proof["counted"] == true {
            "proven"
        } else {
            "claimed"
        };
    }
    if theirs.is_null() {
        return "ahead";
    }
    match n(&ours["bits"]).cmp(&n(&theirs["bits"])) {
        std::cmp::Ordering::Less => "ahead",
        std::cmp::Ordering::Equal => "open",
        std::cmp::Ordering::Greater => "behind",
    }
}

fn bits_cell(side: &Value) -> String {
    if side.is_null() {
        ".".into()
    } else {
        n(&side["bits"]).to_string()
    }
}

/// The square list of the document, by piece, in the order of the board (a1 = 0).
fn squares<'a>(doc: &'a Value, piece: &str) -> Vec<&'a Value> {
    let v: Vec<&Value> = doc["squares"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["piece"] == piece)
        .collect();
    assert_eq!(v.len(), 64);
    v
}

/// The text of `compare`, rebuilt from its document.
fn compare_text(doc: &Value) -> String {
    let mut t = format!(
        "{} compared with {}: index bits per square\n",
        s(&doc["ours"]),
        s(&doc["theirs"])
    );
    let ahead: Vec<&Value> = doc["squares"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["beats_theirs"] == true)
        .collect();
    if !ahead.is_empty() {
        if doc["against_published"] == true {
            t += "\nNew records (fewer bits than every published magic):\n";
        } else {
            t += &format!("\nAhead of {}:\n", s(&doc["theirs"]));
        }
        for q in ahead {
            let (o, th) = (&q["ours"], &q["theirs"]);
            t += &format!(
                "  {} {}: {} bits, magic {}, highest index {} (theirs {} bits; their finder: {})\n    check: magichunt verify --piece {} --square {} --bits {} --magic {}\n",
                s(&q["piece"]), s(&q["square"]), n(&o["bits"]), s(&o["magic"]), n(&o["max_index"]),
                n(&th["bits"]), s(&th["by"]), s(&q["piece"]), s(&q["square"]), n(&o["bits"]), s(&o["magic"])
            );
            match s(&q["status"]) {
                "proven" => {
                    t += &format!("    proven optimal: no magic with {} bits exists\n", n(&o["bits"]) - 1)
                }
                "claimed" => {
                    t += &format!(
                        "    optimal if its recorded proof holds (no magic with {} bits; `magichunt audit` checks it)\n",
                        n(&o["bits"]) - 1
                    )
                }
                _ => {}
            }
        }
    }
    for piece in ["rook", "bishop"] {
        let sq = squares(doc, piece);
        let grid = |cell: &dyn Fn(&Value) -> String| -> Vec<String> {
            let mut lines: Vec<String> = (0..8)
                .rev()
                .map(|rank| {
                    let mut l = format!("{}", rank + 1);
                    for file in 0..8 {
                        l += &format!("{:>3}", cell(sq[rank * 8 + file]));
                    }
                    l
                })
                .collect();
            lines.push("   a  b  c  d  e  f  g  h".into());
            lines
        };
        let grids = [
            (format!("{piece}: ours"), grid(&|q| bits_cell(&q["ours"]))),
            (
                format!("{piece}: theirs"),
                grid(&|q| bits_cell(&q["theirs"])),
            ),
            ("marks".to_string(), grid(&|q| s(&q["mark"]).to_string())),
        ];
        t.push('\n');
        let caps: Vec<String> = grids.iter().map(|(c, _)| format!("{c:<25}")).collect();
        t += caps.join("    ").trim_end();
        t.push('\n');
        for row in 0..9 {
            let cells: Vec<String> = grids
                .iter()
                .map(|(_, g)| format!("{:<25}", g[row]))
                .collect();
            t += cells.join("    ").trim_end();
            t.push('\n');
        }
    }
    let sum = &doc["summary"];
    t += "\nmarks: + ahead, = level, - behind, * proven optimal (one above a proof of none, or at\nthe lower bound), ? missing from ours; . no magic\n";
    let claimed = n(&sum["claimed"]);
    if claimed > 0 {
        t += "       ~ optimal by a proof that is only claimed: recorded, not checked here\n";
    }
    let note = match (s(&sum["counting"]), claimed) {
        ("claimed", _) => " (counting every proof the store records, checked here or only claimed: --count-claimed)".to_string(),
        (_, 0) => String::new(),
        _ => format!(" (checked here or published); {claimed} more by proofs only claimed (`magichunt audit` checks them; --count-claimed counts them)"),
    };
    t += &format!(
        "\nsummary: {} ahead, {} level, {} behind, {} missing; {} proven optimal{note}\n",
        n(&sum["ahead"]),
        n(&sum["level"]),
        n(&sum["behind"]),
        n(&sum["missing"]),
        n(&sum["proven"])
    );
    let proofs = doc["proofs"].as_array().unwrap();
    if !proofs.is_empty() {
        let checked = proofs.iter().filter(|p| p["checked"] == true).count();
        t += &format!(
            "\nproofs of none in {}: {checked} checked here, {} only claimed\n",
            s(&doc["ours"]),
            proofs.len() - checked
        );
        for p in proofs {
            let black = if p["formula"] == "black" {
                " (black)"
            } else {
                ""
            };
            t += &format!(
                "  {} {} at {} bits{black}: {}\n",
                s(&p["piece"]),
                s(&p["square"]),
                n(&p["bits"]),
                s(&p["provenance"])
            );
        }
    }
    t += &format!(
        "\nfancy tables      {:<28}tight (max_index + 1)\n",
        "at 2^bits"
    );
    for side in ["ours", "theirs"] {
        let tot = &doc["totals"][side];
        let label = format!("{side} ({}/128)", n(&tot["squares"]));
        let full = format!("{} entries ({} KiB)", n(&tot["entries"]), kib(&tot["kib"]));
        t += &format!(
            "{label:<18}{full:<28}{} entries ({} KiB)\n",
            n(&tot["tight"]),
            kib(&tot["tight_kib"])
        );
    }
    // 8-byte layouts: entries, their KiB and the bytes; indexed: ids, the bytes and their KiB.
    let size = |z: &Value, layout: &str| {
        let mut x = if layout == "indexed" {
            format!(
                "{} ids, {} B ({} KiB)",
                n(&z["entries"]),
                n(&z["bytes"]),
                kib(&z["kib"])
            )
        } else {
            format!(
                "{} ({} KiB), {} B",
                n(&z["entries"]),
                kib(&z["kib"]),
                n(&z["bytes"])
            )
        };
        if n(&z["squares"]) < 128 {
            x += &format!(" {}/128", n(&z["squares"]));
        }
        x
    };
    let category = |z: &Value| match s(&z["shift"]) {
        "per-square" => "per-square shifts",
        "fixed" => "fixed shift",
        other => panic!("category {other}"),
    };
    let row_name = |r: &Value| {
        let mut name = format!("{}, {}", s(&r["layout"]), s(&r["formula"]));
        if r["shift"] == "fixed" {
            name += ", fixed shift";
        }
        name
    };
    t += &format!(
        "\n{:<28}{:<38}smallest published\n",
        "sizes by layout", "ours"
    );
    for r in doc["layouts"].as_array().unwrap() {
        let layout = s(&r["layout"]);
        let ours = if r["ours"].is_null() {
            "-".to_string()
        } else {
            size(&r["ours"], layout) + if r["record"] == true { " RECORD" } else { "" }
        };
        let theirs = if r["theirs"].is_null() {
            "none published".to_string()
        } else {
            format!(
                "{}, {} ({})",
                size(&r["theirs"], layout),
                s(&r["theirs"]["how"]),
                category(&r["theirs"])
            )
        };
        t += &format!("{:<28}{ours:<38}{theirs}\n", row_name(r));
    }
    for r in doc["layouts"].as_array().unwrap() {
        if (r["layout"] == "packed" || r["layout"] == "indexed") && !r["ours"].is_null() {
            t += &format!(
                "ours {}: {} ({})\n",
                row_name(r),
                s(&r["ours"]["how"]),
                category(&r["ours"])
            );
        }
    }
    t += "bytes: the data of the C export (nm -S): the tables and 128 magics of 24 bytes (indexed with shared lists: 32)\n";
    t += &format!(
        "\n{:<64}{:>26}{:>14}{:>14}{:>10}\n",
        "slots used, spans, shared array",
        "slots (rooks + bishops)",
        "sum of spans",
        "shared array",
        "bytes"
    );
    let opt = |v: &Value| {
        v.as_u64()
            .map_or_else(|| "-".to_string(), |x| x.to_string())
    };
    for u in doc["usage"].as_array().unwrap() {
        let slots = format!(
            "{} ({} + {})",
            n(&u["slots"]),
            n(&u["rook_slots"]),
            n(&u["bishop_slots"])
        );
        t += &format!(
            "{:<64}{slots:>26}{:>14}{:>14}{:>10}\n",
            s(&u["table"]),
            opt(&u["spans"]),
            opt(&u["array"]),
            opt(&u["bytes"])
        );
    }
    t += "\ntheirs found by (squares, finder):\n";
    for f in doc["finders"].as_array().unwrap() {
        t += &format!("  {:>3}  {}\n", n(&f["squares"]), s(&f["finder"]));
    }
    let behind: Vec<&Value> = doc["squares"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|q| q["standing"] == "behind")
        .collect();
    if !behind.is_empty() {
        t += "\nbehind:\n";
        for q in behind {
            t += &format!(
                "  {} {}: ours {} bits, theirs {} bits (by {})\n",
                s(&q["piece"]),
                s(&q["square"]),
                n(&q["ours"]["bits"]),
                n(&q["theirs"]["bits"]),
                s(&q["theirs"]["by"])
            );
        }
    }
    t
}

/// The document's own consistency: statuses by their definitions, counts by their squares.
fn check_compare_doc(doc: &Value) {
    head(doc, "magichunt-compare");
    let squares = doc["squares"].as_array().unwrap();
    assert_eq!(squares.len(), 128);
    let mut counts = std::collections::BTreeMap::new();
    for q in squares {
        let status = s(&q["status"]);
        assert_eq!(status, status_by_definition(q), "{q}");
        *counts.entry(status.to_string()).or_insert(0u64) += 1;
        let mark = match status {
            "proven" => "*",
            "claimed" => "~",
            "ahead" => "+",
            "open" => "=",
            "behind" => "-",
            _ => "?",
        };
        assert_eq!(q["mark"], mark);
        if let Some(o) = q["ours"].as_object() {
            assert!(n(&o["slots"]) <= n(&o["span"]) && n(&o["span"]) <= 1 << n(&o["bits"]));
        }
        if q["proof"]["kind"] == "lower_bound" {
            assert_eq!(q["proof"]["none_at_bits"], Value::Null);
        }
    }
    for (status, count) in &counts {
        assert_eq!(&n(&doc["summary"]["status"][status]), count, "{status}");
        let by_piece = n(&doc["summary"]["rook"][status]) + n(&doc["summary"]["bishop"][status]);
        assert_eq!(&by_piece, count, "{status}");
    }
    assert_eq!(
        n(&doc["summary"]["proven"]),
        n(&doc["summary"]["status"]["proven"])
    );
}

#[test]
fn compare_json_holds_every_figure_of_the_text() {
    let runs: [&[&str]; 4] = [
        &["compare", "--store", "results/best.json"],
        &["compare", "--store", FIXTURE, "--against", POPCOUNT],
        &["compare", "--store", FIXTURE, "--count-claimed"],
        &[
            "compare",
            "--store",
            FIXTURE,
            "--packed",
            "results/packed-pool.json",
            "--packed",
            "results/packed-indexed.json",
        ],
    ];
    for args in runs {
        let (doc, text) = if args[2] == "results/best.json" {
            shipped_compare().clone()
        } else {
            both(args, 0)
        };
        check_compare_doc(&doc);
        let rebuilt = compare_text(&doc);
        if rebuilt != text {
            let line = rebuilt
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{args:?}: the text rebuilt from the JSON differs at line {}:\n  rebuilt {:?}\n  text    {:?}",
                line + 1,
                rebuilt.lines().nth(line),
                text.lines().nth(line)
            );
        }
    }
}

#[test]
fn the_shipped_store_has_proven_claimed_and_open_squares() {
    let (doc, _) = shipped_compare();
    let sum = &doc["summary"]["status"];
    assert!(n(&sum["proven"]) > 90 && n(&sum["claimed"]) > 0 && n(&sum["open"]) > 0);
    // A claimed square names the store's proof that is not counted, and why.
    let claimed = doc["squares"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["status"] == "claimed")
        .unwrap();
    assert_eq!(claimed["proof"]["source"], "store");
    assert!(s(&claimed["proof"]["provenance"]).starts_with("claimed, not checked here"));
    // The README's square: rook d1 at 9 bits is settled (none exists), so 10 is claimed.
    let d1 = &squares(doc, "rook")[3];
    assert_eq!(d1["ours"]["bits"], 10);
    assert_eq!(d1["proof"]["none_at_bits"], 9);
}

#[test]
fn svg_to_stdout_and_json_are_refused_together() {
    let o = magichunt(&["compare", "--json", "--svg", "-"]);
    assert_eq!(o.status.code(), Some(2));
    let o = magichunt(&["compare", "--json", "--format", "markdown"]);
    assert_eq!(o.status.code(), Some(2));
}

// ---- show ----

fn show_text(doc: &Value) -> String {
    let mask = Bitboard(u64::from_str_radix(&s(&doc["mask"])[2..], 16).unwrap());
    let mut t = format!(
        "{} {}: relevant-occupancy mask\n{mask}",
        s(&doc["piece"]),
        s(&doc["square"])
    );
    t += &format!("mask popcount       {}\n", n(&doc["mask_popcount"]));
    t += &format!("blocker subsets     {}\n", n(&doc["subsets"]));
    t += &format!("distinct attacks    {}\n", n(&doc["distinct_attacks"]));
    t += &format!(
        "lower bound         {} bits (ceil log2 of distinct attack sets)\n",
        n(&doc["lower_bound_bits"])
    );
    let th = &doc["theirs"];
    if th.is_null() {
        t += "best published      none\n";
    } else {
        t += &format!(
            "best published      {} bits, magic {}, highest index {}, found by {}\n",
            n(&th["bits"]),
            s(&th["magic"]),
            n(&th["max_index"]),
            s(&th["by"])
        );
    }
    if let Some(p) = doc["published_none"].as_object() {
        t += &format!(
            "proven impossible   {} bits or fewer ({})\n",
            n(&p["bits"]),
            s(&p["source"])
        );
    }
    let o = &doc["ours"];
    if o.is_null() {
        t += &format!("in the store        none ({})\n", s(&doc["store"]));
        return t;
    }
    let how = o["family"]
        .as_str()
        .map_or_else(String::new, |f| format!(", found by {f}"));
    t += &format!(
        "in the store        {} bits, magic {}, highest index {}{how} ({})\n",
        n(&o["bits"]),
        s(&o["magic"]),
        n(&o["max_index"]),
        s(&doc["store"])
    );
    // The verdict, by the square's status and proof.
    let p = &doc["proof"];
    let method = || {
        p["method"]
            .as_str()
            .unwrap_or("the store's proof")
            .to_string()
    };
    let verdict = match (s(&doc["status"]), p["kind"].as_str().unwrap_or("")) {
        ("proven", "lower_bound") => "yes: at the lower bound".to_string(),
        ("proven", _) if p["source"] == "published" => format!(
            "yes: no magic at {} bits (published proof)",
            n(&p["none_at_bits"])
        ),
        ("proven", _) => format!("yes: no magic at {} bits ({})", n(&p["none_at_bits"]), method()),
        ("claimed", _) => format!(
            "claimed: the store records no magic at {} bits ({}), not checked here (`magichunt audit` or `prove --check-certificates` on a checkout's store checks it)",
            n(&p["none_at_bits"]),
            method()
        ),
        _ => format!("not known: nobody has settled {} bits", n(&o["bits"]) - 1),
    };
    assert_eq!(doc["verdict"], verdict.as_str());
    t += &format!("proven optimal      {verdict}\n");
    t
}

#[test]
fn show_json_holds_every_figure_of_the_text() {
    // The shipped store for a store proof counted (a checked certificate) and one only
    // claimed; the fixture for a published proof, nothing known and nothing in the store; the
    // published records for the lower bound.
    let mut verdicts = Vec::new();
    for (store, piece, square) in [
        ("results/best.json", "bishop", "c1"),
        ("results/best.json", "rook", "e8"),
        (FIXTURE, "rook", "e4"),
        (FIXTURE, "bishop", "e4"),
        (FIXTURE, "rook", "a8"),
        (FIXTURE, "rook", "c3"),
        ("results/published/records.json", "bishop", "a3"),
    ] {
        let args = [
            "show", "--piece", piece, "--square", square, "--store", store,
        ];
        let (doc, text) = both(&args, 0);
        head(&doc, "magichunt-show");
        verdicts.push(s(&doc["verdict"]).to_string());
        assert_eq!(s(&doc["status"]), status_by_definition(&doc), "{doc}");
        assert_eq!(show_text(&doc), text, "{args:?}");
    }
    // Every kind of verdict was rebuilt.
    for kind in [
        "yes: no magic at 4 bits (SAT",
        "claimed: ",
        "(published proof)",
        "yes: at the lower bound",
        "not known: ",
    ] {
        assert!(
            verdicts.iter().any(|v| v.contains(kind)),
            "{kind}: {verdicts:?}"
        );
    }
    assert!(
        verdicts.contains(&String::new()),
        "a square not in the store"
    );
}

// ---- verify ----

fn verify_magic_text(doc: &Value) -> String {
    let black = if doc["formula"] == "black" {
        " (black)"
    } else {
        ""
    };
    let headline = format!(
        "{} {}, {} bits, magic {}{black}",
        s(&doc["piece"]),
        s(&doc["square"]),
        n(&doc["bits"]),
        s(&doc["magic"])
    );
    if doc["valid"] == false {
        let c = &doc["collision"];
        let bb = |v: &Value| Bitboard(u64::from_str_radix(&s(v)[2..], 16).unwrap());
        return format!(
            "{headline}: INVALID\n  destructive collision at index {}: two subsets with different attack sets\n\n{}",
            n(&c["index"]),
            side_by_side(&[
                ("blockers 1", bb(&c["blockers"][0])),
                ("attacks 1", bb(&c["attacks"][0])),
                ("blockers 2", bb(&c["blockers"][1])),
                ("attacks 2", bb(&c["attacks"][1])),
            ])
        );
    }
    let range = if doc["formula"] == "black" {
        format!(
            "  index range       {} to {} (tight table: {} entries)\n",
            n(&doc["min_index"]),
            n(&doc["max_index"]),
            n(&doc["span"])
        )
    } else {
        format!(
            "  highest index     {} (tight table: {} entries)\n",
            n(&doc["max_index"]),
            n(&doc["span"])
        )
    };
    format!(
        "{headline}: valid\n  used slots        {} of {}\n{range}  constructive      {} of {} subsets share a slot\n  mask popcount     {}, {} distinct attack sets, lower bound {} bits\n",
        n(&doc["used_slots"]),
        n(&doc["slots"]),
        n(&doc["constructive"]),
        n(&doc["subsets"]),
        n(&doc["mask_popcount"]),
        n(&doc["distinct_attacks"]),
        n(&doc["lower_bound_bits"])
    )
}

fn verify_table_text(doc: &Value) -> String {
    let mut t = String::new();
    for f in doc["failures"].as_array().unwrap() {
        let black = if f["formula"] == "black" {
            " black"
        } else {
            ""
        };
        let what = format!(
            "entry {} ({} {} {} bits{black} {})",
            n(&f["entry"]),
            s(&f["piece"]),
            s(&f["square"]),
            n(&f["bits"]),
            s(&f["magic"])
        );
        let hex = |v: &Value| format!("{:#x}", u64::from_str_radix(&s(v)[2..], 16).unwrap());
        t += &match s(&f["problem"]) {
            "collision" => format!(
                "{what}: INVALID, subsets {} and {} collide at index {}\n",
                hex(&f["subsets"][0]),
                hex(&f["subsets"][1]),
                n(&f["index"])
            ),
            p => format!(
                "{what}: {p} {} in the file, verify gives {}\n",
                f["stated"], f["got"]
            ),
        };
    }
    t += &format!(
        "{}: {} entries, {} valid, {} invalid\n",
        s(&doc["file"]),
        n(&doc["entries"]),
        n(&doc["valid_entries"]),
        n(&doc["invalid_entries"])
    );
    if let Some(rows) = doc["per_square"].as_array() {
        t += "  entry  target     bits  magic                slots   span\n";
        for r in rows {
            t += &format!(
                "  {:>5}  {:<10} {:>4}  {}  {:>5}  {:>5}\n",
                n(&r["entry"]),
                format!("{} {}", s(&r["piece"]), s(&r["square"])),
                n(&r["bits"]),
                s(&r["magic"]),
                n(&r["slots"]),
                n(&r["span"])
            );
        }
    }
    if let Some(u) = doc["slots"].as_object() {
        t += &format!(
            "  slots used        {} ({} + {}) (rooks + bishops); sum of spans {}\n",
            n(&u["total"]),
            n(&u["rook"]),
            n(&u["bishop"]),
            n(&u["spans"])
        );
    }
    if let Some(p) = doc["packed"].as_object() {
        let bits = |v: &Value| {
            v.as_u64()
                .map_or_else(|| "bits per square".to_string(), |b| format!("{b} bits"))
        };
        let headline = format!(
            "packed layout, {} squares, formula {}, rooks {}, bishops {}",
            n(&p["squares"]),
            s(&p["formula"]),
            bits(&p["rook_bits"]),
            bits(&p["bishop_bits"])
        );
        if p["valid"] == true {
            t += &format!(
                "{headline}: valid\n  shared size       {} entries ({} KiB), as the file declares\n  slots used        {} ({} free inside the array)\n  shared slots      {} (equal attack sets of two squares)\n",
                n(&p["size"]), kib(&p["kib"]), n(&p["used"]), n(&p["free"]), n(&p["shared"])
            );
        } else {
            t += &format!("{headline}: INVALID: {}\n", s(&p["error"]));
        }
    }
    if let Some(l) = doc["layout"].as_object() {
        let name = s(&l["layout"]);
        let problems = l["problems"].as_array().unwrap();
        if problems.is_empty() {
            let sizes: Vec<String> = l["sizes"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            let stated = if l["table_sizes_checked"] == true {
                " and table_sizes"
            } else {
                ""
            };
            t += &format!(
                "  layout fields     {name}: offsets{stated} hold ({})\n",
                sizes.join(", ")
            );
        }
        for p in problems {
            t += &format!("  layout fields     {name}: INVALID: {}\n", s(p));
        }
    }
    let list = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| s(x).to_string())
            .collect()
    };
    let (checked, not) = (list(&doc["checked"]), list(&doc["not_checked"]));
    if !checked.is_empty() {
        t += &format!("  checked           {}\n", checked.join(", "));
    }
    if !not.is_empty() {
        let hint = if not.iter().any(|n| n.ends_with(')')) {
            "; `magichunt audit` checks a store's proofs"
        } else {
            ""
        };
        t += &format!(
            "  not checked       {} (taken as stated{hint})\n",
            not.join(", ")
        );
    }
    t
}

#[test]
fn verify_json_holds_every_figure_of_the_text() {
    let magic = |piece, square, bits, magic, formula| {
        vec![
            "verify",
            "--piece",
            piece,
            "--square",
            square,
            "--bits",
            bits,
            "--magic",
            magic,
            "--formula",
            formula,
        ]
    };
    for (args, code) in [
        (magic("rook", "a8", "11", "0x00fffcddfced714a", "plain"), 0),
        (magic("rook", "a1", "11", "0x0a8002c000108020", "plain"), 1),
        (magic("rook", "a1", "12", "0x80280013ff84ffff", "black"), 0),
    ] {
        let (doc, text) = both(&args, code);
        head(&doc, "magichunt-verify");
        assert_eq!(doc["kind"], "magic");
        assert_eq!(doc["valid"], code == 0);
        assert_eq!(verify_magic_text(&doc), text, "{args:?}");
    }
    // A table with one colliding entry and one whose max_index is wrong.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"version": 1, "entries": [
            {"piece": "rook", "square": "a1", "bits": 11, "magic": "0x0a8002c000108020"},
            {"piece": "rook", "square": "a8", "bits": 11, "magic": "0x00fffcddfced714a", "max_index": 7},
            {"piece": "rook", "square": "h8", "bits": 11, "magic": "0x00fffcddfced714a"}]}"#,
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    for (args, code) in [
        (
            vec!["verify", "--file", "results/published/records.json"],
            0,
        ),
        (
            vec![
                "verify",
                "--file",
                "results/published/black-magics-annuss-fiekas-2017.json",
                "--per-square",
            ],
            0,
        ),
        (vec!["verify", "--store", FIXTURE, "--per-square"], 0),
        (vec!["verify", "--file", bad], 1),
    ] {
        let (doc, text) = both(&args, code);
        head(&doc, "magichunt-verify");
        assert_eq!(doc["kind"], "table");
        assert_eq!(doc["valid"], code == 0);
        assert_eq!(verify_table_text(&doc), text, "{args:?}");
    }
}

// ---- audit ----

#[test]
fn audit_json_holds_every_figure_of_the_text() {
    // The rook f7 search of the campaign, its residue re-run in one block.
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("f7.json");
    std::fs::copy("results/campaign/rook-f7-8.json", &store).unwrap();
    let store = store.to_str().unwrap();
    let args = ["audit", "--store", store, "--sample", "1", "--seed", "5"];
    let text = out(&magichunt(&args), 0);
    let mut with = args.to_vec();
    with.push("--json");
    let o = magichunt(&with);
    let doc: Value = serde_json::from_str(&out(&o, 0)).unwrap();
    head(&doc, "magichunt-audit");
    // With --json the text goes to stderr, line for line (but the times taken).
    let stderr = String::from_utf8_lossy(&o.stderr);
    let untimed = |t: &str| -> Vec<String> {
        t.lines()
            .map(|l| match l.rfind(" (") {
                Some(k) if l.starts_with("ok ") && l.ends_with(')') => l[..k].to_string(),
                _ => l.to_string(),
            })
            .collect()
    };
    assert_eq!(untimed(&stderr), untimed(&text));
    // The text, rebuilt from the document (the times from the text).
    let mut lines = vec![format!(
        "audit of {}: every certificate, and {} block(s) of every finished exhaustive part (seed {})",
        s(&doc["store"]),
        n(&doc["sample"]),
        n(&doc["seed"])
    )];
    let items = doc["items"].as_array().unwrap();
    assert!(!items.is_empty());
    for i in items {
        let q = format!(
            "{} {} at {} bits",
            s(&i["piece"]),
            s(&i["square"]),
            n(&i["bits"])
        );
        let line = match (s(&i["kind"]), s(&i["outcome"])) {
            ("exhaustive", "held") => {
                let blocks: Vec<String> = i["blocks_matched"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|b| n(b).to_string())
                    .collect();
                format!(
                    "ok    exhaustive search of {q}, part {}: block{} {} of {} re-run, matching",
                    s(&i["part"]),
                    if blocks.len() == 1 { "" } else { "s" },
                    blocks.join(", "),
                    n(&i["blocks"])
                )
            }
            ("certificate", "held") => format!(
                "ok    {q}, part {}: certificate {} checks",
                s(&i["part"]),
                s(&i["certificate"])
            ),
            ("proof", "claimed") => format!("claim {q}: {}", s(&i["why"])),
            other => panic!("not in this audit: {other:?}"),
        };
        assert!(i["seconds"].is_null() || i["seconds"].as_f64().unwrap() >= 0.0);
        lines.push(line);
    }
    lines.push(format!(
        "{} held, {} failed, {} only claimed",
        n(&doc["held"]),
        n(&doc["failed"]),
        n(&doc["claimed"])
    ));
    assert_eq!(lines, untimed(&text));
    assert!(n(&doc["held"]) >= 1 && doc["interrupted"] == false);
}

#[test]
fn every_document_is_described_in_the_format_docs() {
    let format = std::fs::read_to_string(Path::new("docs/format.md")).unwrap();
    for schema in [
        "magichunt-compare",
        "magichunt-show",
        "magichunt-verify",
        "magichunt-audit",
    ] {
        assert!(format.contains(schema), "docs/format.md lacks {schema}");
    }
    // Every key of every document is named there (with backquotes).
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        r#"{"version": 1, "entries": [{"piece": "rook", "square": "a1", "bits": 11, "magic": "0x0a8002c000108020"}]}"#,
    )
    .unwrap();
    let runs: [(&[&str], i32); 6] = [
        (
            &[
                "show", "--piece", "rook", "--square", "a8", "--store", FIXTURE,
            ],
            0,
        ),
        (
            &[
                "verify",
                "--piece",
                "rook",
                "--square",
                "a1",
                "--bits",
                "11",
                "--magic",
                "0x0a8002c000108020",
            ],
            1,
        ),
        (
            &[
                "verify",
                "--piece",
                "rook",
                "--square",
                "a8",
                "--bits",
                "11",
                "--magic",
                "0x00fffcddfced714a",
            ],
            0,
        ),
        (
            &[
                "verify",
                "--file",
                "results/published/black-magics-annuss-fiekas-2017.json",
                "--per-square",
            ],
            0,
        ),
        (&["verify", "--file", bad.to_str().unwrap()], 1),
        (
            &[
                "audit",
                "--store",
                "results/campaign/rook-f7-8.json",
                "--sample",
                "1",
                "--seed",
                "1",
            ],
            0,
        ),
    ];
    let mut keys = std::collections::BTreeSet::new();
    walk(&shipped_compare().0, &mut keys);
    fn walk(v: &Value, keys: &mut std::collections::BTreeSet<String>) {
        match v {
            Value::Object(m) => {
                for (k, x) in m {
                    keys.insert(k.clone());
                    walk(x, keys);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, keys)),
            _ => {}
        }
    }
    for (args, code) in runs {
        let mut with = args.to_vec();
        with.push("--json");
        let doc: Value = serde_json::from_str(&out(&magichunt(&with), code)).unwrap();
        walk(&doc, &mut keys);
    }
    assert!(keys.len() > 80, "{keys:?}");
    for k in keys {
        assert!(
            format.contains(&format!("`{k}`")) || format.contains(&format!("\"{k}\"")),
            "docs/format.md lacks `{k}`"
        );
    }
}
