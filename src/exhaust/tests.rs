//! The exhaustive search against brute force over whole periods.

use super::*;
use crate::magic;
use crate::{Piece, Square};

fn target(p: Piece, s: &str) -> Target {
    Target::new(p, s.parse::<Square>().unwrap())
}

/// A real target's pairs moved `up` squares up the board: the same problem (which subsets
/// must not share a slot) with a smaller period, small enough for brute force.
fn shifted(t: Target, up: u32) -> (u64, Vec<(u64, u64)>) {
    let o = Occupancies::new(t);
    assert!(o.mask.0.leading_zeros() >= up, "{t} cannot move up {up}");
    let pairs = o.pairs.iter().map(|p| (p.0 .0 << up, p.1 .0)).collect();
    (o.mask.0 << up, pairs)
}

/// The highest bit count the shifted-mask tests walk for `mask`: 9 on short periods, 7 on
/// those above 16 bits, where 8 and 9 bits make two in five values a magic (1.4 million of
/// bishop c8's 2^22 at 8 bits) and cost half the test while deciding nothing the short
/// periods' 8 and 9 bits (bishop d8's) and the long periods' 7 do not.
fn dense_cap(mask: u64) -> u32 {
    if 64 - mask.trailing_zeros() > 16 {
        7
    } else {
        9
    }
}

/// The definition, pair by pair, for any instance.
fn valid(pairs: &[(u64, u64)], bits: u32, m: u64) -> bool {
    let mask = pairs.iter().fold(0, |a, p| a | p.0);
    let mut slots = std::collections::HashMap::new();
    pairs.iter().all(|&(occ, att)| {
        let i = crate::magic::index(occ, mask, m, bits);
        *slots.entry(i).or_insert(att) == att
    })
}

/// Every m of the period, tested one by one with a stamped table.
fn brute_force(mask: u64, pairs: &[(u64, u64)], bits: u32) -> Vec<u64> {
    let period_bits = 64 - mask.trailing_zeros();
    let mut stamp = vec![0u64; 1 << bits];
    let mut slot = vec![0u64; 1 << bits];
    let mut found = Vec::new();
    for m in 0..1u64 << period_bits {
        let trial = m + 1;
        let ok = pairs.iter().all(|&(occ, att)| {
            let i = crate::magic::index(occ, mask, m, bits);
            if stamp[i] != trial {
                stamp[i] = trial;
                slot[i] = att;
                true
            } else {
                slot[i] == att
            }
        });
        if ok {
            found.push(m);
        }
    }
    found
}

#[test]
fn levels_cover_the_period_and_every_subset() {
    for t in Target::all() {
        let plan = Plan::new(t, 9.min(t.piece.max_bits()));
        let o = Occupancies::new(t);
        assert_eq!(plan.period_bits(), 64 - o.mask.0.trailing_zeros(), "{t}");
        assert_eq!(plan.levels.first().unwrap().lo, 0);
        assert_eq!(plan.levels.last().unwrap().hi, plan.period_bits());
        for w in plan.levels.windows(2) {
            assert_eq!(w[0].hi, w[1].lo, "{t}");
        }
        let placed: usize = plan.levels.iter().map(|l| l.subsets.len()).sum();
        assert_eq!(
            placed + 1,
            o.pairs.len(),
            "{t}: every subset but the empty one"
        );
    }
}

/// Every magic and the tally of `plan` by `searcher`, task by task.
fn run_all(plan: &Plan, mut s: Searcher<'_>) -> (Vec<u64>, Tally) {
    let stop = AtomicBool::new(false);
    s.collect_magics();
    let mut total = Tally::default();
    for t in 0..plan.tasks() {
        total.add(&s.run_task(t, &stop).expect("never stopped"));
    }
    let mut found = s.collected().to_vec();
    found.sort_unstable();
    (found, total)
}

#[test]
fn counts_match_brute_force_on_shifted_bishop_masks() {
    let mut nonzero = 0;
    let mut zero = 0;
    for (sq, up) in [("d8", 11), ("e8", 10), ("c8", 12), ("f8", 9)] {
        let t = target(Piece::Bishop, sq);
        let (mask, pairs) = shifted(t, up);
        if 64 - mask.trailing_zeros() > 22 {
            continue;
        }
        // 1, 2 and 7 to 9 bits take the ring engine, 3 to 6 the word engine (and the ring one).
        for bits in 1..=dense_cap(mask) {
            let want = brute_force(mask, &pairs, bits);
            for task_bits in [0, 5, 18] {
                let plan = Plan::from_pairs(mask, &pairs, bits).with_task_bits(task_bits);
                let plain = plain_all(&plan);
                let mut runs = vec![("default", run_all(&plan, Searcher::new(&plan)))];
                if (3..=6).contains(&bits) {
                    runs.push(("ring", run_all(&plan, Searcher::ring(&plan))));
                }
                for (engine, (got, tally)) in runs {
                    let what = format!("{t} up {up}, {bits} bits, {task_bits} task bits, {engine}");
                    assert_eq!(got, want, "{what}");
                    assert_eq!(
                        tally, plain,
                        "{what}: the plain search's tally, nodes included"
                    );
                    if let Some(b) = tally.best {
                        assert!(valid(&pairs, bits, b.magic));
                        let tightest = want
                            .iter()
                            .map(|&m| {
                                pairs
                                    .iter()
                                    .map(|p| crate::magic::index(p.0, mask, m, bits))
                                    .max()
                                    .unwrap() as u32
                            })
                            .min()
                            .unwrap();
                        assert_eq!(b.max_index, tightest, "{what}");
                    }
                }
            }
            for &m in &want {
                assert!(valid(&pairs, bits, m));
            }
            if want.is_empty() {
                zero += 1;
            } else {
                nonzero += 1;
            }
        }
    }
    // The comparison means something only if both answers occur.
    assert!(zero > 0 && nonzero > 0, "zero {zero} nonzero {nonzero}");
}

/// The search as first written (one value at a time, one subset at a time, an undo log):
/// the reference for the tallies, nodes included, of the bitwise engines.
struct Plain<'p> {
    plan: &'p Plan,
    slots: Vec<u16>,
    undo: Vec<u16>,
    tally: Tally,
    task: u64,
}

impl Plain<'_> {
    fn run(plan: &Plan, task: u64) -> Tally {
        let mut p = Plain {
            plan,
            slots: vec![0; 1 << plan.bits],
            undo: Vec::new(),
            tally: Tally::default(),
            task,
        };
        p.slots[0] = plan.empty_att;
        p.descend(0, 0, 0);
        p.tally
    }

    fn descend(&mut self, depth: usize, prefix: u64, max_index: u32) {
        let plan = self.plan;
        let level = &plan.levels[depth];
        let fixed = prefix | (self.task & low_mask(level.hi.min(plan.task_bits)));
        let from = level.lo.max(plan.task_bits).min(level.hi);
        for v in 0..1u64 << (level.hi - from) {
            self.tally.nodes += 1;
            let m = fixed | v << from;
            let mark = self.undo.len();
            let mut max = max_index;
            let ok = level.subsets.iter().all(|&(occ, att)| {
                let i = crate::magic::index_masked(occ, m, 64 - plan.bits);
                let held = self.slots[i];
                if held == 0 {
                    self.slots[i] = att;
                    self.undo.push(i as u16);
                    max = max.max(i as u32);
                }
                held == 0 || held == att
            });
            if ok && depth + 1 == plan.levels.len() {
                self.tally.magics += 1;
                let b = Best {
                    max_index: max,
                    magic: m,
                };
                self.tally.best = Some(self.tally.best.map_or(b, |o| o.min(b)));
            } else if ok {
                self.descend(depth + 1, m, max);
            }
            for &i in &self.undo[mark..] {
                self.slots[usize::from(i)] = 0;
            }
            self.undo.truncate(mark);
        }
    }
}

fn plain_all(plan: &Plan) -> Tally {
    let mut total = Tally::default();
    for t in 0..plan.tasks() {
        total.add(&Plain::run(plan, t));
    }
    total
}

/// Rooks have no small period: sampled tasks of the targets the campaign runs, against the
/// plain search, both engines, nodes included.
#[test]
fn sampled_tasks_match_the_plain_search() {
    let stop = AtomicBool::new(false);
    let cases = [
        (Piece::Rook, "a8", 10, 6),
        (Piece::Rook, "h7", 9, 24),
        (Piece::Rook, "h7", 10, 8),
        (Piece::Rook, "e7", 8, 24),
        (Piece::Rook, "b7", 8, 12),
        (Piece::Bishop, "d7", 5, 64),
        (Piece::Bishop, "h2", 4, 8),
        (Piece::Bishop, "d8", 9, 64),
    ];
    // Rooks whose lowest mask squares sit low: runs of thin levels after wide ones, and
    // (d4) a wide level after the run, which rebuilds its layouts (finer task splits keep
    // the plain search quick).
    let low = [
        (Piece::Rook, "d4", 9, 48, 32),
        (Piece::Rook, "h3", 10, 48, 34),
        (Piece::Rook, "a2", 10, 48, 42),
        (Piece::Rook, "e2", 8, 48, 40),
        (Piece::Rook, "b4", 10, 24, 28),
    ];
    let cases = cases
        .into_iter()
        .map(|(p, s, b, n)| (p, s, b, n, None))
        .chain(low.map(|(p, s, b, n, t)| (p, s, b, n, Some(t))));
    for (piece, sq, bits, samples, task_bits) in cases {
        let mut plan = Plan::new(target(piece, sq), bits);
        if let Some(t) = task_bits {
            plan = plan.with_task_bits(t);
        }
        let mut engines = vec![Searcher::new(&plan)];
        if (3..=6).contains(&bits) {
            engines.push(Searcher::ring(&plan));
        }
        for j in 0..samples as u64 {
            let task = j.wrapping_mul(0x9e37_79b9_7f4a_7c15) & (plan.tasks() - 1);
            let want = Plain::run(&plan, task);
            for s in &mut engines {
                assert_eq!(
                    s.run_task(task, &stop).unwrap(),
                    want,
                    "{piece:?} {sq} {bits}, task {task}"
                );
            }
        }
    }
}

#[test]
fn bishop_d8_has_no_4_bit_magic_but_5_bit_ones_match_brute_force() {
    let t = target(Piece::Bishop, "d8");
    assert_eq!(search_all(&Plan::new(t, 4)).magics, 0);
    let o = Occupancies::new(t);
    let pairs: Vec<(u64, u64)> = o.pairs.iter().map(|p| (p.0 .0, p.1 .0)).collect();
    let plan = Plan::new(t, 5);
    assert_eq!(plan.period_bits(), 26);
    let got = all_magics(&plan);
    assert!(!got.is_empty());
    for &m in &got {
        assert!(magic::verify(t, 5, m).is_ok(), "{m:#x}");
    }
    assert_eq!(got, brute_force(o.mask.0, &pairs, 5));
}

/// The whole period of bishop h2 takes minutes: check the task holding the published magic
/// against brute force over that task (2^24 values).
#[test]
fn bishop_h2_task_of_the_published_magic_matches_brute_force() {
    let t = target(Piece::Bishop, "h2");
    let plan = Plan::new(t, 4);
    assert_eq!(plan.period_bits(), 42);
    let published = 0x0000_0041_0509_fff0u64;
    let task = published & (plan.tasks() - 1);
    let stop = AtomicBool::new(false);
    let mut s = Searcher::new(&plan);
    s.collect_magics();
    let tally = s.run_task(task, &stop).unwrap();
    let mut found = s.collected().to_vec();
    found.sort_unstable();
    assert!(found.binary_search(&published).is_ok());
    assert_eq!(tally.magics, found.len() as u64);
    let mut pad = crate::search::Scratchpad::new(t, 4);
    let want: Vec<u64> = (0..1u64 << (42 - plan.task_bits()))
        .map(|hi| hi << plan.task_bits() | task)
        .filter(|&m| pad.try_magic(m))
        .collect();
    assert_eq!(found, want);
    let best = tally.best.unwrap();
    assert_eq!(
        magic::verify(t, 4, best.magic).unwrap().max_index,
        best.max_index
    );
}

#[test]
fn a_stopped_task_reports_its_nodes() {
    let plan = Plan::new(target(Piece::Bishop, "h2"), 4).with_task_bits(0);
    let stop = AtomicBool::new(true);
    let cut = Searcher::new(&plan).run_task(0, &stop).unwrap_err();
    // The flag is looked at when the count crosses a multiple of POLL, between levels.
    assert!(
        (POLL..POLL + (1 << 20)).contains(&cut.nodes),
        "{}",
        cut.nodes
    );
}

#[test]
fn a_task_stops_soon_after_its_node_budget() {
    let plan = Plan::new(target(Piece::Bishop, "h2"), 4).with_task_bits(10);
    let go = AtomicBool::new(false);
    let mut s = Searcher::new(&plan);
    let whole = s.run_task(0, &go).unwrap().nodes;
    let budget = 3 * POLL + 5;
    assert!(whole > budget + (1 << 20), "{whole}");
    let cut = s.run_task_within(0, &go, budget).unwrap_err();
    assert!(
        (budget..4 * POLL + (1 << 20)).contains(&cut.nodes),
        "{}",
        cut.nodes
    );
    // A budget it does not reach changes nothing.
    assert_eq!(s.run_task_within(0, &go, whole).unwrap().nodes, whole);
}

/// The high-first order sees the same magics as brute force, with the same best, at every task
/// split, on the shifted bishop masks (both answers occur).
#[test]
fn the_high_order_matches_brute_force_on_shifted_bishop_masks() {
    let (mut zero, mut nonzero) = (0, 0);
    for (sq, up) in [("d8", 11), ("e8", 10), ("c8", 12), ("f8", 9)] {
        let (mask, pairs) = shifted(target(Piece::Bishop, sq), up);
        if 64 - mask.trailing_zeros() > 22 {
            continue;
        }
        for bits in 1..=dense_cap(mask) {
            let want = brute_force(mask, &pairs, bits);
            let low = plain_all(&Plan::from_pairs(mask, &pairs, bits));
            // The trimmed order at three of the splits: it shares the brute force, and
            // the low-rook shapes below cover it at others.
            for (task_bits, order) in [0, 5, 13, 22].into_iter().map(|t| (t, Order::High)).chain(
                [0, 5, 22]
                    .into_iter()
                    .flat_map(|t| [(t, Order::Trim), (t, Order::Fold)]),
            ) {
                let plan = Plan::from_pairs(mask, &pairs, bits)
                    .with_task_bits(task_bits)
                    .with_order(order);
                let (got, tally) = run_all(&plan, Searcher::new(&plan));
                let what =
                    format!("bishop {sq} up {up}, {bits} bits, {task_bits} task bits, {order}");
                assert_eq!(got, want, "{what}");
                assert_eq!(tally.magics, low.magics, "{what}");
                assert_eq!(tally.best, low.best, "{what}: the same best magic");
                assert!(tally.nodes >= plan.tasks(), "{what}: every root counted");
            }
            if want.is_empty() {
                zero += 1;
            } else {
                nonzero += 1;
            }
        }
    }
    assert!(zero > 0 && nonzero > 0, "zero {zero} nonzero {nonzero}");
}

/// The published plain magics of the rooks of ranks 1 to 4, where the top-down orders are
/// the suited ones.
fn low_published_rooks() -> impl Iterator<Item = &'static crate::table::Entry> {
    crate::published::records().entries.iter().filter(|e| {
        e.target.piece == Piece::Rook
            && e.target.square.index() < 32
            && e.formula == crate::question::Formula::Plain
    })
}

/// The low-rank rooks, where the high order is meant to be used, have no small period: the
/// task (2^13 values) around each published magic of ranks 1 to 4, against brute force.
#[test]
fn high_order_tasks_around_published_rook_magics_match_brute_force() {
    let stop = AtomicBool::new(false);
    let mut checked = 0;
    for e in low_published_rooks() {
        let period = Plan::new(e.target, e.bits).period_bits();
        let m = e.magic & low_mask(period);
        for order in [Order::High, Order::Trim] {
            let plan = Plan::new(e.target, e.bits)
                .with_task_bits(period - 13)
                .with_order(order);
            let task = m >> 13;
            let mut s = Searcher::new(&plan);
            s.collect_magics();
            let tally = s.run_task(task, &stop).unwrap();
            let got = s.collected().to_vec();
            let mut pad = crate::search::Scratchpad::new(e.target, e.bits);
            let mut want: Vec<u64> = (0..1u64 << 13)
                .map(|d| task << 13 | d)
                .filter(|&x| pad.try_magic(x))
                .collect();
            want.sort_unstable();
            let mut sorted = got.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, want, "{} at {} {order}", e.target, e.bits);
            assert!(want.contains(&m), "{} at {}", e.target, e.bits);
            assert_eq!(tally.magics, want.len() as u64);
            let best = tally.best.unwrap();
            assert_eq!(
                magic::verify(e.target, e.bits, best.magic)
                    .unwrap()
                    .max_index,
                best.max_index
            );
        }
        checked += 1;
    }
    assert!(
        checked >= 16,
        "only {checked} published rook magics of ranks 1 to 4"
    );
}

/// The low-rook shapes: a square of rank 1 or 2 and how many of its file squares to keep.
const LOW_ROOK_SHAPES: [(&str, usize); 4] = [("e2", 2), ("b2", 2), ("d1", 2), ("h2", 1)];

/// The shape the high order is for, small enough for brute force: rook `sq` of rank 1 or 2 with
/// its whole rank part and the first `keep_file` file squares (the others empty), moved up the
/// board so that the period is at most 2^22.
fn low_rook_shape(sq: &str, keep_file: usize) -> (u64, Vec<(u64, u64)>) {
    let t = target(Piece::Rook, sq);
    let full = Occupancies::new(t).mask.0;
    let rank = full & (0xff << (t.square.index() / 8 * 8));
    let file: Vec<u64> = (0..64)
        .filter(|s| (full & !rank) >> s & 1 == 1)
        .map(|s| 1u64 << s)
        .take(keep_file)
        .collect();
    let mask = file.iter().fold(rank, |a, f| a | f);
    let up = mask.leading_zeros();
    let mut pairs = Vec::new();
    let mut occ = 0u64;
    loop {
        let att = crate::attacks::attacks_slow(t.piece, t.square, crate::Bitboard(occ)).0;
        pairs.push((occ << up, att));
        occ = occ.wrapping_sub(mask) & mask;
        if occ == 0 {
            break;
        }
    }
    let mask = mask << up;
    assert!(
        64 - mask.trailing_zeros() <= 22,
        "{sq}: period too long for brute force"
    );
    (mask, pairs)
}

/// Both orders and brute force see the same magics on the low-rook shapes at every bit count
/// where both answers occur.
#[test]
fn both_orders_match_brute_force_on_low_rook_shapes() {
    let (mut zero, mut nonzero) = (0, 0);
    for (sq, keep_file) in LOW_ROOK_SHAPES {
        let (mask, pairs) = low_rook_shape(sq, keep_file);
        for bits in 2..=mask.count_ones() {
            let want = brute_force(mask, &pairs, bits);
            let low = plain_all(&Plan::from_pairs(mask, &pairs, bits));
            assert_eq!(
                low.magics,
                want.len() as u64,
                "rook {sq} shape, {bits} bits, low"
            );
            for (task_bits, order) in [0, 3, 9]
                .into_iter()
                .flat_map(|t| [(t, Order::High), (t, Order::Trim), (t, Order::Fold)])
            {
                let plan = Plan::from_pairs(mask, &pairs, bits)
                    .with_task_bits(task_bits)
                    .with_order(order);
                let (got, tally) = run_all(&plan, Searcher::new(&plan));
                let what = format!("rook {sq} shape, {bits} bits, {task_bits} task bits, {order}");
                assert_eq!(got, want, "{what}");
                assert_eq!(tally.best, low.best, "{what}: the same best magic");
            }
            if want.is_empty() {
                zero += 1;
            } else {
                nonzero += 1;
            }
        }
    }
    assert!(zero > 0 && nonzero > 0, "zero {zero} nonzero {nonzero}");
}

/// The folded order on the task (2^13 values) of each published rook magic of ranks 1 to 4,
/// or of its negation when the magic lies in the upper half of the period: the task's magics
/// and the negations of its values that are magics, against the definition one by one.
#[test]
fn the_folded_order_finds_each_published_rook_magic_or_its_negation() {
    let stop = AtomicBool::new(false);
    let mut checked = 0;
    for e in low_published_rooks() {
        let period = Plan::new(e.target, e.bits).period_bits();
        let p = 1u64 << period;
        let m = e.magic & low_mask(period);
        let low = if m >= p / 2 { p - m } else { m };
        let plan = Plan::new(e.target, e.bits)
            .with_task_bits(period - 13)
            .with_order(Order::Fold);
        let task = low >> 13;
        let mut s = Searcher::new(&plan);
        s.collect_magics();
        let tally = s.run_task(task, &stop).unwrap();
        let mut got = s.collected().to_vec();
        got.sort_unstable();
        let mut pad = crate::search::Scratchpad::new(e.target, e.bits);
        let mut want: Vec<u64> = Vec::new();
        for d in 0..1u64 << 13 {
            let x = task << 13 | d;
            if pad.try_magic(x) {
                want.push(x);
            }
            let y = (p - x) & (p - 1);
            if y != x && pad.try_magic(y) {
                want.push(y);
            }
        }
        want.sort_unstable();
        assert_eq!(got, want, "{} at {} fold", e.target, e.bits);
        assert!(want.contains(&m), "{} at {}", e.target, e.bits);
        assert_eq!(tally.magics, want.len() as u64);
        checked += 1;
    }
    assert!(
        checked >= 16,
        "only {checked} published rook magics of ranks 1 to 4"
    );
}

/// The trimmed walk's join tests change the time, never the nodes: with them and without, the
/// same nodes and magics task by task, on the open questions' rooks and on the low-rook shapes
/// (where brute force covers the magics above). In the tests every node a join test kills is
/// also taken through the walk, which must kill it too. The join tests must kill some nodes
/// on each rook, or they would not be tested here.
#[test]
fn the_join_tests_change_no_node_count() {
    let stop = AtomicBool::new(false);
    // The nodes with and without, task by task until `enough` nodes; the nodes killed.
    let same = |plan: &Plan, tasks: &mut dyn Iterator<Item = u64>, enough: u64, what: &str| {
        let mut with = Searcher::new(plan);
        let mut without = Searcher::new(plan).without_join_tests();
        with.collect_magics();
        without.collect_magics();
        let mut nodes = 0;
        for t in tasks {
            let a = with.run_task(t, &stop).unwrap();
            assert_eq!(a, without.run_task(t, &stop).unwrap(), "{what}, task {t}");
            nodes += a.nodes;
            if nodes >= enough {
                break;
            }
        }
        assert_eq!(with.collected(), without.collected(), "{what}");
        assert_eq!(without.join_killed(), 0);
        with.join_killed()
    };
    for (sq, bits) in [("g1", 9), ("a1", 11), ("a2", 10), ("h2", 10)] {
        for order in [Order::Fold, Order::Trim] {
            let plan = Plan::new(target(Piece::Rook, sq), bits)
                .with_task_bits(24)
                .with_order(order);
            // Tasks scattered over the lower half, where the folded search has its work.
            let mut tasks = (0..4096u64).map(|j| j.wrapping_mul(0x9e37_79b9) % (1 << 23));
            let what = format!("rook {sq} at {bits}, {order}");
            let killed = same(&plan, &mut tasks, 100_000, &what);
            assert!(killed > 0, "{what}: no join test killed");
        }
    }
    // A shape whose second file square's family can be tested: rook a1 with d1 to g1, a2 and
    // a3, moved up until a3 is the highest square a tested family's square may be (`bits`
    // below the top), so that the join tests kill; brute force over the period too, at three
    // splits.
    let mut killed = 0;
    let t = target(Piece::Rook, "a1");
    let shape = 0x0001_0178u64; // d1 e1 f1 g1 a2 a3
    for bits in 2..=7 {
        let up = shape.leading_zeros() - bits;
        let pairs: Vec<(u64, u64)> = subsets(shape)
            .map(|o| {
                let att = crate::attacks::attacks_slow(t.piece, t.square, crate::Bitboard(o));
                (o << up, att.0)
            })
            .collect();
        let mask = shape << up;
        let want = brute_force(mask, &pairs, bits);
        for (task_bits, order) in [0, 3, 9]
            .into_iter()
            .flat_map(|t| [(t, Order::Fold), (t, Order::Trim)])
        {
            let plan = Plan::from_pairs(mask, &pairs, bits)
                .with_task_bits(task_bits)
                .with_order(order);
            let what = format!("rook a1 tower, {bits} bits, {task_bits} task bits, {order}");
            killed += same(&plan, &mut (0..plan.tasks()), u64::MAX, &what);
            assert_eq!(run_all(&plan, Searcher::new(&plan)).0, want, "{what}");
        }
    }
    assert!(killed > 0, "no join test killed on the tower");
}

/// Every subset of `mask`, the empty one first (carry-rippler).
fn subsets(mask: u64) -> impl Iterator<Item = u64> {
    let mut next = Some(0u64);
    std::iter::from_fn(move || {
        let o = next?;
        let n = o.wrapping_sub(mask) & mask;
        next = (n != 0).then_some(n);
        Some(o)
    })
}

/// A part's list (the run loop's, through the collect hook) holds exactly brute force's magics
/// of the period, with the count, on the low-rook shapes and shifted bishop masks, in the
/// folded, trimmed and low orders, in one part and in three; the parts' bests hold the
/// smallest highest index of all.
#[test]
fn the_parts_list_the_magics_brute_force_finds() {
    use campaign::found::{Listing, MAX_LISTED};
    use campaign::run::{run_part, PartState, RunConfig};
    use campaign::shard::Shard;
    let cfg = RunConfig {
        threads: 2,
        time_limit: None,
        report: std::time::Duration::from_secs(1),
        until: None,
        node_limit: None,
    };
    let shapes = LOW_ROOK_SHAPES
        .iter()
        .map(|&(sq, k)| (format!("rook {sq} shape"), low_rook_shape(sq, k)))
        .chain([("d8", 11), ("e8", 10), ("c8", 12)].map(|(sq, up)| {
            let t = target(Piece::Bishop, sq);
            (format!("bishop {sq} up {up}"), shifted(t, up))
        }));
    let (mut zero, mut nonzero) = (0, 0);
    for (name, (mask, pairs)) in shapes {
        assert!(64 - mask.trailing_zeros() <= 22, "{name}: period too long");
        for bits in 2..=mask.count_ones().min(7) {
            let want = brute_force(mask, &pairs, bits);
            let top = |m: u64| {
                pairs
                    .iter()
                    .map(|p| crate::magic::index(p.0, mask, m, bits) as u32)
                    .max()
                    .unwrap()
            };
            for (order, task_bits) in [
                (Order::Fold, 0),
                (Order::Fold, 9),
                (Order::Trim, 3),
                (Order::Low, 5),
            ] {
                let plan = Plan::from_pairs(mask, &pairs, bits)
                    .with_task_bits(task_bits)
                    .with_order(order);
                for shards in [1, 3] {
                    let (mut got, mut total) = (Vec::new(), Tally::default());
                    for index in 1..=shards {
                        let shard = Shard {
                            index,
                            count: shards,
                        };
                        let mut st = PartState {
                            found: Some(Listing::default()),
                            ..PartState::default()
                        };
                        run_part(
                            &plan,
                            shard,
                            &mut st,
                            &cfg,
                            &crate::interrupt::Stop::new(),
                            |_, _| {},
                        )
                        .unwrap();
                        let listed = st.found.unwrap().magics;
                        // A part lists its magics up to the bound, then only counts them.
                        let most = st.tally.magics.min(MAX_LISTED as u64);
                        assert_eq!(listed.len() as u64, most, "{name}, {bits} bits, {order}");
                        total.add(&st.tally);
                        got.extend(listed);
                    }
                    got.sort_unstable();
                    let what = format!(
                        "{name}, {bits} bits, {order}, {task_bits} task bits, {shards} parts"
                    );
                    if got.len() < want.len() {
                        assert!(got.iter().all(|m| want.binary_search(m).is_ok()), "{what}");
                    } else {
                        assert_eq!(got, want, "{what}");
                    }
                    assert_eq!(total.magics, want.len() as u64, "{what}");
                    assert_eq!(
                        total.best.map(|b| b.max_index),
                        want.iter().map(|&m| top(m)).min(),
                        "{what}"
                    );
                }
            }
            if want.is_empty() {
                zero += 1;
            } else {
                nonzero += 1;
            }
        }
    }
    assert!(zero > 0 && nonzero > 0, "zero {zero} nonzero {nonzero}");
}
