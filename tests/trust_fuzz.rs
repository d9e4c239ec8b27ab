//! Issue 23, point 5: `merge` and the proof and exhaust records under seeded random mutation.
//!
//! A base store holds one proof of each kind, all checked: bishop b8 at 3 bits by SAT (its
//! certificate), bishop d8 at 4 and rook f7 at 8 bits by exhaustive search (residues the
//! cache knows run here). Each input is the base's JSON with one to three random mutations:
//! mostly ones that keep a value's type (a count off by a little, a string or digest changed,
//! an element dropped or doubled, a field taken from another record), so that the input still
//! parses and what changes is what it claims; some that break the shape; a forger's (a proof
//! claiming one more bit or another square, sometimes with its records changed to match); and
//! sometimes the text itself cut or a bit flipped. For every input, in process: parsing,
//! loading, `admit`, merging into the base and vetting never panic, and neither the input nor
//! the merged store counts a proof the base did not (for every square, the highest bit count
//! counted impossible is at most the base's). Some inputs also go through the binary (`merge
//! INPUT BASE --out BASE`): never a panic, the input never changed, the base changed only by
//! a merge that succeeded, and then still counting nothing new. The test prints how many
//! inputs it tried and how far they got.
//!
//! Issue 32 grows it to the other files a command reads: certificates and pools, mutated
//! (numbers, lines, the gzip bytes), as bombs (a line of megabytes, ids leaping 2^24, a pool
//! of blanks past the 256 MiB cap) and as what is not a regular file (a FIFO, a link to
//! /dev/zero, a folder). In process nothing panics and the intact certificate still checks;
//! through the binary, under a watchdog, nothing hangs, nothing takes more than a bounded
//! memory, no input changes, and `merge` never copies a certificate that does not check.

use std::fs;
use std::io::{Read as _, Write as _};
use std::os::unix::fs::MetadataExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use magichunt::exhaust::campaign::residue::{Residue, Search, TaskResult};
use magichunt::exhaust::campaign::shard::Shard;
use magichunt::exhaust::{Plan, Searcher};
use magichunt::layout::PackedTable;
use magichunt::pool::Pool;
use magichunt::prove::certificate::Named;
use magichunt::question::{Formula, Question};
use magichunt::store::Store;
use magichunt::table::{Provenance, Table};
use magichunt::trust::{self, Cache};
use magichunt::{Piece, Square, Target};
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde_json::{json, Value};

/// Inputs tried in process, and how many of those that got in also run through the binary
/// (with one in a few hundred of all).
const INPUTS: usize = 10_000;
const THROUGH_THE_BINARY: usize = 20;

use crate::sandbox;

fn target(p: Piece, s: &str) -> Target {
    Target::new(p, s.parse::<Square>().unwrap())
}

/// The exhaust record of bishop d8 at 4 bits with its residue, searched here.
fn d8_record() -> Value {
    let t = target(Piece::Bishop, "d8");
    let plan = Plan::new(t, 4);
    let search = Search::of(t, &plan, Shard::WHOLE);
    let mut r = Residue::new(search, plan.tasks());
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut s = Searcher::new(&plan);
    let mut nodes = 0;
    for j in 0..r.len {
        let task = Shard::WHOLE.task_at(j, plan.tasks());
        let tally = s.run_task(task, &stop).unwrap();
        nodes += tally.nodes;
        r.push(j, &TaskResult { task, tally });
    }
    json!({"piece": "bishop", "square": "d8", "bits": 4, "shards": 1,
        "task_bits": plan.task_bits(),
        "parts": [{"shard": 1, "done": true, "magics": 0, "nodes": nodes, "seconds": 0.01,
            "residue": serde_json::to_value(r.to_wire()).unwrap()}]})
}

/// The base store's JSON, in `dir` with its certificate.
fn base(dir: &Path) -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    fs::create_dir_all(dir.join("proofs")).unwrap();
    fs::copy(
        root.join("results/proofs/bishop-b8-3.lrat.gz"),
        dir.join("proofs/bishop-b8-3.lrat.gz"),
    )
    .unwrap();
    let shipped: Value =
        serde_json::from_str(&fs::read_to_string(root.join("results/best.json")).unwrap()).unwrap();
    let pick = |list: &str, piece: &str, square: &str| -> Vec<Value> {
        shipped[list]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["piece"] == piece && x["square"] == square)
            .cloned()
            .collect()
    };
    let f7: Value = serde_json::from_str(
        &fs::read_to_string(root.join("results/campaign/rook-f7-8.json")).unwrap(),
    )
    .unwrap();
    let mut entries = pick("entries", "bishop", "b8");
    entries.extend(pick("entries", "rook", "f7"));
    entries.extend(pick("entries", "bishop", "d8"));
    let mut proofs = pick("proofs", "bishop", "b8");
    proofs.extend(f7["proofs"].as_array().unwrap().iter().cloned());
    proofs.push(
        json!({"piece": "bishop", "square": "d8", "bits": 4, "none": true,
        "method": "exhaustive search of one period, low bits first (magichunt 0.1.0, 1 parts)"}),
    );
    json!({"version": 1, "entries": entries, "proofs": proofs,
        "sat": pick("sat", "bishop", "b8"),
        "exhaust": [f7["exhaust"][0].clone(), d8_record()]})
}

/// The highest bit count counted impossible (checked proofs only) per square.
fn counted(store: &Store) -> Vec<Option<u32>> {
    Target::all()
        .map(|t| store.proven_none_counted(t))
        .collect()
}

/// The highest bit count impossible per square by the proofs that may decide which work is
/// done (issue 32: checked here, shipped with this build, or published).
fn steering(store: &Store) -> Vec<Option<u32>> {
    Target::all().map(|t| store.proven_none(t)).collect()
}

/// Whether `got` counts nothing beyond `base`.
fn within(got: &[Option<u32>], base: &[Option<u32>]) -> Option<usize> {
    got.iter().zip(base).position(|(g, b)| g > b)
}

/// One random mutation of `v`.
fn mutate(v: &mut Value, rng: &mut Xoshiro256PlusPlus, donor: &Value) {
    if rng.next_u64().is_multiple_of(6) {
        return forge(v, rng);
    }
    let at = random_pointer(v, rng);
    let node = v.pointer_mut(&at).expect("the pointer was walked in v");
    let strings = [
        "",
        "rook",
        "bishop",
        "a1",
        "h8",
        "b1",
        "black",
        "plain",
        "unsat",
        "sat",
        "proofs/bishop-b8-3.lrat.gz",
        "../x",
        "/etc/passwd",
        "t18:5",
        "t12:99999999",
        "magichunt-residue 1",
        "0x0000000000000000",
        "0000000000000000:1",
        "ffffffffffffffff:0",
        "zz",
        "2026-11-23T18:11:37Z",
    ];
    // Three in four keep the node's type, so that most mutants still parse and what changes
    // is what the records say; the rest break the shape.
    if !rng.next_u64().is_multiple_of(4) {
        return plausible(node, rng, donor, &strings);
    }
    match rng.next_u64() % 12 {
        0 => *node = json!(rng.next_u64() % 20),
        1 => *node = json!(rng.next_u64()),
        2 => *node = json!(-1),
        3 => *node = json!(1e300),
        4 => *node = json!(strings[pick(rng, strings.len())]),
        5 => *node = Value::Null,
        6 => *node = json!(rng.next_u64().is_multiple_of(2)),
        7 => match node {
            Value::Object(o) if !o.is_empty() => {
                let k = o.keys().nth(pick(rng, o.len())).unwrap().clone();
                o.remove(&k);
            }
            Value::Array(a) if !a.is_empty() => {
                let i = pick(rng, a.len());
                a.remove(i);
            }
            _ => *node = json!([]),
        },
        8 => match node {
            Value::Array(a) if !a.is_empty() => {
                let i = pick(rng, a.len());
                let x = a[i].clone();
                a.push(x);
            }
            Value::Object(o) => {
                o.insert("extra".into(), json!({"a": [1, 2]}));
            }
            _ => {}
        },
        9 => match node {
            Value::Number(n) => {
                let x = n.as_u64().unwrap_or(1);
                *node = json!(x.wrapping_add(1 + rng.next_u64() % 3));
            }
            Value::String(s) if !s.is_empty() => {
                let mut b = s.clone().into_bytes();
                let i = pick(rng, b.len());
                b[i] = b"0123456789abcdefx:/."[pick(rng, 20)];
                *node = json!(String::from_utf8_lossy(&b));
            }
            _ => {}
        },
        10 => {
            // A piece of the donor (the base itself) grafted here.
            let mut d = donor;
            for _ in 0..(rng.next_u64() % 5) {
                d = match d {
                    Value::Object(o) if !o.is_empty() => {
                        o.values().nth(pick(rng, o.len())).unwrap()
                    }
                    Value::Array(a) if !a.is_empty() => &a[pick(rng, a.len())],
                    _ => break,
                };
            }
            *node = d.clone();
        }
        _ => *node = json!({"version": 1}),
    }
}

/// A JSON pointer to a random node up to eight levels down in `v`: mostly deep ones (a step
/// goes on into a list or an object three times in four when there is one), where the
/// records' fields are, rarely the whole table.
fn random_pointer(v: &Value, rng: &mut Xoshiro256PlusPlus) -> String {
    let mut pointer = String::new();
    let mut node = v;
    let depth = if rng.next_u64().is_multiple_of(16) {
        0
    } else {
        1 + rng.next_u64() % 8
    };
    for _ in 0..depth {
        let children: Vec<(String, &Value)> = match node {
            Value::Object(o) => o
                .iter()
                .map(|(k, x)| (k.replace('~', "~0").replace('/', "~1"), x))
                .collect(),
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| (i.to_string(), x))
                .collect(),
            _ => break,
        };
        let inner: Vec<&(String, &Value)> = children
            .iter()
            .filter(|(_, x)| x.is_object() || x.is_array())
            .collect();
        let (step, next) = if !inner.is_empty() && !rng.next_u64().is_multiple_of(4) {
            inner[pick(rng, inner.len())]
        } else if children.is_empty() {
            break;
        } else {
            &children[pick(rng, children.len())]
        };
        pointer.push('/');
        pointer.push_str(step);
        node = next;
    }
    pointer
}

/// A forger's mutation: one proof claims one more bit, or another square, and sometimes the
/// exhaust and SAT records of its square are changed to match (as if they backed it).
fn forge(v: &mut Value, rng: &mut Xoshiro256PlusPlus) {
    let Some(proofs) = v.get_mut("proofs").and_then(Value::as_array_mut) else {
        return;
    };
    if proofs.is_empty() {
        return;
    }
    let i = pick(rng, proofs.len());
    let (piece, square) = (
        proofs[i].get("piece").cloned(),
        proofs[i].get("square").cloned(),
    );
    let more_bits = !rng.next_u64().is_multiple_of(3);
    let new_square = json!(["a1", "b1", "h8", "e4", "f7", "d8", "b8"][pick(rng, 7)]);
    let change = |x: &mut Value| {
        let Some(o) = x.as_object_mut() else { return };
        if !more_bits {
            o.insert("square".into(), new_square.clone());
        } else if let Some(b) = o.get("bits").and_then(Value::as_u64) {
            o.insert("bits".into(), json!(b + 1));
        }
    };
    change(&mut proofs[i]);
    if rng.next_u64().is_multiple_of(2) {
        for list in ["exhaust", "sat"] {
            for x in v
                .get_mut(list)
                .and_then(Value::as_array_mut)
                .into_iter()
                .flatten()
            {
                if x.get("piece") == piece.as_ref() && x.get("square") == square.as_ref() {
                    change(x);
                }
            }
        }
    }
}

/// A mutation that keeps `node`'s type: a count off by a little, halved, doubled, zero or
/// random; a string swapped for one of `words` or with a character changed; a flag flipped;
/// an element dropped, doubled or two swapped; a key dropped, or its value replaced by the
/// value of the same key elsewhere in `donor` (another record's nodes, residue, certificate).
fn plausible(node: &mut Value, rng: &mut Xoshiro256PlusPlus, donor: &Value, words: &[&str]) {
    match node {
        Value::Number(n) => {
            let x = n.as_u64().unwrap_or(0);
            *node = json!(match rng.next_u64() % 6 {
                0 => x.saturating_sub(1 + rng.next_u64() % 3),
                1 => x.saturating_add(1 + rng.next_u64() % 3),
                2 => x / 2,
                3 => x.saturating_mul(2),
                4 => rng.next_u64() % 64,
                _ => rng.next_u64(),
            });
        }
        Value::String(s) => {
            if s.is_empty() || rng.next_u64().is_multiple_of(3) {
                *s = words[pick(rng, words.len())].to_string();
            } else {
                let mut b = s.clone().into_bytes();
                let i = pick(rng, b.len());
                b[i] = b"0123456789abcdefx:/."[pick(rng, 20)];
                *s = String::from_utf8_lossy(&b).into_owned();
            }
        }
        Value::Bool(b) => *b = !*b,
        Value::Array(a) if !a.is_empty() => {
            let i = pick(rng, a.len());
            match rng.next_u64() % 3 {
                0 => {
                    a.remove(i);
                }
                1 => {
                    let x = a[i].clone();
                    a.insert(pick(rng, a.len() + 1), x);
                }
                _ => {
                    let j = pick(rng, a.len());
                    a.swap(i, j);
                }
            }
        }
        Value::Object(o) if !o.is_empty() => {
            let k = o.keys().nth(pick(rng, o.len())).unwrap().clone();
            let mut same = Vec::new();
            values_of(donor, &k, &mut same);
            if same.is_empty() || rng.next_u64().is_multiple_of(3) {
                o.remove(&k);
            } else {
                o.insert(k, same[pick(rng, same.len())].clone());
            }
        }
        _ => {}
    }
}

/// Every value under the key `key` anywhere in `v`.
fn values_of<'a>(v: &'a Value, key: &str, out: &mut Vec<&'a Value>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                if k == key {
                    out.push(x);
                }
                values_of(x, key, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| values_of(x, key, out)),
        _ => {}
    }
}

fn pick(rng: &mut Xoshiro256PlusPlus, n: usize) -> usize {
    (rng.next_u64() % n as u64) as usize
}

/// The mutant's bytes: the JSON text, sometimes cut or with a byte changed.
fn bytes_of(v: &Value, rng: &mut Xoshiro256PlusPlus) -> Vec<u8> {
    let mut b = serde_json::to_vec_pretty(v).unwrap();
    match rng.next_u64() % 16 {
        0 => b.truncate(pick(rng, b.len())),
        1 => {
            let i = pick(rng, b.len());
            b[i] ^= 1 << (rng.next_u64() % 8);
        }
        _ => {}
    }
    b
}

#[test]
fn merge_and_records_under_random_mutation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base_json = base(d);
    let base_path = d.join("base.json");
    fs::write(&base_path, serde_json::to_vec_pretty(&base_json).unwrap()).unwrap();
    // The base's checks, as a cache would hold them after its searches ran here.
    let cache_path = d.join("cache.json");
    let mut cache = Cache::at(&cache_path);
    let mut base_store = Store::load(&base_path).unwrap();
    for x in base_store.exhausts() {
        for p in x.parts.values() {
            cache.add_run_here(&trust::part_key(x, p));
        }
    }
    cache.save();
    let mut cache = Cache::at(&cache_path);
    trust::vet(&mut base_store, d, &mut cache);
    let legit = counted(&base_store);
    // What may decide work: the base's checked proofs, and what this build ships anyway (a
    // mutant's proof that the built-in table holds too is this build's own).
    let shipped = magichunt::shipped::store();
    let steers: Vec<Option<u32>> = steering(&base_store)
        .into_iter()
        .zip(Target::all())
        .map(|(b, t)| b.max(shipped.proven_none(t)))
        .collect();
    let provenances: Vec<Provenance> = base_store
        .proofs()
        .map(|p| base_store.provenance(p))
        .collect();
    assert_eq!(provenances.len(), 3);
    assert!(
        provenances.iter().all(Provenance::is_checked),
        "the base's three proofs are checked: {provenances:?}"
    );

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
    // How far each input got: parsed, loaded, admitted, merged.
    let mut reached = [0usize; 4];
    let (mut false_claims, mut binary) = (0, 0);
    for n in 0..INPUTS {
        let mut v = base_json.clone();
        for _ in 0..=(rng.next_u64() % 3) {
            mutate(&mut v, &mut rng, &base_json);
        }
        let bytes = bytes_of(&v, &mut rng);
        let accept_claimed = rng.next_u64().is_multiple_of(2);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let Ok(table) = Table::parse(&bytes, Path::new("mutant.json")) else {
                return (0, false);
            };
            let Ok(mut store) = Store::from_table(table, "mutant.json") else {
                return (1, false);
            };
            // A mutant that claims more than the base: the case the checks are there for.
            let claims_more = within(
                &Target::all()
                    .map(|t| store.claimed_none(t))
                    .collect::<Vec<_>>(),
                &legit,
            )
            .is_some();
            let mut own = store.clone();
            trust::vet(&mut own, d, &mut cache);
            if let Some(i) = within(&counted(&own), &legit) {
                panic!("the mutant alone counts a false proof on square {i}");
            }
            if let Some(i) = within(&steering(&own), &steers) {
                panic!("the mutant alone steers work by a false proof on square {i}");
            }
            if trust::admit(&store, "mutant.json", d, &mut cache, accept_claimed).is_err() {
                return (2, claims_more);
            }
            let mut into = Store::load(&base_path).unwrap();
            if into
                .merge(std::mem::take(&mut store), "base", "mutant")
                .is_err()
            {
                return (3, claims_more);
            }
            trust::vet(&mut into, d, &mut cache);
            if let Some(i) = within(&counted(&into), &legit) {
                panic!("the merged store counts a false proof on square {i}");
            }
            if let Some(i) = within(&steering(&into), &steers) {
                panic!("the merged store steers work by a false proof on square {i}");
            }
            (4, claims_more)
        }));
        let Ok((stage, claims_more)) = outcome else {
            fs::write("/tmp/magichunt-fuzz-failure.json", &bytes).unwrap();
            panic!("input {n} (seed 23) panicked; written to /tmp/magichunt-fuzz-failure.json");
        };
        for r in &mut reached[..stage] {
            *r += 1;
        }
        false_claims += usize::from(claims_more);
        // Through the binary: a spread of all inputs, and of those that got in.
        if n % (INPUTS / 10) == 0 || (stage == 4 && binary < THROUGH_THE_BINARY && n % 7 == 0) {
            binary += 1;
            through_the_binary(d, &bytes, &base_path, &cache_path, (&legit, &steers), n);
        }
    }
    let [parsed, loaded, admitted, merged] = reached;
    println!(
        "fuzz merge: {INPUTS} inputs tried: {parsed} parsed, {loaded} loaded, {admitted} admitted, {merged} merged, {false_claims} claiming a proof the base does not hold (none counted); {binary} also through the binary"
    );
    // The mutations must reach every stage and forge claims, or the test shows little.
    assert!(parsed > INPUTS / 4 && loaded > INPUTS / 5 && admitted > INPUTS / 10);
    assert!(
        merged > INPUTS / 20 && false_claims > INPUTS / 100,
        "{reached:?} {false_claims}"
    );
    assert!(parsed < INPUTS && admitted < loaded);
    assert!(binary >= 20, "{binary}");
}

/// `merge MUTANT BASE --out BASE` on copies: no panic, the mutant untouched, the base
/// changed only by a merge that succeeded and then counting nothing new.
fn through_the_binary(
    d: &Path,
    bytes: &[u8],
    base: &Path,
    cache: &Path,
    (legit, steers): (&[Option<u32>], &[Option<u32>]),
    n: usize,
) {
    let input = d.join("mutant.json");
    let out = d.join("out.json");
    fs::write(&input, bytes).unwrap();
    fs::copy(base, &out).unwrap();
    let before = fs::read(&out).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", cache)
        .current_dir(d)
        .args(["merge", "mutant.json", "out.json", "--out", "out.json"])
        .output()
        .unwrap();
    let why = || format!("input {n}: {o:?}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(matches!(o.status.code(), Some(0 | 2)), "{}", why());
    assert_eq!(fs::read(&input).unwrap(), bytes, "{}", why());
    if o.status.code() == Some(2) {
        assert_eq!(fs::read(&out).unwrap(), before, "{}", why());
        return;
    }
    let mut merged = Store::load(&out).unwrap();
    trust::vet(&mut merged, d, &mut Cache::at(cache));
    assert!(within(&counted(&merged), legit).is_none(), "{}", why());
    assert!(within(&steering(&merged), steers).is_none(), "{}", why());
}

/// Certificates and pools tried in process (each a mutant, a bomb or a special file).
const CERTIFICATES: usize = 600;
const POOLS: usize = 1_500;

/// Memory (KiB) no hostile input may make the binary hold, bombs included (a table's values
/// are capped at about 256 MiB parsed).
const MAX_KIB: u64 = 320 * 1024;

/// A hung run fails after this long.
const LIMIT: Duration = Duration::from_secs(120);

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn gzip_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// What one hostile file is.
enum Hostile {
    Bytes(Vec<u8>),
    Fifo,
    DevZero,
    Folder,
}

/// Puts `what` at `path` (whatever was there before removed); `false` when a FIFO cannot be
/// made here.
fn place(path: &Path, what: &Hostile) -> bool {
    if let Ok(m) = fs::symlink_metadata(path) {
        if m.is_dir() {
            fs::remove_dir_all(path).unwrap();
        } else {
            fs::remove_file(path).unwrap();
        }
    }
    match what {
        Hostile::Bytes(b) => fs::write(path, b).unwrap(),
        Hostile::Fifo => return sandbox::mkfifo(path),
        Hostile::DevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        Hostile::Folder => fs::create_dir(path).unwrap(),
    }
    true
}

/// One random mutation of an LRAT proof's text.
fn mutate_lrat(text: &[u8], rng: &mut Xoshiro256PlusPlus) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = text.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let i = pick(rng, lines.len());
    match rng.next_u64() % 10 {
        0 | 1 => {
            // A number changed a little, or a lot.
            let words: Vec<&[u8]> = lines[i].split(|&b| b == b' ').collect();
            let k = pick(rng, words.len().max(1));
            let new: Vec<Vec<u8>> = words
                .iter()
                .enumerate()
                .map(|(j, w)| {
                    match std::str::from_utf8(w)
                        .ok()
                        .and_then(|w| w.parse::<i64>().ok())
                    {
                        Some(v) if j == k => match rng.next_u64() % 4 {
                            0 => (v + 1).to_string().into_bytes(),
                            1 => (-v).to_string().into_bytes(),
                            2 => (v - 1).to_string().into_bytes(),
                            _ => (rng.next_u64() >> 1).to_string().into_bytes(),
                        },
                        _ => w.to_vec(),
                    }
                })
                .collect();
            lines[i] = new.join(&b' ');
        }
        2 => {
            lines.remove(i);
        }
        3 => {
            let l = lines[i].clone();
            lines.insert(pick(rng, lines.len()), l);
        }
        4 => {
            let j = pick(rng, lines.len());
            lines.swap(i, j);
        }
        5 => {
            // A line longer than any step needs (the cap is 1 MiB for this CNF).
            let mut l = b"99999999 ".to_vec();
            l.extend(b"1 ".repeat((1 << 19) + pick(rng, 1 << 20)));
            l.extend(b"0 1 0");
            lines.insert(i, l);
        }
        6 => {
            // Ids leaping 2^24 at every step: once a slot per id, gigabytes of index.
            let mut id = 1u64 << 40;
            for _ in 0..(50 + pick(rng, 200)) {
                id += 1 << 24;
                lines.insert(i, format!("{id} 1 -1 0 1 0").into_bytes());
            }
        }
        7 => {
            let cut = pick(rng, text.len());
            return text[..cut].to_vec();
        }
        8 => lines.insert(i, b"c a comment".to_vec()),
        _ => lines[i].extend(b" \x00\xff junk"),
    }
    lines.join(&b'\n')
}

/// One random certificate: mostly a mutant of `good` (the LRAT text `text`), some bombs,
/// some special files, some left intact (which must still check).
fn hostile_certificate(
    good: &[u8],
    text: &[u8],
    rng: &mut Xoshiro256PlusPlus,
) -> (Hostile, &'static str) {
    match rng.next_u64() % 20 {
        0 => (Hostile::Bytes(good.to_vec()), "intact"),
        1 => (Hostile::Fifo, "fifo"),
        2 => (Hostile::DevZero, "dev-zero"),
        3 => (Hostile::Folder, "folder"),
        4 => {
            // A bomb: one line of 8 to 40 MiB, unpacking from a few kilobytes.
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(b"99999 ").unwrap();
            let chunk = b"1 ".repeat(1 << 20);
            for _ in 0..(4 + pick(rng, 16)) {
                gz.write_all(&chunk).unwrap();
            }
            gz.write_all(b"0 1 0\n").unwrap();
            (Hostile::Bytes(gz.finish().unwrap()), "bomb")
        }
        5 => {
            let mut b = good.to_vec();
            let i = pick(rng, b.len());
            b[i] ^= 1 << (rng.next_u64() % 8);
            (Hostile::Bytes(b), "gzip bit")
        }
        6 => {
            let b = good[..pick(rng, good.len())].to_vec();
            (Hostile::Bytes(b), "gzip cut")
        }
        7 => {
            // Bytes after the gzip stream: another member, or junk.
            let mut b = good.to_vec();
            if rng.next_u64().is_multiple_of(2) {
                b.extend(gzip_bytes(b"c more\n"));
            } else {
                b.extend(b"junk");
            }
            (Hostile::Bytes(b), "trailing")
        }
        _ => (Hostile::Bytes(gzip_bytes(&mutate_lrat(text, rng))), "lrat"),
    }
}

#[test]
fn certificates_and_pools_under_random_mutation() {
    let env = sandbox::Env::new();
    let d = env.dir.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(32);

    // Certificates: bishop b8 at 3 bits, named by a store of its own.
    let good = fs::read(root.join("results/proofs/bishop-b8-3.lrat.gz")).unwrap();
    let text = gunzip(&good);
    let q = Question {
        target: target(Piece::Bishop, "b8"),
        bits: 3,
        formula: Formula::Plain,
    };
    let cnf = magichunt::prove::cnf_of(q, magichunt::prove::cube(q, Shard::WHOLE).unwrap());
    let named = Named {
        question: q,
        shard: Shard::WHOLE,
        certificate: "proofs/bishop-b8-3.lrat.gz".into(),
        cnf_sha256: magichunt::prove::sha256(&cnf),
    };
    let shipped: Value =
        serde_json::from_str(&fs::read_to_string(root.join("results/best.json")).unwrap()).unwrap();
    let b8 = |list: &str| -> Vec<Value> {
        shipped[list]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["piece"] == "bishop" && x["square"] == "b8")
            .cloned()
            .collect()
    };
    sandbox::write_json(
        &d.join("b8.json"),
        &json!({"version": 1, "entries": b8("entries"), "proofs": b8("proofs"), "sat": b8("sat")}),
    );
    fs::create_dir_all(d.join("proofs")).unwrap();
    fs::create_dir_all(d.join("elsewhere")).unwrap();
    let cert = d.join(&named.certificate);
    let (mut accepted, mut refused, mut binary) = (0, 0, 0);
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for n in 0..CERTIFICATES {
        let (what, kind) = hostile_certificate(&good, &text, &mut rng);
        let first_few = {
            let k = seen.entry(kind).or_default();
            *k += 1;
            *k <= 4
        };
        if !place(&cert, &what) {
            continue;
        }
        let checked = catch_unwind(AssertUnwindSafe(|| {
            trust::check_certificate(&named, d, &mut Cache::none(), false)
        }));
        let Ok(checked) = checked else {
            panic!("certificate {n} ({kind}) panicked the checker");
        };
        match &checked {
            Ok(_) => accepted += 1,
            Err(_) => refused += 1,
        }
        if kind == "intact" {
            assert!(checked.is_ok(), "the intact certificate: {checked:?}");
        }
        if matches!(kind, "fifo" | "dev-zero" | "folder" | "bomb") {
            assert!(checked.is_err(), "{kind} accepted");
        }
        // Through the binary: the first few of each kind, and a spread of the rest.
        if first_few || n % 40 == 0 {
            binary += 1;
            let _ = fs::remove_dir_all(d.join("elsewhere"));
            fs::create_dir_all(d.join("elsewhere")).unwrap();
            let w = env.mh_watched(&["merge", "b8.json", "--out", "elsewhere/out.json"], LIMIT);
            let o = &w.output;
            let why = || format!("certificate {n} ({kind}): {}", sandbox::text(o));
            assert!(matches!(o.status.code(), Some(0 | 2)), "{}", why());
            if let Some(kib) = w.peak_kib {
                assert!(kib < MAX_KIB, "{kib} KiB: {}", why());
            }
            let copied = d.join("elsewhere").join(&named.certificate);
            if o.status.code() == Some(0) {
                // What merge copied is a certificate that checks.
                let ok = trust::check_certificate(
                    &named,
                    &d.join("elsewhere"),
                    &mut Cache::none(),
                    false,
                );
                assert!(
                    ok.is_ok(),
                    "merge copied a broken certificate: {ok:?}: {}",
                    why()
                );
            } else {
                assert!(!copied.exists(), "{}", why());
            }
            if let Hostile::Bytes(b) = &what {
                assert_eq!(&fs::read(&cert).unwrap(), b, "the input changed: {}", why());
            }
        }
    }
    place(&cert, &Hostile::Bytes(good.clone()));

    // Pools: a small one, from the shipped pool, mutated as the stores are.
    seen.clear();
    let full = Pool::read(&root.join("results/pool-plain.json.gz")).unwrap();
    let mut table = full.to_table();
    table.entries.truncate(24);
    let base: Value = serde_json::from_str(&table.to_json()).unwrap();
    fs::write(d.join("base-pool.json"), table.to_json()).unwrap();
    assert!(
        Pool::read(&d.join("base-pool.json")).is_ok(),
        "the base pool reads"
    );
    fs::copy(root.join("results/best.json"), d.join("best.json")).unwrap();
    let (mut read_ok, mut pool_binary) = (0, 0);
    for n in 0..POOLS {
        let gz = rng.next_u64().is_multiple_of(2);
        let name = if gz { "pool.json.gz" } else { "pool.json" };
        let path = d.join(name);
        let (what, kind) = match rng.next_u64() % 60 {
            0 => (Hostile::Fifo, "fifo"),
            1 => (Hostile::DevZero, "dev-zero"),
            2 => (Hostile::Folder, "folder"),
            _ if n == 7 => {
                // A bomb of blanks past the 256 MiB cap (one: it takes a second each time).
                let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                let blanks = vec![b' '; 1 << 20];
                for _ in 0..260 {
                    g.write_all(&blanks).unwrap();
                }
                let _ = fs::remove_file(d.join("pool.json"));
                (Hostile::Bytes(g.finish().unwrap()), "bomb")
            }
            _ if n == 8 => {
                // A bomb of values under the size cap: 50 million zeros, 1.6 GB parsed.
                let mut g = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                g.write_all(br#"{"version": 1, "kind": "pool", "entries": ["#)
                    .unwrap();
                let zeros = b"0,".repeat(1 << 20);
                for _ in 0..50 {
                    g.write_all(&zeros).unwrap();
                }
                g.write_all(b"0]}").unwrap();
                let _ = fs::remove_file(d.join("pool.json"));
                (Hostile::Bytes(g.finish().unwrap()), "bomb")
            }
            _ => {
                let mut v = base.clone();
                for _ in 0..=(rng.next_u64() % 3) {
                    mutate(&mut v, &mut rng, &base);
                }
                let b = bytes_of(&v, &mut rng);
                (
                    Hostile::Bytes(if gz { gzip_bytes(&b) } else { b }),
                    "mutant",
                )
            }
        };
        let path = if kind == "bomb" {
            d.join("pool.json.gz")
        } else {
            path
        };
        let first_few = {
            let k = seen.entry(kind).or_default();
            *k += 1;
            *k <= 4
        };
        if !place(&path, &what) {
            continue;
        }
        let read = catch_unwind(AssertUnwindSafe(|| Pool::read(&path)));
        let Ok(read) = read else {
            panic!("pool {n} ({kind}) panicked Pool::read");
        };
        if read.is_ok() {
            read_ok += 1;
        }
        if matches!(kind, "fifo" | "dev-zero" | "folder" | "bomb") {
            assert!(read.is_err(), "{kind} read as a pool");
        }
        // Through the binary: the first few of each kind, and a spread of the rest; the
        // bombs (each seconds for every command) go through pack, verify and merge in
        // `trust_inputs::bombs_are_refused_in_bounded_memory`.
        if kind != "bomb" && (first_few || n % 60 == 0) {
            pool_binary += 1;
            let p = path.file_name().unwrap().to_str().unwrap().to_string();
            for args in [
                vec![
                    "pack",
                    "--store",
                    "best.json",
                    "--pool",
                    &p,
                    "--steps",
                    "0",
                    "--out",
                    "packed.json",
                ],
                vec!["verify", "--file", &p],
                vec!["merge", &p, "--out", "merged.json.gz"],
            ] {
                let w = env.mh_watched(&args, LIMIT);
                let o = &w.output;
                let why = || format!("pool {n} ({kind}) {args:?}: {}", sandbox::text(o));
                assert!(matches!(o.status.code(), Some(0..=2)), "{}", why());
                if let Some(kib) = w.peak_kib {
                    assert!(kib < MAX_KIB, "{kib} KiB: {}", why());
                }
                if let Hostile::Bytes(b) = &what {
                    assert_eq!(&fs::read(&path).unwrap(), b, "the input changed: {}", why());
                }
            }
            let _ = fs::remove_file(d.join("merged.json.gz"));
        }
    }
    println!(
        "fuzz inputs: {CERTIFICATES} certificates ({accepted} checked, {refused} refused; {binary} through merge), {POOLS} pools ({read_ok} read; {pool_binary} through pack, verify and merge)"
    );
    assert!(
        accepted > 0 && refused > CERTIFICATES / 2,
        "{accepted} {refused}"
    );
    assert!(binary >= 30 && pool_binary >= 15, "{binary} {pool_binary}");
    assert!(read_ok > POOLS / 50, "{read_ok}");
}

/// Issue 72: what is planted beside a store, merged table-level fields, offsets that lie.
const PLANTS: usize = 24;
const FIELDS: usize = 600;
const OFFSETS: usize = 400;

/// What may be planted where magichunt makes a file beside a store.
const PLANT_KINDS: [&str; 11] = [
    "symlink to the store",
    "symlink to the input",
    "symlink to a victim",
    "dangling symlink",
    "hard link to the store",
    "hard link to a victim",
    "fifo",
    "folder",
    "junk",
    "a pid",
    "empty",
];

/// Plants `kind` at `at`; `false` when a FIFO cannot be made here.
fn plant(at: &Path, kind: &str, store: &Path, input: &Path, victim: &Path) -> bool {
    let d = at.parent().unwrap();
    match kind {
        "symlink to the store" => std::os::unix::fs::symlink(store, at).unwrap(),
        "symlink to the input" => std::os::unix::fs::symlink(input, at).unwrap(),
        "symlink to a victim" => std::os::unix::fs::symlink(victim, at).unwrap(),
        "dangling symlink" => std::os::unix::fs::symlink(d.join("nowhere"), at).unwrap(),
        "hard link to the store" => fs::hard_link(store, at).unwrap(),
        "hard link to a victim" => fs::hard_link(victim, at).unwrap(),
        "fifo" => return sandbox::mkfifo(at),
        "folder" => fs::create_dir(at).unwrap(),
        "junk" => fs::write(at, "{\"version\": 1, \"entries\": []}").unwrap(),
        "a pid" => fs::write(at, "1\n").unwrap(),
        _ => fs::write(at, "").unwrap(),
    }
    true
}

/// The top-level fields a merged input may carry that say how a table is read or laid out.
fn table_level(rng: &mut Xoshiro256PlusPlus) -> (&'static str, Value) {
    let choices: [(&str, Value); 14] = [
        ("formula", json!("black")),
        ("formula", json!("plain")),
        ("formula", json!("white")),
        ("formula", json!(7)),
        ("layout", json!("packed")),
        ("layout", json!("fancy")),
        ("layout", json!("tight")),
        (
            "packed_table",
            json!({"declared_size_entries": 88507, "verified_valid": true}),
        ),
        ("packed_table", json!([1])),
        ("table_sizes", json!({"attack": 1, "rook": 1})),
        ("comment", json!(["Generated by someone else"])),
        ("kind", json!("pool")),
        ("source", json!("another machine")),
        ("author", json!("someone")),
    ];
    let (k, v) = &choices[pick(rng, choices.len())];
    (k, v.clone())
}

#[test]
fn files_beside_merged_fields_and_lying_offsets_under_random_mutation() {
    let env = sandbox::Env::new();
    let d = env.dir.path();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(72);
    let input = d.join("input.json");
    fs::copy(root.join("tests/golden/store.json"), &input).unwrap();
    let victim = d.join("victim.txt");
    fs::write(&victim, "someone else's file").unwrap();
    let fixture = root.join("tests/golden/store.json");

    // 1. The lock file and the temporary files of a save, planted.
    let out = d.join("out.json");
    let lock = d.join("out.json.lock");
    let (mut held, mut refused) = (0, 0);
    for n in 0..PLANTS {
        fs::copy(&fixture, &out).unwrap();
        let kind = PLANT_KINDS[n % PLANT_KINDS.len()];
        if !plant(&lock, kind, &out, &input, &victim) {
            continue;
        }
        // The names a save used before, for live and dead pids, as links to the victim.
        let dead = 999_999_990 + n;
        std::os::unix::fs::symlink(&victim, d.join(format!(".out.json.{dead}.tmp"))).unwrap();
        fs::hard_link(&victim, d.join(format!(".out.json.{}.tmp", dead + 1))).unwrap();
        std::os::unix::fs::symlink(&victim, d.join(".out.json.1.tmp")).unwrap();
        let before = fs::read(&out).unwrap();
        let w = env.mh_watched(
            &["merge", "input.json", "--out", "out.json"],
            Duration::from_secs(60),
        );
        let o = &w.output;
        let why = || format!("plant {n} ({kind}): {}", sandbox::text(o));
        assert!(matches!(o.status.code(), Some(0 | 2)), "{}", why());
        assert_eq!(
            fs::read_to_string(&victim).unwrap(),
            "someone else's file",
            "{}",
            why()
        );
        assert!(
            !d.join("nowhere").exists(),
            "a link was followed: {}",
            why()
        );
        let plain = matches!(kind, "a pid" | "empty");
        if plain {
            held += 1;
            assert_eq!(o.status.code(), Some(0), "{}", why());
            let m = fs::metadata(&out).unwrap();
            assert_eq!(m.nlink(), 1, "{}", why());
            assert!(Store::load(&out).is_ok(), "{}", why());
            assert!(!lock.exists(), "{}", why());
        } else {
            refused += 1;
            assert_eq!(o.status.code(), Some(2), "{}", why());
            assert_eq!(fs::read(&out).unwrap(), before, "{}", why());
            assert!(
                String::from_utf8_lossy(&o.stderr).contains("lock file"),
                "{}",
                why()
            );
        }
        for f in fs::read_dir(d).unwrap() {
            let p = f.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if name.starts_with(".out.json.") || p == lock {
                if fs::symlink_metadata(&p).unwrap().is_dir() {
                    fs::remove_dir(&p).unwrap();
                } else {
                    fs::remove_file(&p).unwrap();
                }
            }
        }
    }

    // 2. Table-level fields of a merged input, in process and through the binary.
    let base_path = d.join("base.json");
    fs::copy(&fixture, &base_path).unwrap();
    let base_json: Value = serde_json::from_str(&fs::read_to_string(&input).unwrap()).unwrap();
    let (mut merged, mut binary, mut merged_binary) = (0, 0, 0);
    for n in 0..FIELDS {
        let mut v = base_json.clone();
        for _ in 0..=(rng.next_u64() % 3) {
            let (k, x) = table_level(&mut rng);
            v[k] = x;
        }
        if rng.next_u64().is_multiple_of(4) {
            mutate(&mut v, &mut rng, &base_json);
        }
        let bytes = serde_json::to_vec_pretty(&v).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            let table = Table::parse(&bytes, Path::new("in.json")).ok()?;
            let theirs = Store::from_table(table, "in.json").ok()?;
            let mut into = Store::load(&base_path).unwrap();
            into.merge(theirs, "base", "in").ok()?;
            Some(into)
        }));
        let Ok(result) = result else {
            panic!("fields {n} panicked");
        };
        let Some(store) = result else { continue };
        merged += 1;
        let text = store.to_json();
        let top: Value = serde_json::from_str(&text).unwrap();
        for key in magichunt::table::LAYOUT_FIELDS {
            assert!(
                top.get(key).is_none(),
                "fields {n}: the merged store carries {key}"
            );
        }
        let again = Store::from_table(Table::parse(text.as_bytes(), Path::new("m")).unwrap(), "m")
            .unwrap_or_else(|e| panic!("fields {n}: the merged store does not load: {e}"));
        assert!(
            again.entries().eq(store.entries()),
            "fields {n}: the entries changed on the way"
        );
        if binary < 10 && n % 25 == 0 {
            binary += 1;
            fs::write(d.join("in.json"), &bytes).unwrap();
            fs::copy(&fixture, &out).unwrap();
            let before = fs::read(&out).unwrap();
            let o = env.mh(&["merge", "in.json", "--out", "out.json"]);
            let why = || format!("fields {n}: {}", sandbox::text(&o));
            assert!(matches!(o.status.code(), Some(0 | 2)), "{}", why());
            if o.status.code() == Some(2) {
                // Refused in one line (an input that says it is a pool is merged as one, and
                // a pool never replaces a store), the output untouched.
                assert_eq!(fs::read(&out).unwrap(), before, "{}", why());
                assert_eq!(
                    o.stderr.trim_ascii_end().split(|&b| b == b'\n').count(),
                    1,
                    "{}",
                    why()
                );
                continue;
            }
            merged_binary += 1;
            for args in [
                vec![
                    "hunt",
                    "--quiet",
                    "--threads",
                    "1",
                    "--piece",
                    "bishop",
                    "--square",
                    "a1",
                    "--tries",
                    "2000",
                    "--store",
                    "out.json",
                ],
                vec!["verify", "--store", "out.json"],
                vec!["compare", "--store", "out.json"],
            ] {
                let o = env.mh(&args);
                assert_eq!(
                    o.status.code(),
                    Some(0),
                    "fields {n} {args:?}: {}",
                    sandbox::text(&o)
                );
            }
            assert!(Store::load(&out).is_ok());
        }
    }

    // 3. Offsets that lie, in packed tables of two shapes.
    let bases = [
        root.join("tests/golden/magics-packed.json"),
        root.join("results/published/annuss-fixed-shift-2017.json"),
    ];
    let (mut packed_ok, mut packed_refused, mut offsets_binary) = (0, 0, 0);
    for n in 0..OFFSETS {
        let base: Value =
            serde_json::from_str(&fs::read_to_string(&bases[n % 2]).unwrap()).unwrap();
        let limit: u64 = base["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| 1u64 << e["bits"].as_u64().unwrap())
            .sum();
        let mut v = base.clone();
        let count = v["entries"].as_array().unwrap().len();
        // One in eight left as it is: a true packed table must still hold.
        let lies = if n % 8 == 0 {
            0
        } else {
            1 + rng.next_u64() % 2
        };
        for _ in 0..lies {
            let k = pick(&mut rng, count);
            let e = &v["entries"][k];
            let (offset, max) = (
                e["offset"].as_u64().unwrap(),
                e["max_index"].as_u64().unwrap(),
            );
            let other = v["entries"][pick(&mut rng, count)]["offset"].clone();
            v["entries"][k]["offset"] = match rng.next_u64() % 10 {
                0 => json!(u32::MAX),
                1 => json!(1u64 << 25),
                2 => json!(limit - max - 1),
                3 => json!(limit - max),
                4 => json!(limit),
                5 => other,
                6 => json!(offset.saturating_sub(1 + rng.next_u64() % 8)),
                7 => json!(offset + 1 + rng.next_u64() % 8),
                8 => json!(rng.next_u64() % limit),
                _ => json!(1u64 << 32),
            };
        }
        if lies > 0 && rng.next_u64().is_multiple_of(5) {
            mutate(&mut v, &mut rng, &base);
        }
        let bytes = serde_json::to_vec_pretty(&v).unwrap();
        let checked = catch_unwind(AssertUnwindSafe(|| {
            let _ = magichunt::verify::TableReport::check(&bytes, Path::new("lie.json"), false);
            let table = Table::parse(&bytes, Path::new("lie.json")).ok()?;
            let packed = PackedTable::from_table(&table).ok()?;
            let bound: u64 = table.entries.iter().map(|e| 1u64 << e.bits).sum();
            for p in &packed.entries {
                let end = u64::from(p.offset) + u64::from(p.entry.max_index) + 1;
                assert!(end <= bound, "offset {} let in past {bound}", p.offset);
            }
            Some(packed.check().is_ok())
        }));
        let Ok(checked) = checked else {
            fs::write("/tmp/magichunt-fuzz-offsets.json", &bytes).unwrap();
            panic!("offsets {n} panicked; written to /tmp/magichunt-fuzz-offsets.json");
        };
        match checked {
            Some(true) => packed_ok += 1,
            _ => packed_refused += 1,
        }
        if lies == 0 {
            assert_eq!(
                checked,
                Some(true),
                "offsets {n}: the true table is refused"
            );
        }
        if n % (OFFSETS / 16) == 0 {
            offsets_binary += 1;
            fs::write(d.join("lie.json"), &bytes).unwrap();
            for args in [
                vec!["verify", "--file", "lie.json"],
                vec!["export", "--packed", "lie.json", "--format", "c"],
                vec!["compare", "--store", "input.json", "--packed", "lie.json"],
                vec!["pack", "--from", "lie.json", "--steps", "0", "--out", "-"],
            ] {
                let w = env.mh_watched(&args, LIMIT);
                let o = &w.output;
                let why = || format!("offsets {n} {args:?}: {}", sandbox::text(o));
                assert!(matches!(o.status.code(), Some(0..=2)), "{}", why());
                if let Some(kib) = w.peak_kib {
                    assert!(kib < 128 * 1024, "{kib} KiB: {}", why());
                }
                assert_eq!(fs::read(d.join("lie.json")).unwrap(), bytes, "{}", why());
            }
        }
    }
    println!(
        "fuzz beside and offsets: {PLANTS} plants ({held} plain lock files taken, {refused} refused), {FIELDS} table-level mutants ({merged} merged and loaded again; {binary} through merge, {merged_binary} of them then through hunt, verify and compare), {OFFSETS} offset mutants ({packed_ok} hold, {packed_refused} refused; {offsets_binary} through verify, export, compare and pack)"
    );
    assert!(refused >= PLANTS / 2 && held >= 2, "{held} {refused}");
    assert!(
        merged > FIELDS / 5 && binary >= 8 && merged_binary >= 4,
        "{merged} {binary} {merged_binary}"
    );
    assert!(
        packed_ok > 0 && packed_refused > OFFSETS / 4,
        "{packed_ok} {packed_refused}"
    );
}
