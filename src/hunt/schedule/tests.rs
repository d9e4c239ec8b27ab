//! Tests of the plan and the schedule: plans, rounds, ratchets and the tight objective.

use super::*;
use crate::hunt::plan::{plan, plan_for, Objective, Select};
use crate::piece::Piece;
use crate::question::Formula;
use crate::store::Store;

fn t(p: Piece, sq: &str) -> Target {
    Target::new(p, sq.parse().unwrap())
}

#[test]
fn ratchet_starts_at_popcount_and_skips_proven() {
    let store = Store::new();
    let all: Vec<Target> = Target::all().collect();
    let plan = plan(&store, &all, Select::Ratchet).unwrap();
    assert_eq!(plan.goals.len(), 128);
    assert!(plan.goals.iter().all(|g| !g.fixed));
    let a1 = plan.goals[0];
    assert_eq!((a1.target, a1.bits), (t(Piece::Rook, "a1"), 12));
    // Fixed bits at a published proof: refused alone, skipped with a note among many.
    let a3 = [t(Piece::Rook, "a3")];
    let p = store.proven_none(a3[0]).unwrap();
    assert!(crate::hunt::plan::plan(&store, &a3, Select::Fixed(p)).is_err());
    let many = crate::hunt::plan::plan(&store, &all, Select::Fixed(p)).unwrap();
    assert!(!many.goals.iter().any(|g| g.target == a3[0]));
    assert!(!many.notes.is_empty());
}

#[test]
fn a_resumed_target_continues_past_the_streams_already_searched() {
    let a1 = t(Piece::Rook, "a1");
    let mut store = Store::new();
    let first = plan(&store, &[a1], Select::Fixed(11)).unwrap();
    assert_eq!(first.goals[0].first_stream, 0);
    store.add_effort(a1, 11, "earlier-run", 5 * SLICE + 1, 1.0);
    store.add_effort(a1, 10, "earlier-run", 100 * SLICE, 1.0);
    let again = plan(&store, &[a1], Select::Fixed(11)).unwrap();
    assert_eq!(again.goals[0].first_stream, 6);
    let sched = Schedule::new(&again.goals, None, Vec::new());
    assert_eq!(sched.states[0].stream, 6);
}

#[test]
fn open_preset_is_thirteen_targets_one_below_popcount() {
    let all: Vec<Target> = Target::all().collect();
    let plan = plan(&Store::new(), &all, Select::Open).unwrap();
    assert_eq!(plan.goals.len(), 13);
    for g in &plan.goals {
        assert_eq!(g.bits + 1, Occupancies::new(g.target).mask.count());
        assert!(g.fixed);
    }
}

#[test]
fn records_preset_hunts_the_published_bits_where_the_store_is_behind() {
    let all: Vec<Target> = Target::all().collect();
    let mut store = Store::new();
    let empty = plan(&store, &all, Select::Records).unwrap();
    assert_eq!(empty.goals.len(), 128);
    for g in &empty.goals {
        assert_eq!(g.bits, crate::published::best(g.target).unwrap().bits);
        assert!(g.fixed);
    }
    // A store level with the record there: that target is left out, with a note.
    let d2 = t(Piece::Rook, "d2");
    store.offer(crate::published::best(d2).unwrap().clone());
    let behind = plan(&store, &all, Select::Records).unwrap();
    assert_eq!(behind.goals.len(), 127);
    assert!(behind.goals.iter().all(|g| g.target != d2));
    assert!(behind.notes.iter().any(|n| n.contains("rook d2")));
}

#[test]
fn tight_goals_start_below_the_stored_span_and_tighten_on_each_find() {
    let mut store = Store::new();
    let e4 = t(Piece::Bishop, "e4");
    let v = crate::search::find_magic(e4, 9, 1).unwrap();
    store.offer(crate::table::Entry::from_verified(&v, None, None));
    let both = [e4, t(Piece::Rook, "a1")];
    let p = plan_for(
        &store,
        &both,
        Select::Ratchet,
        Formula::Plain,
        Objective::Tight,
    )
    .unwrap();
    assert_eq!(p.goals.len(), 1);
    assert!(p.notes[0].contains("rook a1"), "{:?}", p.notes);
    let g = p.goals[0];
    let limit = v.span() - 1;
    assert_eq!((g.bits, g.limit), (9, Some(limit)));
    // No black magic stored: nothing to make tighter.
    let black = plan_for(
        &store,
        &both,
        Select::Ratchet,
        Formula::Black,
        Objective::Tight,
    );
    assert!(black.unwrap().goals.is_empty());
    let mut s = Schedule::new(&p.goals, Some(SLICE), Vec::new());
    let families: Vec<&str> = s.states[0].names.iter().map(String::as_str).collect();
    assert!(families.contains(&"dense"), "{families:?}");
    let tasks = s.round(&Payoff::new());
    assert!(tasks.iter().all(|t| t.limit == Some(limit)));
    let done: Vec<Done> = tasks
        .into_iter()
        .map(|task| Done {
            tried: task.n,
            seconds: 0.1,
            found: true,
            span: Some(limit - 5),
            task,
        })
        .collect();
    s.finish(&done, &[], &mut Payoff::new());
    assert_eq!((s.states[0].bits, s.states[0].limit), (9, Some(limit - 6)));
}

#[test]
fn rounds_spread_lanes_and_respect_the_budget() {
    let goals = [Goal {
        target: t(Piece::Bishop, "e4"),
        bits: 9,
        floor: 5,
        fixed: false,
        first_stream: 0,
        limit: None,
    }];
    let mut s = Schedule::new(&goals, Some(3 * SLICE + 5), Vec::new());
    let tasks = s.round(&Payoff::new());
    assert_eq!(tasks.len(), 4);
    assert_eq!(tasks.iter().map(|t| t.n).sum::<u64>(), 3 * SLICE + 5);
    let streams: Vec<u64> = tasks.iter().map(|t| t.stream).collect();
    assert_eq!(streams, [0, 1, 2, 3]);
    // One finds: the target steps down one bit and its streams restart.
    let done: Vec<Done> = tasks
        .into_iter()
        .enumerate()
        .map(|(i, task)| Done {
            tried: task.n,
            seconds: 0.1,
            found: i == 1,
            span: None,
            task,
        })
        .collect();
    s.finish(&done, &[], &mut Payoff::new());
    assert_eq!(s.states[0].bits, 8);
    assert_eq!(s.states[0].stream, 0);
    // The budget is spent: finished.
    assert!(s.states[0].done);
    assert!(s.round(&Payoff::new()).is_empty());
}
