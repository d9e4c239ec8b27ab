//! Interleaving: the squares kept at explicit offsets, a few at a time taken out and put
//! back, so that a square may stay where no first-fit order would put it.
//!
//! The first-fit decoder of [`anneal`](super::anneal) puts every square at the lowest offset
//! where it fits among the squares placed before it. A comb-shaped magic (a rook whose slots
//! come in runs with holes between) then lands at the first phase that fits, which is rarely
//! the phase that leaves its holes to the squares that would fill them. The white record
//! (Annuss 2017) is such a table: sorted by offset and placed first-fit in that order, its
//! magics need 96,891 entries, not its 88,772; 15 of its squares sit past their first fit
//! (rook b8 by 27 slots, b7 by 1,253), and each of those shifts decides what fits after it.
//!
//! This search (ruin and recreate) works on the offsets themselves:
//!
//! 1. **Ruin**: take out a few squares: those whose lowest slot lies in a random window of
//!    the array (64 to 16,384 slots wide, at most 12 squares), or the square that ends highest
//!    and a few others.
//! 2. **Recreate**: put them back one by one, in a random order (or the widest first), each at
//!    the lowest offset where it fits among all the others, which stay where they are; now and
//!    then at the next fit after it, or with another of its magics.
//! 3. **Accept** by simulated annealing on the sum of every square's end (its highest slot
//!    plus one) plus the array size times the number of squares: squares sink, and the top
//!    of the array empties; the temperature falls from `hot` to 1 over the run.
//!
//! The result is never larger than the start. Like the annealing, it treats every written
//! slot as taken (two squares never share a slot here); the table it makes is checked exactly
//! by [`fill`](super::fill).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::anneal::{Candidate, Placed, Plan};
use super::occupancy::Occupancy;
use crate::search::candidates::splitmix;

/// How long and how the interleaving runs.
#[derive(Clone, Debug)]
pub struct InterleaveOptions {
    /// Moves at most (the temperature falls over them when no time is given).
    pub moves: u64,
    /// Stop after this long; the temperature falls over it when given.
    pub time: Option<Duration>,
    /// Seed of the choices.
    pub seed: u64,
    /// Starting temperature, in entries of the sum of the ends.
    pub hot: f64,
}

impl Default for InterleaveOptions {
    fn default() -> InterleaveOptions {
        InterleaveOptions {
            moves: 100_000,
            time: None,
            seed: 1,
            hot: 2_000.0,
        }
    }
}

/// Squares one ruin takes out at most.
const RUIN: usize = 12;

/// The squares, where they are, and the array they fill.
struct State<'a> {
    squares: &'a [Vec<Candidate>],
    pick: Vec<usize>,
    base: Vec<u32>,
    occ: Occupancy,
    /// Sum over the squares of their end (base plus span).
    ends: u64,
}

impl State<'_> {
    fn end(&self, k: usize) -> u64 {
        u64::from(self.base[k] + self.squares[k][self.pick[k]].shape.span())
    }

    fn take(&mut self, k: usize) {
        self.ends -= self.end(k);
        self.occ.remove(&self.squares[k][self.pick[k]].shape, self.base[k]);
    }

    fn put(&mut self, k: usize, pick: usize, base: u32) {
        (self.pick[k], self.base[k]) = (pick, base);
        self.occ.place(&self.squares[k][pick].shape, base);
        self.ends += self.end(k);
    }

    /// The energy annealed: the sum of the ends plus the size once per square.
    fn energy(&self) -> f64 {
        self.ends as f64 + self.squares.len() as f64 * f64::from(self.occ.end())
    }
}

/// Interleaves from `start` (a placement that fits) within `opts` or until `stop` is set;
/// calls `on_better` with every smaller placement found. Returns the smallest (the start when
/// nothing smaller was found) and the moves made.
///
/// # Panics
/// If `start` places a square outside its candidates or overlaps.
pub fn interleave(
    squares: &[Vec<Candidate>],
    start: &Placed,
    opts: &InterleaveOptions,
    stop: &AtomicBool,
    on_better: &mut dyn FnMut(&Placed),
) -> (Placed, u64) {
    let n = squares.len();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(splitmix(opts.seed ^ 0x696e_7465_726c));
    let mut st = State {
        squares,
        pick: start.plan.pick.clone(),
        base: start.base.clone(),
        occ: Occupancy::new(),
        ends: 0,
    };
    for k in 0..n {
        st.put(k, st.pick[k], st.base[k]);
    }
    let mut best = start.clone();
    let clock = Instant::now();
    let mut moves = 0u64;
    let mut progress = 0.0f64;
    let mut ruined: Vec<(usize, usize, u32)> = Vec::with_capacity(RUIN);
    let mut by_base: Vec<usize> = (0..n).collect();
    while moves < opts.moves && n > 1 {
        if moves.is_multiple_of(64) {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let by_moves = moves as f64 / opts.moves as f64;
            progress = match opts.time {
                Some(t) => {
                    let by_time = clock.elapsed().as_secs_f64() / t.as_secs_f64().max(1e-9);
                    if by_time >= 1.0 {
                        break;
                    }
                    by_time.max(by_moves)
                }
                None => by_moves,
            };
        }
        moves += 1;
        let temp = opts.hot * (1.0 / opts.hot).powf(progress);
        let before = st.energy();
        // Ruin.
        ruined.clear();
        let r = rng.next_u64();
        if r % 4 == 0 {
            let top = (0..n).max_by_key(|&k| st.end(k)).unwrap_or(0);
            ruined.push((top, st.pick[top], st.base[top]));
            for _ in 0..(r >> 8) % 4 {
                let k = (rng.next_u64() % n as u64) as usize;
                if ruined.iter().all(|x| x.0 != k) {
                    ruined.push((k, st.pick[k], st.base[k]));
                }
            }
        } else {
            by_base.sort_by_key(|&k| st.base[k]);
            let width = 64u32 << ((r >> 8) % 9);
            let from = (rng.next_u64() % u64::from(st.occ.end().max(1))) as u32;
            let at = by_base.partition_point(|&k| st.base[k] < from);
            for &k in by_base[at..].iter().take(RUIN) {
                if st.base[k] >= from.saturating_add(width) {
                    break;
                }
                ruined.push((k, st.pick[k], st.base[k]));
            }
            if ruined.is_empty() {
                continue;
            }
        }
        for &(k, _, _) in &ruined {
            st.take(k);
        }
        // Recreate.
        let order = rng.next_u64();
        if order % 2 == 0 {
            ruined.sort_by_key(|&(k, p, _)| std::cmp::Reverse(squares[k][p].shape.span()));
        } else {
            for i in (1..ruined.len()).rev() {
                ruined.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
            }
        }
        for &(k, p, _) in &ruined {
            let r = rng.next_u64();
            let p = if squares[k].len() > 1 && r % 5 == 0 {
                ((r >> 8) % squares[k].len() as u64) as usize
            } else {
                p
            };
            let c = &squares[k][p];
            let mut b = st.occ.first_fit(&c.shape, c.lo, u64::MAX);
            if r >> 16 & 7 == 0 {
                b = b.and_then(|b| st.occ.first_fit(&c.shape, b + 1, u64::MAX));
            }
            st.put(k, p, b.expect("an unbounded array always fits"));
        }
        // Accept or undo.
        let worse = st.energy() - before;
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if worse <= 0.0 || u < (-worse / temp).exp() {
            if st.occ.end() < best.size {
                let mut order: Vec<usize> = (0..n).collect();
                order.sort_by_key(|&k| (st.base[k], k));
                best = Placed {
                    plan: Plan {
                        order,
                        pick: st.pick.clone(),
                        delay: vec![0; n],
                    },
                    base: st.base.clone(),
                    size: st.occ.end(),
                    used: st.occ.used(),
                };
                if std::env::var_os("MH_DEBUG").is_some() { eprintln!("debug: {} at move {moves}, {:?}, temp {temp:.0}", best.size, clock.elapsed()); }
                on_better(&best);
            }
        } else {
            for &(k, _, _) in &ruined {
                st.take(k);
            }
            for &(k, p, b) in &ruined {
                st.put(k, p, b);
            }
        }
    }
    (best, moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::anneal::decode;
    use crate::layout::occupancy::{Occupancy, Shape};

    fn square(slots: &[u32]) -> Vec<Candidate> {
        vec![Candidate {
            shape: Shape::from_indices(slots.to_vec()),
            lo: 0,
        }]
    }

    /// Every order of `0..n`.
    fn orders(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut all = Vec::new();
        for o in orders(n - 1) {
            for at in 0..=o.len() {
                let mut p = o.clone();
                p.insert(at, n - 1);
                all.push(p);
            }
        }
        all
    }

    /// The placement is real: every square's picked shape at its base, none overlapping, the
    /// size the highest slot written plus one.
    fn assert_fits(squares: &[Vec<Candidate>], p: &Placed) {
        let mut occ = Occupancy::new();
        for (k, c) in squares.iter().enumerate() {
            let shape = &c[p.plan.pick[k]].shape;
            assert!(occ.fits(shape, p.base[k]), "square {k}");
            occ.place(shape, p.base[k]);
        }
        assert_eq!(occ.end(), p.size);
        assert_eq!(occ.used(), p.used);
    }

    /// The smallest array the squares (one magic each) fit in, by trying every offset of
    /// every square below each size in turn.
    fn smallest(squares: &[Vec<Candidate>]) -> u32 {
        fn fits(shapes: &[&Shape], k: usize, occ: &mut Occupancy, limit: u32) -> bool {
            if k == shapes.len() {
                return true;
            }
            (0..limit.saturating_sub(shapes[k].span() - 1)).any(|b| {
                if !occ.fits(shapes[k], b) {
                    return false;
                }
                occ.place(shapes[k], b);
                let ok = fits(shapes, k + 1, occ, limit);
                occ.remove(shapes[k], b);
                ok
            })
        }
        let shapes: Vec<&Shape> = squares.iter().map(|c| &c[0].shape).collect();
        (1..)
            .find(|&limit| fits(&shapes, 0, &mut Occupancy::new(), limit))
            .unwrap()
    }

    /// A comb and three pairs that fit around and into it with one hole, where first-fit in
    /// every order leaves two: the comb must sit four slots up, where no lowest fit puts it.
    #[test]
    fn interleaving_finds_a_comb_placement_first_fit_misses_in_every_order() {
        let squares = vec![
            square(&[0, 2, 4, 5]), // the comb
            square(&[0, 3]),
            square(&[0, 3]),
            square(&[0, 3]),
        ];
        let smallest = smallest(&squares);
        let first_fit = orders(squares.len())
            .into_iter()
            .map(|order| {
                let plan = Plan {
                    order,
                    pick: vec![0; squares.len()],
                    delay: vec![0; squares.len()],
                };
                decode(&squares, &plan).size
            })
            .min()
            .unwrap();
        assert!(first_fit > smallest, "first-fit reaches {first_fit}");
        let start = decode(
            &squares,
            &Plan {
                order: (0..squares.len()).collect(),
                pick: vec![0; squares.len()],
                delay: vec![0; squares.len()],
            },
        );
        for seed in 0..8 {
            let opts = InterleaveOptions {
                moves: 20_000,
                seed,
                ..InterleaveOptions::default()
            };
            let mut reported = vec![start.size];
            let (best, _) = interleave(&squares, &start, &opts, &AtomicBool::new(false), &mut |p| {
                reported.push(p.size);
            });
            assert_fits(&squares, &best);
            assert_eq!(best.size, smallest, "seed {seed}");
            assert!(reported.windows(2).all(|w| w[1] < w[0]), "{reported:?}");
        }
    }

    /// On squares with two magics each, the result fits, picks a magic each square has, and is
    /// never larger than its start.
    #[test]
    fn interleaving_with_choices_never_ends_above_its_start() {
        let squares: Vec<Vec<Candidate>> = (0..20u32)
            .map(|k| {
                let comb = Shape::from_indices((0..(6 + k % 5)).map(|i| i * (2 + k % 3)).collect());
                let block = Shape::from_indices((0..(4 + k % 7)).collect());
                vec![
                    Candidate { shape: comb, lo: 0 },
                    Candidate { shape: block, lo: 0 },
                ]
            })
            .collect();
        let start = decode(
            &squares,
            &Plan {
                order: (0..squares.len()).collect(),
                pick: vec![0; squares.len()],
                delay: vec![0; squares.len()],
            },
        );
        for seed in 0..4 {
            let opts = InterleaveOptions {
                moves: 5_000,
                seed,
                ..InterleaveOptions::default()
            };
            let (best, _) =
                interleave(&squares, &start, &opts, &AtomicBool::new(false), &mut |_| {});
            assert_fits(&squares, &best);
            assert!(best.size <= start.size, "seed {seed}");
        }
    }
}
