//! The per-target scratchpad: pairs built once, stamped slots, an allocation-free trial.

use crate::attacks::Occupancies;
use crate::magic;
use crate::piece::Target;

/// Everything a trial needs for one (target, bits), built once; a trial then only stamps
/// slots, never clears them.
#[derive(Clone, Debug)]
pub struct Scratchpad {
    target: Target,
    bits: u32,
    mask: u64,
    occ: Vec<u64>,
    att: Vec<u64>,
    stamp: Vec<u32>,
    slot: Vec<u64>,
    trial: u32,
}

impl Scratchpad {
    /// A scratchpad for `target` at `bits` index bits (1 to 12).
    ///
    /// # Panics
    /// If `bits` is not 1 to 12.
    #[must_use]
    pub fn new(target: Target, bits: u32) -> Scratchpad {
        assert!((1..=12).contains(&bits), "bits {bits}");
        let o = Occupancies::new(target);
        Scratchpad {
            target,
            bits,
            mask: o.mask.0,
            occ: o.pairs.iter().map(|p| p.0 .0).collect(),
            att: o.pairs.iter().map(|p| p.1 .0).collect(),
            stamp: vec![0; 1 << bits],
            slot: vec![0; 1 << bits],
            trial: 0,
        }
    }

    /// The target.
    #[must_use]
    pub fn target(&self) -> Target {
        self.target
    }

    /// Index bits.
    #[must_use]
    pub fn bits(&self) -> u32 {
        self.bits
    }

    /// The relevant mask.
    #[must_use]
    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// Whether `magic` is valid: exactly [`magic::verify`]'s semantics (constructive collisions
    /// allowed), without building anything.
    pub fn try_magic(&mut self, magic: u64) -> bool {
        self.trial = self.trial.wrapping_add(1);
        if self.trial == 0 {
            self.stamp.fill(0);
            self.trial = 1;
        }
        for (&o, &a) in self.occ.iter().zip(&self.att) {
            let i = magic::index(o, self.mask, magic, self.bits);
            if self.stamp[i] != self.trial {
                self.stamp[i] = self.trial;
                self.slot[i] = a;
            } else if self.slot[i] != a {
                return false;
            }
        }
        true
    }
}
