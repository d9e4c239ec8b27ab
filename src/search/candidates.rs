//! Candidate families: named, switchable ways to draw magics.

use std::fmt;
use std::str::FromStr;

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::error::ParseError;
use crate::piece::Target;

/// A way of drawing candidate magics.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// AND of three uniform draws: about 8 of 64 bits set. The classic choice for
    /// popcount-bit targets.
    Sparse,
    /// One uniform draw.
    Uniform,
    /// OR of two uniform draws: about 48 of 64 bits set. Reduced-bit magics are often dense.
    Dense,
}

impl Family {
    /// Every family, in a fixed order.
    pub const ALL: [Family; 3] = [Family::Sparse, Family::Uniform, Family::Dense];

    /// The family's name as written in stores and on the command line.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Family::Sparse => "sparse",
            Family::Uniform => "uniform",
            Family::Dense => "dense",
        }
    }

    /// Draws one candidate.
    #[inline]
    pub fn draw(&self, rng: &mut Xoshiro256PlusPlus) -> u64 {
        match self {
            Family::Sparse => rng.next_u64() & rng.next_u64() & rng.next_u64(),
            Family::Uniform => rng.next_u64(),
            Family::Dense => rng.next_u64() | rng.next_u64(),
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Family {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Family, ParseError> {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                let names: Vec<&str> = Family::ALL.iter().map(Family::name).collect();
                ParseError::Other(format!(
                    "invalid family '{s}' (expected one of {})",
                    names.join(", ")
                ))
            })
    }
}

/// The random stream of one task: a function of (seed, target, bits, round) only, never of a
/// thread, so a seeded run is repeatable whatever the scheduling.
#[must_use]
pub fn task_rng(seed: u64, target: Target, bits: u32, round: u64) -> Xoshiro256PlusPlus {
    let key = (target.piece as u64) << 8 | target.square.index() as u64;
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    for word in [key, u64::from(bits), round] {
        h = splitmix(h ^ word);
    }
    Xoshiro256PlusPlus::seed_from_u64(h)
}

/// SplitMix64 finaliser: a strong 64-bit mix.
#[must_use]
pub const fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
