//! `magichunt completions` and `magichunt man`: shell completions and manual pages, generated
//! from the clap definitions so they never drift from the command line (as fd and ripgrep do).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Opts, Outcome};
use crate::fs::output::{self, Writes};

/// Arguments of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, powershell or elvish.
    shell: Shell,
}

/// Arguments of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write magichunt.1 and one page per subcommand (magichunt-hunt.1, ...) into this folder
    /// instead of printing magichunt.1 on stdout.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Runs `completions`: the script for the shell on stdout.
pub(super) fn completions(args: &CompletionsArgs) -> anyhow::Result<Outcome> {
    let mut cmd = Opts::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "magichunt", &mut out);
    super::out::document(&out)?;
    Ok(Outcome::Success)
}

/// Writes the page of `cmd` and of each of its visible subcommands into `dir`.
fn write_pages(cmd: &clap::Command, dir: &std::path::Path) -> anyhow::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir)?;
    }
    let man = clap_mangen::Man::new(cmd.clone());
    let mut text = Vec::new();
    man.render(&mut text)?;
    let path = dir.join(man.get_filename());
    output::write(&path, &text, Writes::Other, &[])
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Runs `man`: the page on stdout, or every page into `--dir`.
pub(super) fn man(args: &ManArgs) -> anyhow::Result<Outcome> {
    let cmd = Opts::command();
    match &args.dir {
        Some(dir) => {
            crate::fs::create_dir(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            // One page per command (as clap_mangen::generate_to names them), each through the
            // output guard: a page name that is a link to a store does not replace the store.
            let mut cmd = cmd.disable_help_subcommand(true);
            cmd.build();
            write_pages(&cmd, dir)?;
            crate::say!("manual pages written to {}", dir.display());
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut out)?;
            super::out::document(&out)?;
        }
    }
    Ok(Outcome::Success)
}
