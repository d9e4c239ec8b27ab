//! Runs the binary: `prove` by SAT (proofs with checked certificates, magics, cubes merged into
//! a proof, the DIMACS for other solvers) and its contract (exit codes, nothing half-done).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use magichunt::question::{Formula, Question};
use magichunt::store::Store;
use magichunt::{magic, Piece, Square, Target};

use crate::common;
use common::{magichunt, text};

fn prove(store: &Path, piece: &str, square: &str, bits: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "prove",
        "--piece",
        piece,
        "--square",
        square,
        "--bits",
        bits,
        "--store",
        store.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    magichunt(&args)
}

fn question(p: Piece, s: &str, bits: u32) -> Question {
    Question::new(
        Target::new(p, s.parse::<Square>().unwrap()),
        bits,
        Formula::Plain,
    )
    .unwrap()
}

/// Bishop d1 at 4 bits (an open question until this project settled it): none exists, the
/// proof names its solver, encoding and CNF, and its certificate checks and can be rechecked.
#[test]
fn bishop_d1_has_no_4_bit_magic_and_the_certificate_checks() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let o = prove(&store, "bishop", "d1", "4", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("none exists (proof recorded)"),
        "{}",
        text(&o)
    );
    let s = Store::load(&store).unwrap();
    let p = s
        .proof_of(question(Piece::Bishop, "d1", 4))
        .expect("a proof");
    let method = p.method.as_deref().unwrap();
    assert!(
        method.contains("CaDiCaL") && method.contains("magichunt-cnf 1"),
        "{method}"
    );
    let sha = p.extra["cnf_sha256"].as_str().unwrap().to_string();
    assert_eq!(sha.len(), 64);
    let cert = dir.path().join(p.extra["certificate"].as_str().unwrap());
    assert!(cert.ends_with("proofs/bishop-d1-4.lrat.gz") && cert.is_file());

    // The DIMACS anyone can give another solver hashes to the recorded SHA-256.
    let cnf = dir.path().join("d1.cnf");
    let o = prove(
        &store,
        "bishop",
        "d1",
        "4",
        &["--emit-cnf", cnf.to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains(&sha), "{}", text(&o));
    let dimacs = std::fs::read_to_string(&cnf).unwrap();
    assert!(dimacs.lines().any(|l| l.starts_with("p cnf ")));

    // Settled questions are not solved again; the certificate checks again on demand.
    let before = std::fs::read(&store).unwrap();
    let o = prove(&store, "bishop", "d1", "4", &[]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o).contains("already settled"), "{}", text(&o));
    assert_eq!(std::fs::read(&store).unwrap(), before);
    let o = prove(&store, "bishop", "d1", "4", &["--check-certificates"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("1 certificates check, 0 fail"),
        "{}",
        text(&o)
    );

    // A certificate that lost its last step no longer checks: exit 1.
    let mut raw = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&cert).unwrap()),
        &mut raw,
    )
    .unwrap();
    let cut: Vec<&str> = raw.lines().collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, cut[..cut.len() - 1].join("\n").as_bytes()).unwrap();
    std::fs::write(&cert, gz.finish().unwrap()).unwrap();
    let o = prove(&store, "bishop", "d1", "4", &["--check-certificates"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("FAILS"), "{}", text(&o));
}

/// Where a magic exists, the model's magic is verified and stored like any find.
#[test]
fn a_magic_found_by_sat_is_verified_and_stored() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let o = prove(&store, "bishop", "h2", "4", &[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("exists"), "{}", text(&o));
    let s = Store::load(&store).unwrap();
    let e = s.best(question(Piece::Bishop, "h2", 4).target).unwrap();
    assert_eq!(e.bits, 4);
    assert!(magic::verify(e.target, 4, e.magic).is_ok());
    assert_eq!(e.method.as_ref().unwrap().family, "sat");
    assert!(s.proofs().next().is_none());
}

/// Four cubes in four stores: no proof until every part is in one store, then `merge` makes
/// one, naming the four certificates.
#[test]
fn cubes_in_separate_stores_merge_into_one_proof() {
    let dir = tempfile::tempdir().unwrap();
    let q = question(Piece::Bishop, "a2", 3);
    let mut stores = Vec::new();
    for k in 1..=4 {
        let store = dir.path().join(format!("part{k}/s.json"));
        std::fs::create_dir_all(store.parent().unwrap()).unwrap();
        let shard = format!("{k}/4");
        let o = prove(&store, "bishop", "a2", "3", &["--shard", &shard]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(text(&o).contains("none in the part"), "{}", text(&o));
        assert!(Store::load(&store).unwrap().proof_of(q).is_none());
        stores.push(store);
    }
    let out = dir.path().join("part1/s.json");
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(stores[..3].iter().map(|p| p.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    let o = magichunt(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        Store::load(&out).unwrap().proof_of(q).is_none(),
        "3 of 4 parts"
    );
    let o = magichunt(&[
        "merge",
        out.to_str().unwrap(),
        stores[3].to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = Store::load(&out).unwrap();
    let p = s.proof_of(q).expect("all four parts: a proof");
    assert_eq!(p.extra["certificate"].as_array().unwrap().len(), 4);
    // The certificates came along into the merged store's folder, and all four check there.
    for c in p.extra["certificate"].as_array().unwrap() {
        assert!(
            dir.path().join("part1").join(c.as_str().unwrap()).is_file(),
            "{c}"
        );
    }
    let o = prove(
        &out,
        "bishop",
        "a2",
        "3",
        &["--shard", "1/4", "--check-certificates"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(
        text(&o).contains("4 certificates check, 0 fail"),
        "{}",
        text(&o)
    );
}

#[test]
fn bad_input_exits_2_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    for (square, bits, extra) in [
        ("d1", "0", vec![]),
        ("d1", "10", vec![]),
        ("z9", "4", vec![]),
        ("d1", "4", vec!["--shard", "3/2"]),
        ("d1", "4", vec!["--shard", "1/3"]),
        ("d1", "4", vec!["--method", "exhaust", "--formula", "black"]),
        ("d1", "4", vec!["--time", "soon"]),
    ] {
        let o = prove(&store, "bishop", square, bits, &extra);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{square} {bits} {extra:?}: {}",
            text(&o)
        );
        assert!(!store.exists(), "{extra:?} wrote a store");
    }
    std::fs::write(&store, "{not json").unwrap();
    let o = prove(&store, "bishop", "d1", "4", &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(std::fs::read_to_string(&store).unwrap(), "{not json");
    assert!(!dir.path().join("proofs").exists());
}

/// `--time` ends an unsettled solve with exit 1; Ctrl-C with 130; neither records anything.
#[test]
fn time_limit_exits_1_and_sigint_130_with_nothing_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let hard = ["--method", "sat"];
    let o = prove(
        &store,
        "rook",
        "e7",
        "8",
        &[&hard[..], &["--time", "1s"]].concat(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("not settled"), "{}", text(&o));
    let s = Store::load(&store).unwrap();
    assert_eq!(s.sats().count() + s.proofs().count(), 0);

    let child = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .args(["prove", "--piece", "rook", "--square", "e7", "--bits", "8"])
        .args(hard)
        .args(["--store", store.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o));
    let s = Store::load(&store).unwrap();
    assert_eq!(s.sats().count() + s.proofs().count(), 0);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("proofs"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
