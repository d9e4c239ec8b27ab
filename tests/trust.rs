//! The hostile cases of issue 23 ("nothing false enters a store, nothing overwrites one")
//! about proofs, each run through the binary: before the fix every one of them counted a false
//! proof. SAT proofs are checked where they enter (merge) and where they are counted (load);
//! exhaustive parts carry residues that must fit their records, and an audit re-runs some.
//! The output guard has its own file, `output_guard.rs`.
//!
//! Every command runs in its own folder with its own cache of checks (`MAGICHUNT_CACHE`), so
//! what one test checked never counts in another.

use crate::common;
use crate::sandbox;

use std::fs;
use std::path::Path;

use magichunt::Piece;
use sandbox::{header_squares, proven, refused, s, stdout, text, write_json, Env};
use serde_json::{json, Value};

// Issue 23, first case: an exhaustive proof of rook a1 at 11 bits backed by one part of 5
// nodes was merged into the shipped store, and `compare` counted 114. Rook a1 at 11 is
// settled since (the shipped store proves it), so the same forgery names rook h1 at 11, the
// other 11-bit question of rank 1, still open.

#[test]
fn an_exhaustive_proof_of_five_nodes_does_not_enter_the_store() {
    let env = Env::new();
    let store = env.shipped();
    let before = fs::read(&store).unwrap();
    let counted = env.summary(&store, &[]);
    let forged = env.path("forged.json");
    write_json(
        &forged,
        &json!({"version": 1, "entries": [],
            "proofs": [{"piece": "rook", "square": "h1", "bits": 11, "none": true,
                "method": "exhaustive search of one period, low bits first (magichunt 0.1.0, 1 parts)"}],
            "exhaust": [{"piece": "rook", "square": "h1", "bits": 11, "shards": 1,
                "parts": [{"shard": 1, "done": true, "magics": 0, "nodes": 5, "seconds": 0.1}]}]}),
    );
    for extra in [&[][..], &["--accept-claimed"][..]] {
        let mut args = vec!["merge", s(&forged), s(&store), "--out", s(&store)];
        args.extend_from_slice(extra);
        let o = env.mh(&args);
        refused(
            &o,
            &["forged.json", "rook h1 at 11 bits", "part 1/1", "5 nodes"],
        );
        assert_eq!(fs::read(&store).unwrap(), before, "nothing written");
    }
    // Without the part, the bare proof has no evidence: refused, or kept as a mere claim.
    let bare = env.path("bare.json");
    let mut v: Value = serde_json::from_str(&fs::read_to_string(&forged).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("exhaust");
    write_json(&bare, &v);
    let o = env.mh(&["merge", s(&bare), s(&store), "--out", s(&store)]);
    refused(&o, &["rook h1", "no evidence"]);
    assert_eq!(fs::read(&store).unwrap(), before);
    let o = env.mh(&[
        "merge",
        s(&bare),
        s(&store),
        "--out",
        s(&store),
        "--accept-claimed",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let after = env.summary(&store, &[]);
    assert_eq!(proven(&after), proven(&counted), "a claim is never counted");
    let listing = stdout(&env.mh(&["compare", "--store", s(&store)]));
    assert!(
        listing.contains("rook h1 at 11 bits: claimed, not checked here: no evidence"),
        "{listing}"
    );
    // Counted only when the user says so.
    let all = env.summary(&store, &["--count-claimed"]);
    assert!(proven(&all) > proven(&after), "{all}");
}

// Issue 23, second case: a SAT proof of rook b1 at 10 bits naming a certificate that does
// not exist and a CNF hash of zeros was merged, and the C header listed b1 as proven.

#[test]
fn a_sat_proof_whose_certificate_does_not_check_does_not_enter_the_store() {
    let env = Env::new();
    let store = env.shipped();
    let before = fs::read(&store).unwrap();
    let forged = env.path("forged.json");
    let proof = |cnf: &str| {
        json!({"version": 1, "entries": [],
            "proofs": [{"piece": "rook", "square": "b1", "bits": 10, "none": true,
                "method": "SAT: CaDiCaL 3.0.1 on magichunt-cnf 1, every LRAT certificate checked",
                "certificate": "proofs/rook-b1-10.lrat.gz", "cnf_sha256": cnf}]})
    };
    write_json(&forged, &proof(&"0".repeat(64)));
    for extra in [&[][..], &["--accept-claimed"][..]] {
        let mut args = vec!["merge", s(&forged), s(&store), "--out", s(&store)];
        args.extend_from_slice(extra);
        refused(
            &env.mh(&args),
            &[
                "proof that no 10-bit magic exists for rook b1",
                "rook-b1-10.lrat.gz",
            ],
        );
        assert_eq!(fs::read(&store).unwrap(), before);
    }
    // A real certificate under that name (bishop b8's) does not fit rook b1's CNF.
    fs::create_dir_all(env.path("elsewhere/proofs")).unwrap();
    let moved = env.path("elsewhere/forged.json");
    fs::copy(
        env.path("proofs/bishop-b8-3.lrat.gz"),
        env.path("elsewhere/proofs/rook-b1-10.lrat.gz"),
    )
    .unwrap();
    let sha = |p: &Path| magichunt::trust::cache::sha256_file(p).unwrap();
    write_json(
        &moved,
        &proof(&sha(&env.path("proofs/bishop-b8-3.lrat.gz"))),
    );
    refused(
        &env.mh(&["merge", s(&moved), s(&store), "--out", s(&store)]),
        &["rook b1", "does not check"],
    );
    assert_eq!(fs::read(&store).unwrap(), before);
    assert!(
        !env.path("proofs/rook-b1-10.lrat.gz").exists(),
        "nothing copied"
    );
    // The C header of the store lists no rook b1 among the proven squares (and the shipped
    // bishop h2, whose certificate checks).
    let o = env.mh(&["export", "--format", "c", "--store", s(&store)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let header = stdout(&o);
    let proven = header_squares(&header, "Proven optimal");
    assert!(
        proven.contains(&"bishop h2".to_string()) && !proven.contains(&"rook b1".to_string()),
        "{header}"
    );
}

#[test]
fn a_tampered_certificate_in_a_sat_record_does_not_enter_the_store() {
    let env = Env::new();
    let store = env.shipped();
    let before = fs::read(&store).unwrap();
    // A part store whose SAT record names a certificate with one byte changed.
    fs::create_dir_all(env.path("part/proofs")).unwrap();
    let mut bytes = fs::read(env.path("proofs/bishop-h2-3.lrat.gz")).unwrap();
    let v: Value = serde_json::from_str(&fs::read_to_string(&store).unwrap()).unwrap();
    let sat: Vec<Value> = v["sat"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["square"] == "h2" && x["piece"] == "bishop")
        .cloned()
        .collect();
    assert_eq!(sat.len(), 1);
    let part = env.path("part/part.json");
    write_json(&part, &json!({"version": 1, "entries": [], "sat": sat}));
    // Unchanged, it gets in (and is copied beside the merged store).
    fs::write(env.path("part/proofs/bishop-h2-3.lrat.gz"), &bytes).unwrap();
    let fresh = env.path("fresh.json");
    let o = env.mh(&["merge", s(&part), "--out", s(&fresh)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // With a byte of its body changed (after the gzip header), it does not.
    let n = bytes.len();
    bytes[n / 2] ^= 0x40;
    fs::write(env.path("part/proofs/bishop-h2-3.lrat.gz"), &bytes).unwrap();
    refused(
        &env.mh(&["merge", s(&part), s(&store), "--out", s(&store)]),
        &[
            "bishop h2 at 3 bits",
            "part 1/1 certificate proofs/bishop-h2-3.lrat.gz",
        ],
    );
    assert_eq!(fs::read(&store).unwrap(), before);
}

/// The shipped SAT records (settlement and proof) of `piece square`, with their CNF hash set
/// to `cnf`.
fn shipped_sat_records(store: &Path, piece: &str, square: &str, cnf: &str) -> (Value, Value) {
    let v: Value = serde_json::from_str(&fs::read_to_string(store).unwrap()).unwrap();
    let one = |list: &str| -> Value {
        let mut found: Vec<Value> = v[list]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["piece"] == piece && x["square"] == square)
            .cloned()
            .collect();
        assert_eq!(found.len(), 1, "{list} of {piece} {square}");
        found.pop().unwrap()
    };
    let mut sat = one("sat");
    for part in sat["parts"].as_array_mut().unwrap() {
        part["cnf_sha256"] = json!(cnf);
    }
    let mut proof = one("proofs");
    proof["cnf_sha256"] = json!(cnf);
    (sat, proof)
}

#[test]
fn a_sat_proof_with_a_zero_cnf_hash_is_refused_by_merge_and_not_counted_on_load() {
    let env = Env::new();
    let store = env.shipped();
    let before = fs::read(&store).unwrap();
    let counted = proven(&env.summary(&store, &[]));
    let zeros = "0".repeat(64);
    // The real certificate is there and checks against the real CNF; only the hash is wrong.
    let (sat, proof) = shipped_sat_records(&store, "bishop", "h2", &zeros);
    fs::create_dir_all(env.path("part/proofs")).unwrap();
    fs::copy(
        env.path("proofs/bishop-h2-3.lrat.gz"),
        env.path("part/proofs/bishop-h2-3.lrat.gz"),
    )
    .unwrap();
    let part = env.path("part/part.json");
    for records in [
        json!({"version": 1, "entries": [], "sat": [sat.clone()]}),
        json!({"version": 1, "entries": [], "proofs": [proof.clone()]}),
    ] {
        write_json(&part, &records);
        for out in [&store, &env.path("fresh.json")] {
            let o = env.mh(&["merge", s(&part), "--out", s(out), "--accept-claimed"]);
            refused(
                &o,
                &["part.json", "bishop h2", "bishop-h2-3.lrat.gz", &zeros],
            );
        }
        assert_eq!(fs::read(&store).unwrap(), before, "nothing written");
        assert!(!env.path("fresh.json").exists(), "nothing written");
    }
    // Loaded (a hand-edited copy of the shipped store): shown, said, not counted.
    let mut v: Value = serde_json::from_str(&fs::read_to_string(&store).unwrap()).unwrap();
    for list in ["sat", "proofs"] {
        for x in v[list].as_array_mut().unwrap() {
            if x["piece"] == "bishop" && x["square"] == "h2" {
                *x = if list == "sat" {
                    sat.clone()
                } else {
                    proof.clone()
                };
            }
        }
    }
    let edited = env.path("edited.json");
    write_json(&edited, &v);
    let o = env.mh(&["compare", "--store", s(&edited)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("a proof does not hold") && err.contains("bishop h2"),
        "{}",
        text(&o)
    );
    assert!(
        stdout(&o).contains("bishop h2 at 3 bits: claimed"),
        "{}",
        text(&o)
    );
    assert_eq!(proven(&env.summary(&edited, &[])), counted - 1);
}

// Point 2: exhaustive proofs carry evidence, an audit re-runs some of it.

#[test]
fn a_search_run_here_counts_and_an_audit_catches_a_forged_residue() {
    let env = Env::new();
    // Run here from the start: checked (bishop d8 at 4 bits, a second method beside the
    // published proof).
    let mine = env.path("mine.json");
    let o = env.mh(&[
        "exhaust",
        "--piece",
        "bishop",
        "--square",
        "d8",
        "--bits",
        "4",
        "--store",
        s(&mine),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let listing = stdout(&env.mh(&["compare", "--store", s(&mine), "--allow-missing"]));
    assert!(
        listing.contains("bishop d8 at 4 bits: exhaustive search run here"),
        "{listing}"
    );
    // A lazy forger's residue for a false proof (bishop e8 has 5-bit magics) fits its
    // record, so merge lets it in, as a claim; the audit re-runs two blocks and fails.
    let forged = env.path("forged.json");
    write_json(
        &forged,
        &json!({"version": 1, "entries": [],
            "proofs": [{"piece": "bishop", "square": "e8", "bits": 5, "none": true}],
            "exhaust": [common::forged_part(Piece::Bishop, "e8", 5)]}),
    );
    let o = env.mh(&["merge", s(&forged), s(&mine), "--out", s(&mine)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let listing = stdout(&env.mh(&["compare", "--store", s(&mine), "--allow-missing"]));
    assert!(
        listing.contains(
            "bishop e8 at 5 bits: claimed, not checked here: exhaustive search not audited"
        ),
        "{listing}"
    );
    let o = env.mh(&["audit", "--store", s(&mine), "--seed", "7"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let out = stdout(&o);
    assert!(
        out.contains("FAILS exhaustive search of bishop e8 at 5 bits, part 1/1: block"),
        "{out}"
    );
    assert!(
        out.contains("ok    exhaustive search of bishop d8 at 4 bits"),
        "{out}"
    );
    let listing = stdout(&env.mh(&["compare", "--store", s(&mine), "--allow-missing"]));
    assert!(
        listing.contains("bishop e8 at 5 bits: claimed"),
        "{listing}"
    );
}

#[test]
fn an_audit_makes_a_shipped_search_count_and_a_corrupt_copy_fails_it() {
    let env = Env::new();
    let store = env.shipped();
    // The rook f7 search with its residue (the shipped store may already hold it).
    let part = env.path("f7.json");
    fs::copy("results/campaign/rook-f7-8.json", &part).unwrap();
    let o = env.mh(&["merge", s(&part), s(&store), "--out", s(&store)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let before = env.summary(&store, &[]);
    let line = |store: &Path| {
        stdout(&env.mh(&["compare", "--store", s(store)]))
            .lines()
            .find(|l| l.contains("rook f7 at 8 bits:"))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line(&store).contains("not audited"), "{}", line(&store));
    let o = env.mh(&[
        "audit",
        "--store",
        s(&store),
        "--piece",
        "rook",
        "--square",
        "f7",
        "--sample",
        "3",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stdout(&o).contains("ok    exhaustive search of rook f7 at 8 bits, part 1/1: blocks"),
        "{}",
        text(&o)
    );
    assert!(
        line(&store).contains("audited here (3 blocks re-run)"),
        "{}",
        line(&store)
    );
    let after = env.summary(&store, &[]);
    assert_eq!(proven(&after), proven(&before) + 1, "{before}\n{after}");
    // One digest changed: the whole part re-run finds it, and the check is forgotten.
    let mut v: Value = serde_json::from_str(&fs::read_to_string(&part).unwrap()).unwrap();
    let b = &mut v["exhaust"][0]["parts"][0]["residue"]["blocks"][200];
    let (d, n) = b.as_str().unwrap().split_once(':').unwrap();
    let flipped = u64::from_str_radix(d, 16).unwrap() ^ 1;
    *b = json!(format!("{flipped:016x}:{n}"));
    let bad = env.path("bad.json");
    write_json(&bad, &v);
    let o = env.mh(&["audit", "--store", s(&bad), "--sample", "256"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        stdout(&o)
            .contains("FAILS exhaustive search of rook f7 at 8 bits, part 1/1: block 200 of 256"),
        "{}",
        text(&o)
    );
    // Two finished copies with different residues: one is wrong, merge takes neither.
    let before = fs::read(&store).unwrap();
    let o = env.mh(&["merge", s(&bad), s(&store), "--out", s(&store)]);
    refused(&o, &["rook f7 at 8 bits", "residues differ"]);
    assert_eq!(fs::read(&store).unwrap(), before);
}

#[test]
fn parts_from_before_residues_enter_only_as_claims() {
    let env = Env::new();
    let old = env.path("old.json");
    write_json(
        &old,
        &json!({"version": 1, "entries": [],
            "proofs": [{"piece": "rook", "square": "f7", "bits": 8, "none": true,
                "method": "exhaustive search of one period, low bits first (magichunt 0.1.0, 1 parts)"}],
            "exhaust": [{"piece": "rook", "square": "f7", "bits": 8, "shards": 1,
                "parts": [{"shard": 1, "done": true, "magics": 0, "nodes": 358065952,
                    "seconds": 36.291}]}]}),
    );
    let out = env.path("out.json");
    refused(
        &env.mh(&["merge", s(&old), "--out", s(&out)]),
        &["part 1/1", "without a residue", "--accept-claimed"],
    );
    assert!(!out.exists());
    let o = env.mh(&["merge", s(&old), "--out", s(&out), "--accept-claimed"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Loaded, shown, not counted; an audit has nothing to re-run and says so.
    let listing = stdout(&env.mh(&["compare", "--store", s(&out)]));
    assert!(listing.contains("rook f7 at 8 bits: claimed"), "{listing}");
    assert!(listing.contains("has no residue"), "{listing}");
    let o = env.mh(&["audit", "--store", s(&out)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        stdout(&o).contains("claim exhaustive search of rook f7"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_finished_part_whose_residue_does_not_fit_its_record_is_refused() {
    let env = Env::new();
    let store = env.path("best.json");
    fs::copy("tests/golden/store.json", &store).unwrap();
    let before = fs::read(&store).unwrap();
    let fits = common::forged_part(Piece::Bishop, "e8", 5);
    type Change = fn(&mut Value);
    let cases: [(&str, Change, &str); 5] = [
        (
            "one node more",
            |p| p["nodes"] = json!(p["nodes"].as_u64().unwrap() + 1),
            "add up to",
        ),
        (
            "a block dropped",
            |p| {
                p["residue"]["blocks"].as_array_mut().unwrap().pop();
            },
            "blocks, a part of",
        ),
        (
            "a block below its first level",
            |p| {
                let b = &mut p["residue"]["blocks"][3];
                *b = json!(format!("{:016x}:1", 0));
            },
            "block 3 counts 1 nodes, fewer than",
        ),
        (
            "another scheme",
            |p| p["residue"]["scheme"] = json!("magichunt-residue 9"),
            "magichunt-residue 9",
        ),
        (
            "no residue",
            |p| {
                p.as_object_mut().unwrap().remove("residue");
            },
            "without a residue",
        ),
    ];
    let forged = env.path("forged.json");
    for (what, change, why) in cases {
        let mut x = fits.clone();
        change(&mut x["parts"][0]);
        write_json(
            &forged,
            &json!({"version": 1, "entries": [],
                "proofs": [{"piece": "bishop", "square": "e8", "bits": 5, "none": true}],
                "exhaust": [x]}),
        );
        let o = env.mh(&["merge", s(&forged), s(&store), "--out", s(&store)]);
        assert_eq!(o.status.code(), Some(2), "{what}: {}", text(&o));
        refused(&o, &["forged.json", "part 1/1", "bishop e8 at 5 bits", why]);
        assert_eq!(fs::read(&store).unwrap(), before, "{what}: nothing written");
    }
    // Issue 23's first case with a residue that fits (on rook h1 at 11 bits, open): it gets
    // in as a claim, listed in the export header's claimed squares, never in the proven ones
    // unless the user says so.
    let shipped = env.shipped();
    write_json(
        &forged,
        &json!({"version": 1, "entries": [],
            "proofs": [{"piece": "rook", "square": "h1", "bits": 11, "none": true}],
            "exhaust": [common::forged_part(Piece::Rook, "h1", 11)]}),
    );
    let o = env.mh(&["merge", s(&forged), s(&shipped), "--out", s(&shipped)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let header = |extra: &[&str]| {
        let mut args = vec!["export", "--format", "c", "--store", s(&shipped)];
        args.extend_from_slice(extra);
        let o = env.mh(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        stdout(&o)
    };
    let h1 = "rook h1".to_string();
    let h = header(&[]);
    assert!(!header_squares(&h, "Proven optimal").contains(&h1), "{h}");
    assert!(header_squares(&h, "Claimed optimal").contains(&h1), "{h}");
    let h = header(&["--count-claimed"]);
    assert!(header_squares(&h, "Proven optimal").contains(&h1), "{h}");
}
