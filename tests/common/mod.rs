//! Helpers shared by the integration tests: running the binary and reading what it printed;
//! for the export tests, the fixture store and its layouts, the reference records every
//! compiled lookup is checked against, and compilers.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use magichunt::attacks::Occupancies;
use magichunt::exhaust::campaign::residue::{block_len, blocks};
use magichunt::exhaust::campaign::shard::Shard;
use magichunt::exhaust::Plan;
use magichunt::export::{render, Format, Layout, Options, Source, Tables};
use magichunt::layout::PackedTable;
use magichunt::question::Formula;
use magichunt::store::Store;
use magichunt::table::Table;
use magichunt::Bitboard;
use magichunt::{Piece, Square, Target};
use serde_json::{json, Value};

/// The fixture store of the golden files.
pub const FIXTURE: &str = "tests/golden/store.json";

/// The fixture store of the black-magic golden files: six published black magics.
pub const FIXTURE_BLACK: &str = "tests/golden/store-black.json";

/// The fixture store, loaded once.
pub fn fixture() -> &'static Store {
    static STORE: OnceLock<Store> = OnceLock::new();
    STORE.get_or_init(|| Store::load(Path::new(FIXTURE)).expect("fixture loads"))
}

/// The fixture store of `formula`, loaded once.
pub fn fixture_of(formula: Formula) -> (&'static Store, &'static str) {
    static STORE: OnceLock<Store> = OnceLock::new();
    match formula {
        Formula::Plain => (fixture(), FIXTURE),
        Formula::Black => (
            STORE.get_or_init(|| Store::load(Path::new(FIXTURE_BLACK)).expect("fixture loads")),
            FIXTURE_BLACK,
        ),
    }
}

/// The published black magics (Annuss and Fiekas 2017), a packed table of one shared array.
pub const BLACK_PACKED: &str = "results/published/black-magics-annuss-fiekas-2017.json";

/// The tables in `layout` of the fixture of `formula`, built once per test binary (the fill
/// and the packer are the slow part).
pub fn tables(layout: Layout, formula: Formula) -> &'static Tables {
    static TABLES: [OnceLock<Tables>; 8] = [const { OnceLock::new() }; 8];
    let k = layout as usize * 2 + formula as usize;
    TABLES[k].get_or_init(|| Tables::build(fixture_of(formula).0, layout, formula).expect("builds"))
}

/// The fixture's plain tables in `layout` (packed or indexed: the library's packer, once per
/// test binary) written as their JSON export, a table `export --packed` reads. Tests that
/// build engines against such a table take it from here rather than run the packer in the
/// binary once more for each export (20,000 annealing steps, seconds each time);
/// `export_layouts::cli_layout_formula_and_packed_give_the_librarys_bytes` checks that the
/// binary's `--layout packed` gives the library's bytes.
pub fn fixture_table_file(layout: Layout) -> &'static str {
    static FILES: [OnceLock<String>; 4] = [const { OnceLock::new() }; 4];
    FILES[layout as usize].get_or_init(|| {
        assert!(layout.shared(), "{layout:?} is not one shared table");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let path = dir.join(format!("fixture-{}.json", layout.name()));
        // Written beside and renamed: test binaries run at once write the same bytes.
        let tmp = tempfile::NamedTempFile::new_in(dir).unwrap();
        let json = render_tables(
            Format::Json,
            tables(layout, Formula::Plain),
            &Options::default(),
        );
        std::fs::write(tmp.path(), json).unwrap();
        tmp.persist(&path).unwrap();
        path.to_str().unwrap().to_string()
    })
}

/// The fixture's plain tables at 2^bits or tight.
pub fn layout(tight: bool) -> &'static Tables {
    tables(
        if tight { Layout::Tight } else { Layout::Fancy },
        Formula::Plain,
    )
}

/// Our smallest packed table, shipped in `results/` (plain magics of ours and a pool's).
pub const OUR_PACKED: &str = "results/packed-pool.json";

/// The packed table at `path`, checked, as the export lays it out.
fn packed_file(path: &str) -> Tables {
    let packed = PackedTable::from_table(&Table::read(Path::new(path)).unwrap()).unwrap();
    let fill = packed.check().expect("the shipped table is valid");
    Tables::from_packed(
        &packed,
        fill,
        &Store::new(),
        format!("the packed table {}", magichunt::export::file_name(path)),
    )
    .unwrap()
}

/// The published black packed table, checked, as the export lays it out.
pub fn black_packed() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| packed_file(BLACK_PACKED))
}

/// Our shipped smallest packed table, checked, as the export lays it out.
pub fn our_packed() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| packed_file(OUR_PACKED))
}

/// Our shipped one-byte table (the indexed layout), shipped in `results/`.
pub const OUR_INDEXED: &str = "results/packed-indexed.json";

/// Our shipped one-byte table, checked, as the export lays it out.
pub fn our_indexed() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let table = Table::read(Path::new(OUR_INDEXED)).unwrap();
        let indexed = magichunt::layout::IndexedTable::from_table(&table).unwrap();
        let fill = indexed.check().expect("the shipped table is valid");
        Tables::from_indexed(
            &indexed,
            fill,
            &Store::new(),
            format!(
                "the indexed table {}",
                magichunt::export::file_name(OUR_INDEXED)
            ),
        )
        .unwrap()
    })
}

/// `tables` exported with `options`, with the source line of its fixture (or, for the
/// published black table, of that file).
pub fn render_tables(format: Format, tables: &Tables, options: &Options) -> String {
    let source = if std::ptr::eq(tables, black_packed()) {
        let packed =
            PackedTable::from_table(&Table::read(Path::new(BLACK_PACKED)).unwrap()).unwrap();
        let fill = packed.check().unwrap();
        Source::of_packed(&packed, &fill, BLACK_PACKED)
    } else {
        let (store, path) = fixture_of(tables.formula);
        Source::of(store, path)
    };
    render(format, tables, &source, options)
}

/// The fixture exported with `options`.
pub fn export_with(format: Format, tight: bool, options: &Options) -> String {
    render_tables(format, layout(tight), options)
}

/// The fixture exported without a prefix.
pub fn export(format: Format, tight: bool, with_lookup: bool) -> String {
    export_with(
        format,
        tight,
        &Options {
            with_lookup,
            ..Options::default()
        },
    )
}

/// Runs the binary.
pub fn magichunt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .env("MAGICHUNT_CACHE", "off")
        .args(args)
        .output()
        .expect("binary runs")
}

/// Every subset of every square, with bits outside the mask added (they must not matter):
/// records of (piece << 6 | square, occupancy, expected attacks), little-endian u64s.
pub fn reference_data(dir: &Path) -> (PathBuf, usize) {
    let mut bytes = Vec::new();
    let mut noise = 0x9e37_79b9_7f4a_7c15u64;
    let mut n = 0;
    for t in Target::all() {
        let occ = Occupancies::new(t);
        let key = (t.piece as u64) << 6 | t.square.index() as u64;
        for &(sub, att) in &occ.pairs {
            noise ^= noise << 13;
            noise ^= noise >> 7;
            noise ^= noise << 17;
            let outside = noise & !occ.mask.0 & !Bitboard::from(t.square).0;
            for (o, a) in [(sub.0, att.0), (sub.0 | outside, att.0)] {
                bytes.extend_from_slice(&key.to_le_bytes());
                bytes.extend_from_slice(&o.to_le_bytes());
                bytes.extend_from_slice(&a.to_le_bytes());
                n += 1;
            }
        }
    }
    let path = dir.join("reference.bin");
    std::fs::write(&path, bytes).unwrap();
    (path, n)
}

/// The tool `var` names (or `default`), if it runs. Under CI (`CI` set, as `.ci/run` runs)
/// a missing tool fails the test instead of skipping it.
pub fn tool(var: &str, default: &str) -> Option<String> {
    let name = std::env::var(var).unwrap_or_else(|_| default.to_string());
    let found = Command::new(&name).arg("--version").output().is_ok();
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{name} not found under CI (set {var})"
        );
        println!("skipped: {name} not found (set {var})");
    }
    found.then_some(name)
}

/// Runs `cmd` and asserts it succeeds, showing its output if not.
pub fn run_ok(cmd: &mut Command) -> Output {
    let o = cmd.output().expect("runs");
    assert!(
        o.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// A harness prints `records` and the sizes every layout names (see [`check_run_tables`]);
/// check them against the layout.
pub fn check_run(o: &Output, records: usize, tight: bool) {
    check_run_tables(o, records, layout(tight));
}

/// A harness prints `records ATTACK_TABLE_SIZE ROOK_TABLE_START ROOK_TABLE_SIZE
/// BISHOP_TABLE_START BISHOP_TABLE_SIZE`, the names every layout defines; check them
/// against `tables`.
pub fn check_run_tables(o: &Output, records: usize, tables: &Tables) {
    let out = String::from_utf8_lossy(&o.stdout);
    let want = format!(
        "{records} {} {} {} {} {}",
        tables.total(),
        tables.start(Piece::Rook),
        tables.size(Piece::Rook),
        tables.start(Piece::Bishop),
        tables.size(Piece::Bishop)
    );
    assert_eq!(out.trim(), want);
}

/// A Rust program that looks up every record of a data file (key, occupancy, attacks; 24
/// bytes each) in a generated `magics` module (`$p` its prefix) and then prints the count and
/// the sizes every layout names, in the order [`check_run_tables`] reads them.
pub const RUST_HARNESS: &str = r#"
mod magics;
fn main() {
    let bytes = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    magics::$pinit_attack_tables();
    let mut n = 0u64;
    for rec in bytes.chunks_exact(24) {
        let w = |i: usize| u64::from_le_bytes(rec[i * 8..i * 8 + 8].try_into().unwrap());
        let (key, occ, want) = (w(0), w(1), w(2));
        let sq = (key & 63) as usize;
        let got = if key >> 6 == 0 { magics::$prook_attacks(sq, occ) } else { magics::$pbishop_attacks(sq, occ) };
        if got != want {
            eprintln!("piece {} square {sq} occ {occ:#x}: got {got:#x}, want {want:#x}", key >> 6);
            std::process::exit(1);
        }
        n += 1;
    }
    println!("{n} {} {} {} {} {}", magics::$PATTACK_TABLE_SIZE, magics::$PROOK_TABLE_START, magics::$PROOK_TABLE_SIZE, magics::$PBISHOP_TABLE_START, magics::$PBISHOP_TABLE_SIZE);
}
"#;

/// The line a C harness prints after its `n` records (an unsigned long): the count and the
/// sizes, as [`RUST_HARNESS`] prints them.
pub const C_PRINT_SIZES: &str = r#"printf("%lu %lu %lu %lu %lu %lu\n", n, (unsigned long)$PATTACK_TABLE_SIZE, (unsigned long)$PROOK_TABLE_START, (unsigned long)$PROOK_TABLE_SIZE, (unsigned long)$PBISHOP_TABLE_START, (unsigned long)$PBISHOP_TABLE_SIZE);"#;

/// The warnings strict C and C++ engines build with.
pub const STRICT: [&str; 7] = [
    "-Wall",
    "-Wextra",
    "-Wshadow",
    "-Wcast-qual",
    "-Wmissing-declarations",
    "-pedantic",
    "-Werror",
];

/// A language to compile a C source as: compiler, standard, and whether it is C++.
#[derive(Clone, Debug)]
pub struct Lang {
    /// `cc` or `c++` (or `$CC` / `$CXX`).
    pub compiler: String,
    /// `-std=` value.
    pub std: &'static str,
    /// Compile `.c` files as C++ (`-x c++`).
    pub cxx: bool,
}

/// C99, C11 and C++17, if `cc` and `c++` run.
pub fn langs() -> Option<[Lang; 3]> {
    let cc = tool("CC", "cc")?;
    let cxx = tool("CXX", "c++")?;
    let lang = |compiler: &String, std, cxx| Lang {
        compiler: compiler.clone(),
        std,
        cxx,
    };
    Some([
        lang(&cc, "c99", false),
        lang(&cc, "c11", false),
        lang(&cxx, "c++17", true),
    ])
}

/// Compiles `src` to an object file beside it with the strict warnings and `-O1`.
pub fn compile(lang: &Lang, src: &Path) -> PathBuf {
    let obj = src.with_extension(format!("{}.o", lang.std.replace('+', "x")));
    let mut cmd = Command::new(&lang.compiler);
    cmd.arg(format!("-std={}", lang.std))
        .args(STRICT)
        .arg("-O1");
    if lang.cxx {
        cmd.args(["-x", "c++"]);
    }
    run_ok(cmd.arg("-c").arg(src).arg("-o").arg(&obj));
    obj
}

/// Links `objs` into `exe` with `linker`.
pub fn link(linker: &str, objs: &[PathBuf], exe: &Path) {
    run_ok(Command::new(linker).args(objs).arg("-o").arg(exe));
}

/// Compiles `src` as a library with `-D warnings`; stderr must be empty.
pub fn rustc_lib(rustc: &str, dir: &Path, src: &Path) {
    let o = run_ok(
        Command::new(rustc)
            .args(["--edition", "2021", "--crate-type", "lib", "-D", "warnings"])
            .arg("--out-dir")
            .arg(dir)
            .arg(src),
    );
    assert!(
        o.stderr.is_empty(),
        "{}: {}",
        src.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Compiles `main` (beside `magics.rs`) into an executable with `-D warnings`.
pub fn rustc_bin(rustc: &str, dir: &Path, main: &str) -> PathBuf {
    std::fs::write(dir.join("main.rs"), main).unwrap();
    let exe = dir.join("harness");
    run_ok(
        Command::new(rustc)
            .args([
                "--edition",
                "2021",
                "-C",
                "opt-level=1",
                "-D",
                "warnings",
                "-o",
            ])
            .arg(&exe)
            .arg(dir.join("main.rs")),
    );
    exe
}

/// What the binary printed: its standard output, then its standard error.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The exit status and both streams, for an assertion's message.
pub fn report(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The version in an export's header changes with every release; the golden files say VERSION.
fn normalize(text: &str) -> String {
    text.replace(
        &format!("magichunt {}", env!("CARGO_PKG_VERSION")),
        "magichunt VERSION",
    )
}

/// Compares `actual` (its version normalized) with the golden file `tests/golden/NAME`, or
/// writes it there under `MAGICHUNT_BLESS=1`. A mismatch names the first line that differs,
/// shows both versions of it, and adds `hint` (what to look for in the diff).
pub fn check_golden(name: &str, actual: &str, hint: &str) {
    let path = PathBuf::from("tests/golden").join(name);
    let actual = normalize(actual);
    if std::env::var_os("MAGICHUNT_BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (MAGICHUNT_BLESS=1 writes it)", path.display()));
    if actual == expected {
        return;
    }
    let at = match actual
        .lines()
        .zip(expected.lines())
        .enumerate()
        .find(|(_, (a, e))| a != e)
    {
        Some((i, (got, want))) => format!("line {}\n  got:  {got}\n  want: {want}", i + 1),
        None => format!(
            "its end: {} lines against the golden file's {} (or a final newline)",
            actual.lines().count(),
            expected.lines().count()
        ),
    };
    panic!(
        "{} differs at {at}\nMAGICHUNT_BLESS=1 rewrites it ({hint})",
        path.display()
    );
}

/// A finished part of an exhaustive search of `piece square bits` in one part, with a
/// residue a lazy forger would write: every block at the least its first level tests, and
/// digests of zeros. It fits its record; only re-running a block shows it false.
pub fn forged_part(piece: Piece, square: &str, bits: u32) -> Value {
    let t = Target::new(piece, square.parse::<Square>().unwrap());
    let plan = Plan::new(t, bits);
    let len = Shard::WHOLE.len(plan.tasks());
    let b = block_len(len);
    let sums: Vec<u64> = (0..blocks(len))
        .map(|k| (len - k * b).min(b) * plan.first_level_nodes())
        .collect();
    let mut ex = json!({"piece": piece.name(), "square": square, "bits": bits, "shards": 1,
        "parts": [{"shard": 1, "done": true, "magics": 0, "nodes": sums.iter().sum::<u64>(),
            "seconds": 1.0, "residue": {"scheme": "magichunt-residue 1", "block": b,
            "blocks": sums.iter().map(|n| format!("{:016x}:{n}", 0)).collect::<Vec<_>>()}}]});
    if plan.task_bits() != 18 {
        ex["task_bits"] = json!(plan.task_bits());
    }
    ex
}
