//! Squeezing a packed array: overlaps driven out at a fixed size, the size lowered after
//! every fit.
//!
//! The annealing ([`anneal`](super::anneal)) searches orders of the squares, each decoded
//! first-fit; a table whose squares interleave at chosen phases (comb-shaped rooks with
//! bishops in their teeth) is reached by few orders, and the walk does not find them. The
//! squeeze works on the offsets themselves, as strip packers do in two dimensions:
//!
//! 1. From a placement that fits, the array is cut to `size - cut`; a square that now ends
//!    past the cut is moved to its best offset below it, overlapping others.
//! 2. **Local search at the fixed size.** A square that overlaps another is taken out and put
//!    back at the offset where it meets the fewest taken slots, every offset of the array
//!    tried (a word of the square's slot pattern against a word of the array at a time, an
//!    offset given up as soon as it is worse than the best one). A slot that stays
//!    contended when a square cannot move away from it is *penalised* (guided local search):
//!    it costs one more for every square put on it later, so that the search leaves the
//!    region instead of cycling in it.
//! 3. When no slot is written twice the placement fits: it is reported, and the cut is made
//!    again below its end. A cut that finds no fit within its budget of moves is taken back
//!    and halved.
//!
//! Every written slot counts as taken, as in the rest of the packer; a placement is reported
//! only when no two squares write one slot.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::anneal::{Candidate, Placed, Plan};
use crate::search::candidates::splitmix;

/// How long the squeeze runs.
#[derive(Clone, Debug)]
pub struct SqueezeOptions {
    /// Stop after this long.
    pub time: Duration,
    /// Moves at most (`u64::MAX`: as many as fit in `time`); with a bound and a long enough
    /// time, a run is repeatable.
    pub moves: u64,
    /// Seed of the choices.
    pub seed: u64,
}

/// A square's slot pattern as words, from its lowest slot.
#[derive(Clone, Debug)]
struct Bits {
    words: Vec<u64>,
    /// The word indices in the order an offset's cost is summed: spread over the span, so
    /// that a bad offset is given up after a word or two.
    order: Vec<usize>,
    /// The lowest slot it may start at (its lowest index: the offset may not be negative).
    lo: u32,
    span: u32,
}

impl Bits {
    fn of(c: &Candidate) -> Bits {
        let span = c.shape.span();
        let mut words = vec![0u64; (span as usize).div_ceil(64)];
        for &s in c.shape.indices() {
            words[s as usize / 64] |= 1 << (s % 64);
        }
        let n = words.len();
        let mut step = ((n as f64 * 0.618) as usize).max(1);
        while n > 1 && gcd(step, n) != 1 {
            step += 1;
        }
        let mut order: Vec<usize> = (0..n).map(|k| (k * step) % n).collect();
        order.retain(|&w| words[w] != 0);
        Bits {
            words,
            order,
            lo: c.lo,
            span,
        }
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A fixed-size array with squares that may overlap.
struct Board<'a> {
    squares: &'a [Candidate],
    bits: Vec<Bits>,
    size: u32,
    /// Squares writing each slot.
    count: Vec<u8>,
    /// Slots written at least once, and at least twice, as bits (two spare words past the
    /// end, so that a window never reads past the vector).
    taken: Vec<u64>,
    twice: Vec<u64>,
    /// Per slot, its penalty; `penal` marks the slots whose penalty is not zero.
    pen: Vec<u16>,
    penal: Vec<u64>,
    base: Vec<u32>,
    /// Slots written more than once, counted with multiplicity (`sum(max(0, count - 1))`).
    overlap: u64,
}

/// The 64 bits of `v` from bit `p` up.
#[inline]
fn window(v: &[u64], p: usize) -> u64 {
    let (w, s) = (p / 64, p % 64);
    if s == 0 {
        v[w]
    } else {
        v[w] >> s | v[w + 1] << (64 - s)
    }
}

impl<'a> Board<'a> {
    fn new(squares: &'a [Candidate], base: &[u32], size: u32) -> Board<'a> {
        let words = size as usize / 64 + 3;
        let mut b = Board {
            squares,
            bits: squares.iter().map(Bits::of).collect(),
            size,
            count: vec![0; size as usize + 64],
            taken: vec![0; words],
            twice: vec![0; words],
            pen: vec![0; size as usize + 64],
            penal: vec![0; words],
            base: base.to_vec(),
            overlap: 0,
        };
        for k in 0..squares.len() {
            b.add(k);
        }
        b
    }

    fn add(&mut self, k: usize) {
        let base = self.base[k];
        for &i in self.squares[k].shape.indices() {
            let s = (base + i) as usize;
            let c = &mut self.count[s];
            *c = c.saturating_add(1);
            match *c {
                1 => self.taken[s / 64] |= 1 << (s % 64),
                2 => {
                    self.twice[s / 64] |= 1 << (s % 64);
                    self.overlap += 1;
                }
                _ => self.overlap += 1,
            }
        }
    }

    fn remove(&mut self, k: usize) {
        let base = self.base[k];
        for &i in self.squares[k].shape.indices() {
            let s = (base + i) as usize;
            let c = &mut self.count[s];
            *c -= 1;
            match *c {
                0 => self.taken[s / 64] &= !(1 << (s % 64)),
                1 => {
                    self.twice[s / 64] &= !(1 << (s % 64));
                    self.overlap -= 1;
                }
                _ => self.overlap -= 1,
            }
        }
    }

    /// Slots of square `k` (placed) that another square writes too.
    fn clashes(&self, k: usize) -> u32 {
        let b = &self.bits[k];
        let base = self.base[k] as usize;
        b.words
            .iter()
            .enumerate()
            .map(|(w, &x)| (x & window(&self.twice, base + 64 * w)).count_ones())
            .sum()
    }

    /// What putting square `k` (taken out) at `base` costs: the taken slots it meets, each
    /// with its penalty; `None` as soon as that exceeds `bound`.
    #[inline]
    fn cost(&self, k: usize, base: usize, bound: u64) -> Option<u64> {
        let b = &self.bits[k];
        let mut c = 0u64;
        for &w in &b.order {
            let p = base + 64 * w;
            let hit = b.words[w] & window(&self.taken, p);
            if hit == 0 {
                continue;
            }
            c += u64::from(hit.count_ones());
            let mut pen = hit & window(&self.penal, p);
            while pen != 0 {
                c += u64::from(self.pen[p + pen.trailing_zeros() as usize]);
                pen &= pen - 1;
            }
            if c > bound {
                return None;
            }
        }
        Some(c)
    }

    /// Square `k` (taken out) to its cheapest offset, ties broken at random; returns that
    /// cost.
    fn best_base(&self, k: usize, rng: &mut Xoshiro256PlusPlus) -> (u32, u64) {
        let b = &self.bits[k];
        let (lo, hi) = (b.lo, self.size - b.span);
        let mut best = (self.base[k].clamp(lo, hi), u64::MAX);
        let mut ties = 0u64;
        for base in lo..=hi {
            if let Some(c) = self.cost(k, base as usize, best.1) {
                if c < best.1 {
                    best = (base, c);
                    ties = 1;
                } else {
                    ties += 1;
                    if rng.next_u64() % ties == 0 {
                        best.0 = base;
                    }
                }
            }
        }
        best
    }

    /// Raises the penalty of every slot square `k` (placed) shares with another.
    fn penalise(&mut self, k: usize) {
        let base = self.base[k];
        for &i in self.squares[k].shape.indices() {
            let s = (base + i) as usize;
            if self.count[s] > 1 {
                self.pen[s] = self.pen[s].saturating_add(1);
                self.penal[s / 64] |= 1 << (s % 64);
            }
        }
    }

    /// Halves every penalty, so that old ones fade.
    fn fade_penalties(&mut self) {
        for w in 0..self.penal.len() {
            let mut x = self.penal[w];
            while x != 0 {
                let s = w * 64 + x.trailing_zeros() as usize;
                x &= x - 1;
                self.pen[s] /= 2;
                if self.pen[s] == 0 {
                    self.penal[w] &= !(1 << (s % 64));
                }
            }
        }
    }

    fn clear_penalties(&mut self) {
        self.pen.iter_mut().for_each(|p| *p = 0);
        self.penal.iter_mut().for_each(|p| *p = 0);
    }

    /// Highest slot written plus one.
    fn end(&self) -> u32 {
        (0..self.squares.len())
            .map(|k| self.base[k] + self.bits[k].span)
            .max()
            .unwrap_or(0)
    }
}

/// Squeezes the placement `start` (the squares' lowest slots, `squares[k]` at `base[k]`,
/// fitting together) within `opts` or until `stop` is set; calls `on_better` with every
/// smaller placement that fits. Returns the smallest (`start` itself when none is smaller)
/// and the moves made.
///
/// # Panics
/// If `start` has the wrong length or a square starts below its lowest index.
pub fn squeeze(
    squares: &[Candidate],
    start: &[u32],
    opts: &SqueezeOptions,
    stop: &AtomicBool,
    on_better: &mut dyn FnMut(&Placed),
) -> (Placed, u64) {
    let n = squares.len();
    assert_eq!(start.len(), n, "one base per square");
    let placed = |base: &[u32]| -> Placed {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&k| (base[k], k));
        Placed {
            plan: Plan {
                order,
                pick: vec![0; n],
            },
            base: base.to_vec(),
            size: (0..n)
                .map(|k| base[k] + squares[k].shape.span())
                .max()
                .unwrap_or(0),
            used: squares.iter().map(|c| u64::from(c.shape.used())).sum(),
        }
    };
    let mut best = placed(start);
    let widest = squares.iter().map(|c| c.lo + c.shape.span()).max();
    let Some(widest) = widest else {
        return (best, 0);
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(splitmix(opts.seed ^ 0x7371_7565_657a));
    let clock = Instant::now();
    let mut moves = 0u64;
    let mut cut = (best.size / 512).max(1);
    let mut conflicted = Vec::with_capacity(n);
    let fade: u64 = std::env::var("MH_SQ_FADE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    'cuts: while best.size > widest && moves < opts.moves {
        let size = best.size - cut.min(best.size - widest);
        let mut board = Board::new(squares, &best.base, best.size);
        board.size = size;
        // The squares past the cut, widest first, each to its cheapest offset below it.
        let mut out: Vec<usize> = (0..n)
            .filter(|&k| board.base[k] + board.bits[k].span > size)
            .collect();
        out.sort_by_key(|&k| std::cmp::Reverse(board.bits[k].span));
        for &k in &out {
            board.remove(k);
        }
        for &k in &out {
            board.base[k] = board.best_base(k, &mut rng).0;
            board.add(k);
        }
        // Moves until nothing overlaps, within a budget that grows with the squares.
        let budget = moves.saturating_add(400 * n as u64).min(opts.moves);
        let mut last = usize::MAX;
        while board.overlap > 0 {
            if moves >= budget || stop.load(Ordering::Relaxed) || clock.elapsed() >= opts.time {
                if std::env::var_os("MH_SQ_DEBUG").is_some() {
                    eprintln!(
                        "no fit at {size} (cut {cut}): overlap {} after {moves} moves, {:.1}s",
                        board.overlap,
                        clock.elapsed().as_secs_f64()
                    );
                }
                if moves >= budget && cut > 1 && moves < opts.moves {
                    cut /= 2;
                    continue 'cuts;
                }
                break 'cuts;
            }
            moves += 1;
            if moves % 1000 == 0 && std::env::var_os("MH_SQ_DEBUG").is_some() {
                let pens: u64 = board.pen.iter().map(|&p| u64::from(p)).sum();
                eprintln!(
                    "  {moves}: overlap {} conflicted {} pen {pens} {:.1}s",
                    board.overlap,
                    conflicted.len(),
                    clock.elapsed().as_secs_f64()
                );
            }
            if moves % fade == 0 {
                board.fade_penalties();
            }
            conflicted.clear();
            conflicted.extend((0..n).filter(|&k| k != last && board.clashes(k) > 0));
            if conflicted.is_empty() {
                conflicted.push(last);
            }
            let k = conflicted[(rng.next_u64() % conflicted.len() as u64) as usize];
            let before = board.base[k];
            board.remove(k);
            let (to, _) = board.best_base(k, &mut rng);
            board.base[k] = to;
            board.add(k);
            if to == before {
                board.penalise(k);
            }
            last = k;
        }
        if std::env::var_os("MH_SQ_DEBUG").is_some() {
            eprintln!(
                "fit at {size} (cut {cut}) after {moves} moves, {:.1}s",
                clock.elapsed().as_secs_f64()
            );
        }
        debug_assert_eq!(board.overlap, 0);
        board.clear_penalties();
        let end = board.end();
        if end < best.size {
            best = placed(&board.base);
            on_better(&best);
        }
    }
    (best, moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::occupancy::{Occupancy, Shape};

    /// Combs and blocks that interleave: a comb of teeth every `t` slots leaves room for
    /// others between its teeth.
    fn squares() -> Vec<Candidate> {
        (0..20u32)
            .map(|k| {
                let t = 2 + k % 4;
                let shape = if k % 3 == 0 {
                    Shape::from_indices((0..(4 + k % 6)).collect())
                } else {
                    Shape::from_indices((0..(6 + k % 9)).map(|i| i * t).collect())
                };
                Candidate { shape, lo: k % 2 }
            })
            .collect()
    }

    #[test]
    fn squeezing_keeps_a_placement_that_fits_and_never_grows() {
        let sq = squares();
        // The start: every square side by side, no interleaving.
        let mut start = Vec::new();
        let mut at = 0;
        for c in &sq {
            at = at.max(c.lo);
            start.push(at);
            at += c.shape.span();
        }
        for seed in 0..3 {
            let opts = SqueezeOptions {
                time: Duration::from_secs(60),
                moves: 20_000,
                seed,
            };
            let mut reported = Vec::new();
            let (best, _) = squeeze(&sq, &start, &opts, &AtomicBool::new(false), &mut |p| {
                reported.push(p.size);
            });
            assert!(reported.windows(2).all(|w| w[1] < w[0]), "seed {seed}");
            assert!(best.size < at, "seed {seed}: {} from {at}", best.size);
            let mut occ = Occupancy::new();
            for (k, c) in sq.iter().enumerate() {
                assert!(best.base[k] >= c.lo);
                assert!(occ.fits(&c.shape, best.base[k]), "seed {seed}, square {k}");
                occ.place(&c.shape, best.base[k]);
            }
            assert_eq!(occ.end(), best.size);
            // Interleaving packs below the slots' sum of spans by far.
            let used: u32 = sq.iter().map(|c| c.shape.used()).sum();
            assert!(best.size < used + used / 2, "seed {seed}: {}", best.size);
        }
    }
}
