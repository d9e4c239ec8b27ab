//! The integration tests, as one test binary: each file beside this one is a module of it.
//!
//! One binary, not one per file: the library and the shared helpers are linked once, the
//! tables that several files pack (`common::tables`) are packed once, and the harness runs the
//! tests of every file side by side instead of one file after another. Run one file's tests
//! with a filter on its module, e.g. `cargo test --release --test integration export::`.

mod common;
mod sandbox;

mod anywhere;
mod check_store;
mod cli_verify;
mod compare;
mod count;
mod doc_commands;
mod docs;
mod estimate;
mod exhaust;
mod export;
mod export_c;
mod export_layouts;
mod export_names;
mod hostile;
mod hostile_files;
mod hostile_outputs;
mod hunt;
mod imports;
mod json;
mod layouts;
mod output_guard;
mod pool;
mod prove;
mod results_page;
mod shipped_store;
mod trust;
mod trust_fuzz;
mod trust_inputs;
mod yardstick;
