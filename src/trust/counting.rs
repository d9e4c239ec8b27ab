//! The store a counting command (`compare`, `export`, `show`) reads, with its proofs vetted.

use std::borrow::Cow;

use crate::locate::{LocateError, Reading};
use crate::progress::Progress;
use crate::store::{Counting, Store};

/// Failing checks named one by one before the rest are counted.
const SHOWN: usize = 3;

/// Loads the store `from` for counting: a store file's proofs have their evidence checked
/// ([`super::vet`], with the user's cache), each failing check said to `progress`; the
/// built-in table's proofs are not checked here (its certificates are not built in), so they
/// count as claimed. The count takes checked proofs only, or every recorded proof with
/// `count_claimed`. A missing file is an empty store.
///
/// # Errors
/// When the store cannot be loaded.
pub fn load_counting(
    from: &Reading,
    count_claimed: bool,
    progress: &mut dyn Progress,
) -> Result<Cow<'static, Store>, LocateError> {
    let mut store = from.load()?;
    if let Reading::File(path) = from {
        if path.exists() {
            crate::locate::note_behind(path, &store, progress);
            let mut cache = super::Cache::open();
            let vetted = super::vet_file(store.to_mut(), path, &mut cache);
            let shown = path.display();
            // A store copied away from its certificates (the user's store started from the
            // built-in table) would list dozens: the first few, then how many more.
            for p in vetted.problems.iter().take(SHOWN) {
                progress.note(&format!(
                    "magichunt: {shown}: a proof does not hold, so it is not counted: {p}"
                ));
            }
            if vetted.problems.len() > SHOWN {
                progress.note(&format!(
                    "magichunt: {shown}: {} more proofs do not hold and are not counted (`magichunt audit --store {shown}` names each)",
                    vetted.problems.len() - SHOWN,
                ));
            }
            // Not a failure: the proofs were made elsewhere, and their evidence is there.
            if let Some((q, why)) = vetted.absent.first() {
                progress.note(&format!(
                    "magichunt: {shown}: {} SAT proofs have no certificate beside the store, so they count as claimed ({q}: {why}{}); a checkout's results/proofs/ holds the shipped ones",
                    vetted.absent.len(),
                    if vetted.absent.len() > 1 { ", ..." } else { "" }
                ));
            }
        }
    }
    if count_claimed {
        store.to_mut().set_counting(Counting::Claimed);
    }
    Ok(store)
}
