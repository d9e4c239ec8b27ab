//! The trimmed walk's slot table ([`super::trim`]): an attack id per slot, the undo list of
//! the placements on the path to a node, and the same slots as bit sets for the join tests
//! ([`super::join`]).

/// The length of the slot array and of its undo list, a power of two so that a masked index
/// needs no bounds check.
pub(super) const SLOTS: usize = 1 << 13;

/// The slot array and its undo list, behind one pointer.
#[derive(Clone, Debug)]
pub(super) struct Table {
    /// Attack id per slot, 0 when empty.
    pub(super) slots: [u16; SLOTS],
    /// Slots written on the path to the node, to take back.
    pub(super) undo: [u16; SLOTS],
    /// The same slots as bit sets, for the join tests (none when no family has one). They
    /// hold the placements of the undo list's first `synced` entries: brought up to date
    /// only when a test reads them ([`Table::masks_at`]), so that the walk's placements cost
    /// nothing more.
    masks: Option<Masks>,
    synced: usize,
}

impl Table {
    /// An empty table, with bit sets for the join tests when `masks` is given.
    pub(super) fn new(masks: Option<Masks>) -> Box<Table> {
        Box::new(Table {
            slots: [0; SLOTS],
            undo: [0; SLOTS],
            masks,
            synced: 0,
        })
    }

    /// Slot `b` (empty) now holds attack id `a`, written at `undo` in the undo list.
    #[inline(always)]
    pub(super) fn place(&mut self, b: usize, a: u16, undo: usize) {
        self.slots[b] = a;
        self.undo[undo & (SLOTS - 1)] = b as u16;
    }

    /// Empties the slots written at `from..to` in the undo list.
    pub(super) fn take_back(&mut self, from: usize, to: usize) {
        if let Some(m) = self.masks.as_mut() {
            for k in from..self.synced {
                let b = usize::from(self.undo[k & (SLOTS - 1)]) & (SLOTS - 1);
                m.clear(b, self.slots[b]);
            }
            self.synced = self.synced.min(from);
        }
        for k in from..to {
            let b = usize::from(self.undo[k & (SLOTS - 1)]) & (SLOTS - 1);
            self.slots[b] = 0;
        }
    }

    /// The bit sets of the table made by the undo list's first `to` entries, if the table
    /// keeps them.
    #[inline]
    pub(super) fn masks_at(&mut self, to: usize) -> Option<&Masks> {
        let m = self.masks.as_mut()?;
        debug_assert!(self.synced <= to);
        for k in self.synced..to {
            let b = usize::from(self.undo[k & (SLOTS - 1)]) & (SLOTS - 1);
            m.place(b, self.slots[b]);
        }
        self.synced = to;
        Some(m)
    }

    /// Whether every slot is empty, in the array and in the bit sets (the state between
    /// tasks).
    pub(super) fn is_empty(&self) -> bool {
        self.slots.iter().all(|&s| s == 0) && self.masks.as_ref().is_none_or(Masks::is_empty)
    }

    /// Drops the bit sets: the join tests are off.
    #[cfg(test)]
    pub(super) fn drop_masks(&mut self) {
        self.masks = None;
    }
}

/// The slot table as bit sets, kept beside the slot array by the walk's placements and undos:
/// which slots are empty, and which hold each attack id. Slot `b` is bit `b % 64` of word
/// `b / 64`; a table of fewer than 64 slots fills its one word with copies of itself, so that
/// a rotation of the word is one of the table.
#[derive(Clone, Debug)]
pub(super) struct Masks {
    /// Words a bit set has: `2^bits / 64` (at least 1), a power of two.
    words: usize,
    /// `2^bits - 1`.
    pub(super) slot_mask: usize,
    /// The bits of one slot in its word: one, or one in each copy of a small table.
    copies: u64,
    /// Set where the slot is empty (the first `words` words).
    empty: [u64; MOST_WORDS],
    /// Set where the slot holds attack id `a`, at `hold[a]`.
    hold: Vec<[u64; MOST_WORDS]>,
}

/// The words of the largest table's bit sets (12 bits).
const MOST_WORDS: usize = 64;

impl Masks {
    /// An empty table of `2^bits` slots for attack ids `1..=attacks`.
    pub(super) fn new(bits: u32, attacks: u16) -> Masks {
        let words = ((1usize << bits) / 64).max(1);
        debug_assert!(words <= MOST_WORDS);
        let copies = (0..64 >> bits.min(6)).fold(0u64, |c, i| c | 1 << (i << bits.min(6)));
        Masks {
            words,
            slot_mask: (1 << bits) - 1,
            copies,
            empty: [u64::MAX; MOST_WORDS],
            hold: vec![[0; MOST_WORDS]; usize::from(attacks) + 1],
        }
    }

    /// Slot `b` now holds attack id `a`.
    #[inline(always)]
    pub(super) fn place(&mut self, b: usize, a: u16) {
        let (w, bit) = ((b >> 6) & (MOST_WORDS - 1), self.copies << (b & 63));
        self.empty[w] &= !bit;
        self.hold[usize::from(a)][w] |= bit;
    }

    /// Slot `b`, which held attack id `a`, is empty again.
    #[inline(always)]
    pub(super) fn clear(&mut self, b: usize, a: u16) {
        let (w, bit) = ((b >> 6) & (MOST_WORDS - 1), self.copies << (b & 63));
        self.empty[w] |= bit;
        self.hold[usize::from(a)][w] &= !bit;
    }

    /// Whether every slot is empty (the state between tasks).
    pub(super) fn is_empty(&self) -> bool {
        self.empty.iter().all(|&w| w == u64::MAX) && self.hold.iter().flatten().all(|&w| w == 0)
    }

    /// The slots compatible with attack id `a` (empty, or holding `a`) from slot `b` on, 192 of
    /// them, around the table: bit `i` of the pair is slot `b + i`'s.
    #[inline(always)]
    pub(super) fn window(&self, a: u16, b: usize) -> (u128, u64) {
        let hold = &self.hold[usize::from(a)];
        let w0 = (b & self.slot_mask) >> 6;
        let r = (b & 63) as u32;
        let word = |k: usize| {
            let i = (w0 + k) & (self.words - 1) & (MOST_WORDS - 1);
            self.empty[i] | hold[i]
        };
        let (x0, x1, x2, x3) = (word(0), word(1), word(2), word(3));
        let pair = |lo: u64, hi: u64| ((u128::from(hi) << 64 | u128::from(lo)) >> r) as u64;
        let (y0, y1, y2) = (pair(x0, x1), pair(x1, x2), pair(x2, x3));
        (u128::from(y1) << 64 | u128::from(y0), y2)
    }
}
