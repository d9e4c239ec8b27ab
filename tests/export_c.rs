//! The generated C header as engines use it: one table shared by several translation units
//! (one initialises, two look up), compiled as C99, C11 and C++17 (and C and C++ mixed) under
//! the strict warnings, every blocker subset of every square checked against the slow
//! reference at 2^bits and tight, and for black magics (fancy, tight, and packed into one
//! shared table: the fixture packed by the packer and the published black magics); and
//! `--prefix` beside an engine's own `rook_attacks`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    black_packed, check_run_tables, compile, export_with, langs, layout, link, our_indexed,
    our_packed, reference_data, render_tables, run_ok, tables, Lang, STRICT,
};
use magichunt::export::{Format, Layout, Options, Prefix, Tables};
use magichunt::question::Formula;

/// Declarations of the two lookup units, C linkage so C and C++ units link together.
const HARNESS_H: &str = r#"#ifndef HARNESS_H
#define HARNESS_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
uint64_t harness_rook(int square, uint64_t occupied);
uint64_t harness_bishop(int square, uint64_t occupied);
#ifdef __cplusplus
}
#endif
#endif
"#;

/// An engine's own globals under the names an export without a prefix would take; included
/// before the header by every unit of the prefixed programs.
const ENGINE_H: &str = r#"#ifndef ENGINE_H
#define ENGINE_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
extern uint64_t rook_attacks[64][4096];
extern uint64_t bishop_attacks[64][512];
struct magic_entry { int engine_field; };
void init_attack_tables(void);
#define ROOK_TABLE_SIZE 4096
#define ROOK_MAGICS engine_rook_magics
#define MAGICHUNT_MAGICS_H
#define MAGICHUNT_IMPLEMENTATION
#ifdef __cplusplus
}
#endif
#endif
"#;

/// The unit that holds the definitions, initialises and reads the reference records.
const MAIN_C: &str = r#"#include <stdio.h>
@ENGINE@#define $IIMPLEMENTATION
#include "magics.h"
#include "harness.h"
@ENGINE_DEFS@
int main(int argc, char **argv)
{
    FILE *f;
    uint64_t rec[3];
    unsigned long n = 0;
    if (argc < 2 || !(f = fopen(argv[1], "rb")))
        return 2;
    $pinit_attack_tables();
    while (fread(rec, sizeof rec, 1, f) == 1) {
        int sq = (int)(rec[0] & 63);
        uint64_t got = (rec[0] >> 6) == 0 ? harness_rook(sq, rec[1]) : harness_bishop(sq, rec[1]);
        if (got != rec[2]) {
            fprintf(stderr, "piece %d square %d occ %llx: got %llx\n", (int)(rec[0] >> 6), sq,
                    (unsigned long long)rec[1], (unsigned long long)got);
            return 1;
        }
        n++;
    }
    fclose(f);
    @PRINT_SIZES@
    return 0;
}
"#;

/// The engine's definitions of its own globals (prefixed programs only).
const ENGINE_DEFS: &str = r"uint64_t rook_attacks[64][4096];
uint64_t bishop_attacks[64][512];
void init_attack_tables(void) { rook_attacks[0][0] = 0; }
";

/// A lookup unit: `@PIECE@` is rook or bishop.
const LOOKUP_C: &str = r#"@ENGINE@#include "magics.h"
#include "harness.h"
uint64_t harness_@PIECE@(int square, uint64_t occupied)
{
    return $p@PIECE@_attacks(square, occupied);
}
"#;

/// Writes the three units for `prefix` into `dir`; with a prefix they carry the engine's
/// clashing names.
fn write_units(dir: &Path, prefix: &Prefix) -> [PathBuf; 3] {
    let engine = if prefix.is_empty() {
        ""
    } else {
        "#include \"engine.h\"\n"
    };
    let defs = if prefix.is_empty() { "" } else { ENGINE_DEFS };
    std::fs::write(dir.join("harness.h"), HARNESS_H).unwrap();
    std::fs::write(dir.join("engine.h"), ENGINE_H).unwrap();
    let sizes = common::C_PRINT_SIZES;
    let fill = |t: &str| {
        prefix
            .apply(&t.replace("@PRINT_SIZES@", sizes))
            .replace("@ENGINE@", engine)
            .replace("@ENGINE_DEFS@", defs)
    };
    let main = dir.join("main.c");
    std::fs::write(&main, fill(MAIN_C)).unwrap();
    let [rook, bishop] = ["rook", "bishop"].map(|piece| {
        let p = dir.join(format!("{piece}.c"));
        std::fs::write(&p, fill(LOOKUP_C).replace("@PIECE@", piece)).unwrap();
        p
    });
    [main, rook, bishop]
}

/// Builds the three-unit program (main as `main_lang`, the lookups as `lookup_lang`) and
/// checks every record.
fn build_and_check(
    dir: &Path,
    prefix: &Prefix,
    tables: &Tables,
    main_lang: &Lang,
    lookup_lang: &Lang,
) {
    let options = Options {
        with_lookup: true,
        prefix: prefix.clone(),
        ..Options::default()
    };
    std::fs::write(
        dir.join("magics.h"),
        render_tables(Format::C, tables, &options),
    )
    .unwrap();
    let [main, rook, bishop] = write_units(dir, prefix);
    let objs = vec![
        compile(main_lang, &main),
        compile(lookup_lang, &rook),
        compile(lookup_lang, &bishop),
    ];
    let linker = if lookup_lang.cxx {
        lookup_lang
    } else {
        main_lang
    };
    let exe = dir.join("harness");
    link(&linker.compiler, &objs, &exe);
    let (data, records) = reference_data(dir);
    let label = format!(
        "{}+{} prefix '{}' {} {}",
        main_lang.std,
        lookup_lang.std,
        prefix.as_str(),
        tables.layout,
        tables.formula
    );
    println!("{label}");
    check_run_tables(&run_ok(Command::new(&exe).arg(&data)), records, tables);
}

/// Every language alone, C and C++ mixed, and the prefix among an engine's own names.
fn three_units(tables: &Tables) {
    let Some([c99, c11, cxx17]) = langs() else {
        return;
    };
    let mh = Prefix::new("mh_").unwrap();
    let none = Prefix::none();
    let runs = [
        (&none, &c99, &c99),
        (&none, &c11, &c11),
        (&none, &cxx17, &cxx17),
        (&none, &c11, &cxx17),
        (&mh, &c99, &c99),
        (&mh, &cxx17, &c11),
    ];
    for (prefix, main_lang, lookup_lang) in runs {
        let dir = tempfile::tempdir().unwrap();
        build_and_check(dir.path(), prefix, tables, main_lang, lookup_lang);
    }
}

#[test]
fn one_table_across_three_units_at_2_pow_bits() {
    three_units(layout(false));
}

#[test]
fn one_table_across_three_units_tight() {
    three_units(layout(true));
}

/// The fixture packed on the spot: one table shared by rooks and bishops.
#[test]
fn one_shared_table_packed() {
    let t = tables(Layout::Packed, Formula::Plain);
    assert!(t.packed.is_some());
    three_units(t);
}

/// Black magics: the key is `occ | ~mask`; a tight black square's slots start at its
/// `offset + min_index`.
#[test]
fn black_magics_fancy_tight_and_packed() {
    for t in [
        tables(Layout::Fancy, Formula::Black),
        tables(Layout::Tight, Formula::Black),
        tables(Layout::Packed, Formula::Black),
    ] {
        three_units(t);
    }
}

/// The published black magics (Annuss and Fiekas 2017) as `--packed` exports them: the
/// 87,988-entry shared table.
#[test]
fn published_black_packed_table() {
    let t = black_packed();
    assert_eq!(t.total(), 87_988);
    three_units(t);
}

/// Our smallest packed table (`results/packed-pool.json`, below 80,000 entries as README says)
/// as `--packed` exports it.
#[test]
fn our_smallest_packed_table() {
    let t = our_packed();
    assert!(t.total() < 80_000, "{} entries", t.total());
    three_units(t);
}

#[test]
fn one_byte_ids_indexed_from_the_fixture_and_our_shipped_table() {
    three_units(tables(Layout::Indexed, Formula::Plain));
    three_units(our_indexed());
}

#[test]
fn without_lookup_the_header_declares_and_one_unit_defines() {
    let Some(langs) = langs() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("magics.h"),
        export_with(Format::C, false, &Options::default()),
    )
    .unwrap();
    let a = dir.path().join("a.c");
    std::fs::write(
        &a,
        "#define MAGICHUNT_IMPLEMENTATION\n#include \"magics.h\"\n#include \"magics.h\"\nint main(void) { return ROOK_MAGICS[0].shift == 52 ? 0 : 1; }\n",
    )
    .unwrap();
    let b = dir.path().join("b.c");
    std::fs::write(&b, "#include \"magics.h\"\nint b_size(void);\nint b_size(void) { return ROOK_TABLE_SIZE > 0 && BISHOP_MAGICS[63].offset > 0; }\n").unwrap();
    for lang in &langs {
        let exe = dir.path().join("prog");
        link(
            &lang.compiler,
            &[compile(lang, &a), compile(lang, &b)],
            &exe,
        );
        run_ok(&mut Command::new(&exe));
    }
    // A forgotten definition is a link error, not a silent empty table.
    let c = dir.path().join("c.c");
    std::fs::write(
        &c,
        "#include \"magics.h\"\nint main(void) { return (int)ROOK_MAGICS[0].shift; }\n",
    )
    .unwrap();
    let o = Command::new(&langs[0].compiler)
        .arg(compile(&langs[0], &c))
        .arg("-o")
        .arg(dir.path().join("none"))
        .output()
        .unwrap();
    assert!(!o.status.success(), "linked without the definitions");
}

/// Every macro the prefixed header defines starts with `MH_`, every symbol its units define
/// or use starts with `mh_` or `MH_`, and a unit can include it beside the unprefixed export.
#[test]
fn a_prefixed_header_names_nothing_outside_its_prefix() {
    let Some([c99, _, cxx17]) = langs() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mh = Options {
        with_lookup: true,
        prefix: Prefix::new("mh_").unwrap(),
        ..Options::default()
    };
    std::fs::write(d.join("magics.h"), export_with(Format::C, true, &mh)).unwrap();
    let plain = Options {
        with_lookup: true,
        ..Options::default()
    };
    std::fs::write(d.join("plain.h"), export_with(Format::C, true, &plain)).unwrap();

    // Macros: preprocess with the implementation section on, against a unit of stdint only.
    let macros = |src: &str| -> std::collections::BTreeSet<String> {
        let p = d.join("m.c");
        std::fs::write(&p, src).unwrap();
        let o = run_ok(
            Command::new(&c99.compiler)
                .args(["-std=c99", "-dM", "-E"])
                .arg(&p),
        );
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("#define "))
            .map(|l| l.split([' ', '(']).next().unwrap().to_string())
            .collect()
    };
    let base = macros("#include <stdint.h>\n");
    let with = macros("#define MH_IMPLEMENTATION\n#include \"magics.h\"\n");
    let new: Vec<&String> = with.difference(&base).collect();
    assert!(new.len() >= 5, "{new:?}");
    for m in &new {
        // Upper-case macros, and the two table aliases in the table's own lower case.
        assert!(
            m.starts_with("MH_") || ["mh_rook_table", "mh_bishop_table"].contains(&m.as_str()),
            "macro {m} outside the prefix"
        );
    }

    // Symbols, defined and used, of a unit with the definitions and the lookups.
    let unit = d.join("u.c");
    std::fs::write(
        &unit,
        "#define MH_IMPLEMENTATION\n#include \"magics.h\"\n#ifdef __cplusplus\nextern \"C\"\n#endif\nuint64_t mh_test_use(int s);\nuint64_t mh_test_use(int s) { return mh_rook_attacks(s, 0) | mh_bishop_attacks(s, 0); }\n",
    )
    .unwrap();
    for lang in [&c99, &cxx17] {
        let obj = compile(lang, &unit);
        let Some(nm) = common::tool("NM", "nm") else {
            return;
        };
        let o = run_ok(Command::new(&nm).arg("-g").arg(&obj));
        let text = String::from_utf8_lossy(&o.stdout);
        let symbols: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_whitespace().last())
            .collect();
        assert!(symbols.contains(&"mh_init_attack_tables"), "{text}");
        assert!(symbols.contains(&"MH_ROOK_MAGICS"), "{text}");
        for s in symbols {
            assert!(
                s.starts_with("mh_") || s.starts_with("MH_"),
                "{} symbol {s}",
                lang.std
            );
        }
    }

    // Both exports in one unit: different guards, names and implementation macros.
    let both = d.join("both.c");
    std::fs::write(
        &both,
        "#define MAGICHUNT_IMPLEMENTATION\n#define MH_IMPLEMENTATION\n#include \"plain.h\"\n#include \"magics.h\"\n\
         int main(void)\n{\n    int s;\n    init_attack_tables();\n    mh_init_attack_tables();\n    for (s = 0; s < 64; s++)\n        if (rook_attacks(s, 0) != mh_rook_attacks(s, 0) || bishop_attacks(s, 0) != mh_bishop_attacks(s, 0))\n            return 1;\n    return 0;\n}\n",
    )
    .unwrap();
    for lang in [&c99, &cxx17] {
        let exe = d.join("both");
        link(&lang.compiler, &[compile(lang, &both)], &exe);
        run_ok(&mut Command::new(&exe));
    }
    // The strict flags are really on: a shadowed global fails the build.
    let shadow = d.join("shadow.c");
    std::fs::write(
        &shadow,
        "int x;\nint f(int x);\nint f(int x) { { int x = 1; return x; } }\n",
    )
    .unwrap();
    let o = Command::new(&c99.compiler)
        .arg("-std=c99")
        .args(STRICT)
        .arg("-c")
        .arg(&shadow)
        .arg("-o")
        .arg(d.join("shadow.o"))
        .output()
        .unwrap();
    assert!(
        !o.status.success(),
        "-Wshadow -Werror let a shadowed name through"
    );
}
