//! Issue 23, point 4: one output guard. Every command that writes a file goes through
//! `magichunt::fs::output::write`, which follows symlinks and refuses to replace a magichunt store
//! or a packed table the command was not asked to update; each is run here through the
//! binary. Before the fix `pack --store S --out S` replaced the store with a packed table,
//! and `prove --emit-cnf S` replaced it with a CNF.

use crate::sandbox;

use std::fs;
use std::path::PathBuf;

use sandbox::{refused, s, stdout, text, Env};

#[test]
fn pack_never_replaces_its_store_nor_another() {
    let env = Env::new();
    let store = env.path("best.json");
    fs::copy("tests/golden/store.json", &store).unwrap();
    let other = env.path("other.json");
    fs::copy("tests/golden/store.json", &other).unwrap();
    let before = fs::read(&store).unwrap();
    for out in [&store, &other] {
        let o = env.mh(&[
            "pack",
            "--store",
            s(&store),
            "--out",
            s(out),
            "--steps",
            "0",
        ]);
        refused(&o, &["refusing to overwrite", "magichunt store"]);
        assert_eq!(fs::read(out).unwrap(), before);
    }
    // Through a symlink too.
    let link = env.path("link.json");
    std::os::unix::fs::symlink(&store, &link).unwrap();
    let o = env.mh(&[
        "pack",
        "--store",
        s(&store),
        "--out",
        s(&link),
        "--steps",
        "0",
    ]);
    refused(&o, &["refusing to overwrite"]);
    assert_eq!(fs::read(&store).unwrap(), before);
    // A packed table it writes, it may write again (and resume from).
    let packed = env.path("packed.json");
    for _ in 0..2 {
        let o = env.mh(&[
            "pack",
            "--store",
            s(&store),
            "--out",
            s(&packed),
            "--steps",
            "0",
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    let o = env.mh(&[
        "pack",
        "--from",
        s(&packed),
        "--out",
        s(&packed),
        "--steps",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}

#[test]
fn emit_cnf_never_replaces_a_store_or_a_packed_table() {
    let env = Env::new();
    let store = env.path("best.json");
    fs::copy("tests/golden/store.json", &store).unwrap();
    let packed = env.path("packed.json");
    fs::copy("results/packed.json", &packed).unwrap();
    let link = env.path("link.cnf");
    std::os::unix::fs::symlink(&store, &link).unwrap();
    let q = [
        "prove", "--piece", "bishop", "--square", "b8", "--bits", "3",
    ];
    for (out, what) in [
        (&store, "magichunt store"),
        (&link, "magichunt store"),
        (&packed, "packed table"),
    ] {
        let before = fs::read(out).unwrap();
        let mut args = q.to_vec();
        args.extend(["--emit-cnf", s(out)]);
        refused(&env.mh(&args), &["refusing to overwrite", what]);
        assert_eq!(fs::read(out).unwrap(), before);
    }
    // Its own --store, even before it exists.
    let fresh = env.path("fresh.json");
    let mut args = q.to_vec();
    args.extend(["--store", s(&fresh), "--emit-cnf", s(&fresh)]);
    refused(&env.mh(&args), &["refusing to overwrite"]);
    assert!(!fresh.exists());
    // Any other file: written, and written again.
    let cnf = env.path("b8.cnf");
    for _ in 0..2 {
        let mut args = q.to_vec();
        args.extend(["--emit-cnf", s(&cnf)]);
        let o = env.mh(&args);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    }
    assert!(fs::read_to_string(&cnf).unwrap().contains("p cnf"));
}

#[test]
fn export_and_merge_never_replace_a_packed_table() {
    let env = Env::new();
    let store = env.path("best.json");
    fs::copy("tests/golden/store.json", &store).unwrap();
    let packed = env.path("packed.json");
    fs::copy("results/packed.json", &packed).unwrap();
    let before = fs::read(&packed).unwrap();
    let o = env.mh(&[
        "export",
        "--format",
        "json",
        "--store",
        s(&store),
        "--out",
        s(&packed),
    ]);
    refused(&o, &["refusing to overwrite", "packed table"]);
    let o = env.mh(&["merge", s(&store), "--out", s(&packed)]);
    refused(&o, &["packed table"]);
    // A hunt given the packed table as its store loads it, but never saves over it.
    let o = env.mh(&[
        "hunt",
        "--quiet",
        "--threads",
        "1",
        "--time",
        "1s",
        "--store",
        s(&packed),
    ]);
    assert_ne!(o.status.code(), Some(0), "{}", text(&o));
    assert!(text(&o).contains("packed table"), "{}", text(&o));
    assert_eq!(fs::read(&packed).unwrap(), before);
}

#[test]
fn man_pages_follow_links_but_never_replace_a_store() {
    let env = Env::new();
    let store = env.path("best.json");
    fs::copy("tests/golden/store.json", &store).unwrap();
    let before = fs::read(&store).unwrap();
    let dir = env.path("man");
    fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(&store, dir.join("magichunt-hunt.1")).unwrap();
    let o = env.mh(&["man", "--dir", s(&dir)]);
    refused(&o, &["refusing to overwrite", "magichunt-hunt.1"]);
    assert_eq!(fs::read(&store).unwrap(), before);
    // A link to an earlier page is followed: the page it names is replaced.
    fs::remove_file(dir.join("magichunt-hunt.1")).unwrap();
    let old = env.path("old-page.1");
    fs::write(&old, ".TH old").unwrap();
    std::os::unix::fs::symlink(&old, dir.join("magichunt-hunt.1")).unwrap();
    let o = env.mh(&["man", "--dir", s(&dir)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(fs::read_to_string(&old).unwrap().contains("magichunt-hunt"));
    assert!(fs::symlink_metadata(dir.join("magichunt-hunt.1"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn completions_write_nothing_but_stdout() {
    let env = Env::new();
    let o = env.mh(&["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    assert!(stdout(&o).contains("magichunt"));
    assert_eq!(fs::read_dir(env.dir.path()).unwrap().count(), 0);
}

/// Every option of every command that names a file, by what the command does with it. A new
/// one fails this test until it is listed: an output goes through the output guard
/// (`magichunt::fs::output::write`) and gets a test here that it refuses to replace a store or a
/// packed table. `bench` (`--json` included) and `completions` name no file: they write on
/// stdout only (see `completions_write_nothing_but_stdout`).
#[test]
fn every_option_naming_a_file_is_a_known_input_or_a_guarded_output() {
    use clap::CommandFactory;
    // Read only (`audit` writes the user's cache of checks, through the guard).
    let reads = [
        "audit --store",
        "compare --packed",
        "compare --store",
        "export --packed",
        "export --store",
        // Magics another walk listed, each verified before the store takes it.
        "exhaust --add-found",
        // A table of starting magics: the pool saved never replaces it (pool.rs
        // a_pool_hunt_never_replaces_its_starts).
        "hunt --starts",
        "merge INPUTS",
        "pack --from",
        "pack --pool",
        "pack --store",
        "show --store",
        "verify --file",
        "verify --store",
    ];
    // Written, each through the guard, with the tests that show it.
    let writes = [
        // A store: may replace a store, never a packed table (a hunt given a packed table:
        // export_and_merge_never_replace_a_packed_table; a symlinked store: hostile.rs).
        "exhaust --store",
        "hunt --store",
        "prove --store",
        // export_and_merge_never_replace_a_packed_table; export.rs out_never_replaces_a_store;
        // hostile.rs an_export_through_a_symlink_keeps_the_link.
        "export --out",
        // export_and_merge_never_replace_a_packed_table; an existing --out store is merged
        // in, never overwritten (exhaust.rs, hostile.rs).
        "merge --out",
        "pack --out",       // pack_never_replaces_its_store_nor_another
        "prove --emit-cnf", // emit_cnf_never_replaces_a_store_or_a_packed_table
        "man --dir",        // man_pages_follow_links_but_never_replace_a_store
        // compare.rs the_picture_never_overwrites_a_store
        "compare --svg",
        // pool.rs a_pool_hunt_never_replaces_a_store_or_a_packed_table
        "hunt --pool",
    ];
    let cmd = magichunt::cli::Opts::command();
    let mut found = Vec::new();
    for sub in cmd.get_subcommands() {
        for arg in sub.get_arguments() {
            if arg.get_value_parser().type_id() == std::any::TypeId::of::<PathBuf>() {
                let name = arg.get_long().map_or_else(
                    || arg.get_id().as_str().to_uppercase(),
                    |l| format!("--{l}"),
                );
                found.push(format!("{} {name}", sub.get_name()));
            }
        }
    }
    found.sort();
    let mut known: Vec<String> = reads.iter().chain(&writes).map(|s| s.to_string()).collect();
    known.sort();
    assert_eq!(found, known);
    for sub in ["bench", "completions"] {
        assert!(!found.iter().any(|f| f.starts_with(&format!("{sub} "))));
    }
}
