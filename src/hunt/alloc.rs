//! Sharing a target's time among candidate families by what has paid.
//!
//! The payoff of a family for a target at some bits is its magics found per candidate
//! examined, pooled over the target and its neighbours (same piece, king-distance one) at the
//! same reduction (bits below their popcount): reduced-bit magics are rare, so a single target
//! rarely has evidence of its own, and neighbouring squares have similar masks. Counts, not
//! seconds, keep a seeded run reproducible; a family's share is
//! `(1 - EXPLORE) * rate / sum(rates) + EXPLORE / families`, so none starves, and tasks follow
//! the shares exactly by stride scheduling (the family whose pass is smallest runs next).

use std::collections::HashMap;

use crate::piece::Target;

/// Fraction of a target's time shared equally among all its families, whatever they paid.
pub const EXPLORE: f64 = 0.2;

/// Candidates a family counts as having examined before any evidence, with one find: a
/// prior that keeps one lucky find from taking all the time at once.
const PRIOR_TRIED: f64 = 4.0e6;

/// Magics found and candidates examined, per (target, reduction, family).
#[derive(Clone, Debug, Default)]
pub struct Payoff {
    counts: HashMap<(Target, u32, String), (u64, u64)>,
}

impl Payoff {
    /// No evidence yet.
    #[must_use]
    pub fn new() -> Payoff {
        Payoff::default()
    }

    /// Records that `family` examined `tried` candidates for `target` at `reduction` bits
    /// below its popcount and found `found` magics.
    pub fn record(&mut self, target: Target, reduction: u32, family: &str, tried: u64, found: u64) {
        let c = self
            .counts
            .entry((target, reduction, family.to_string()))
            .or_default();
        c.0 += tried;
        c.1 += found;
    }

    /// (candidates examined, magics found) of `family` pooled over `target` and its
    /// neighbours at `reduction`.
    #[must_use]
    pub fn pooled(&self, target: Target, reduction: u32, family: &str) -> (u64, u64) {
        let (f0, r0) = (target.square.file(), target.square.rank());
        let mut sum = (0, 0);
        for ((t, r, f), c) in &self.counts {
            if t.piece != target.piece || *r != reduction || f != family {
                continue;
            }
            let (df, dr) = (t.square.file() - f0, t.square.rank() - r0);
            if df.abs() <= 1 && dr.abs() <= 1 {
                sum.0 += c.0;
                sum.1 += c.1;
            }
        }
        sum
    }

    /// The share of time each of `families` gets on `target` at `reduction`; they sum to one.
    #[must_use]
    pub fn shares(&self, target: Target, reduction: u32, families: &[String]) -> Vec<f64> {
        if families.is_empty() {
            return Vec::new();
        }
        let rates: Vec<f64> = families
            .iter()
            .map(|f| {
                let (tried, found) = self.pooled(target, reduction, f);
                (found as f64 + 1.0) / (tried as f64 + PRIOR_TRIED)
            })
            .collect();
        let total: f64 = rates.iter().sum();
        let k = families.len() as f64;
        rates
            .iter()
            .map(|r| (1.0 - EXPLORE) * r / total + EXPLORE / k)
            .collect()
    }
}

/// Stride scheduling over a target's families: picks follow the given shares exactly, in a
/// deterministic order.
#[derive(Clone, Debug, Default)]
pub struct Stride {
    pass: Vec<f64>,
}

impl Stride {
    /// A scheduler for `n` families.
    #[must_use]
    pub fn new(n: usize) -> Stride {
        Stride { pass: vec![0.0; n] }
    }

    /// The family to run next, given the current shares (one per family).
    ///
    /// # Panics
    /// If `shares` is empty or its length differs from the family count.
    pub fn pick(&mut self, shares: &[f64]) -> usize {
        assert_eq!(shares.len(), self.pass.len(), "one share per family");
        let mut best = 0;
        for i in 1..self.pass.len() {
            if self.pass[i] < self.pass[best] {
                best = i;
            }
        }
        self.pass[best] += 1.0 / shares[best].max(1e-9);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Piece;

    fn t(sq: &str) -> Target {
        Target::new(Piece::Rook, sq.parse().unwrap())
    }

    #[test]
    fn equal_shares_without_evidence_and_more_to_what_paid() {
        let fams: Vec<String> = ["sparse", "dense"].map(String::from).to_vec();
        let mut p = Payoff::new();
        let s = p.shares(t("a1"), 1, &fams);
        assert!((s[0] - 0.5).abs() < 1e-12 && (s[1] - 0.5).abs() < 1e-12);
        // Dense paid on a neighbour at the same reduction; sparse examined as many for nothing.
        p.record(t("b2"), 1, "dense", 40_000_000, 5);
        p.record(t("b2"), 1, "sparse", 40_000_000, 0);
        let s = p.shares(t("a1"), 1, &fams);
        assert!(s[1] > 0.75 && s[0] >= EXPLORE / 2.0, "{s:?}");
        // Not a neighbour, or another reduction: no evidence for a1.
        assert!((p.shares(t("h8"), 1, &fams)[0] - 0.5).abs() < 1e-12);
        assert!((p.shares(t("a1"), 2, &fams)[0] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn stride_follows_shares() {
        let mut s = Stride::new(3);
        let shares = [0.5, 0.25, 0.25];
        let mut n = [0; 3];
        for _ in 0..400 {
            n[s.pick(&shares)] += 1;
        }
        assert_eq!(n, [200, 100, 100]);
    }
}
