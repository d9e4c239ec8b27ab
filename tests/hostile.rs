//! The hostile cases of issue 14 ("nothing lost, nothing injected"), each run through the
//! binary: every one of them lost data, ran two writers or panicked before its fix.

use std::process::{Command, Output};

fn mh(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_magichunt"))
        .args(args)
        .output()
        .expect("runs")
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2 with exactly one line on stderr containing `want`.
fn refused(o: &Output, want: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", text(o));
    let err = stderr(o);
    assert_eq!(err.trim_end().lines().count(), 1, "{}", text(o));
    assert!(err.contains(want), "wanted {want:?}: {}", text(o));
}

// 6. Durations and counters past what the clock and the integers hold.

#[test]
fn durations_past_a_century_are_refused_not_panicked_on() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.json");
    let s = store.to_str().unwrap();
    let long = "106751991167301d";
    let exhaust = [
        "--piece", "bishop", "--square", "d8", "--bits", "4", "--store", s, "--time", long,
    ];
    let mut prove = exhaust.to_vec();
    prove.extend(["--method", "sat"]);
    refused(
        &mh(&["hunt", "--store", s, "--time", long]),
        "at most 100 years",
    );
    // exhaust and prove parse it in clap, whose message may run on (see --help).
    for args in [
        [&["exhaust"][..], &exhaust].concat(),
        [&["prove"][..], &prove].concat(),
    ] {
        let o = mh(&args);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o));
        assert!(stderr(&o).contains("at most 100 years"), "{}", text(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", text(&o));
    }
    assert!(!store.exists());
}
