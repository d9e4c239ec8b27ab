//! The campaign machinery around the engines: what turns the tasks of a period into parts
//! that many threads, machines and runs can share, resume and prove with.
//!
//! - [`shard`]: part `K` of `M` of the space, and the cursor that resumes it;
//! - [`residue`]: the evidence a part keeps (a sum per block of its tasks) so that an audit
//!   can re-run a sample of it;
//! - [`found`]: the magics a part lists beside its count (and those another walk supplies);
//! - [`run`]: worker threads searching one part's tasks, credited in order;
//! - [`estimate`]: the cost of a search projected from a random sample of its tasks, and
//!   [`projection`], what `bench --estimate` reports of it;
//! - [`bench`](mod@bench): whole-period enumerations with known counts.
//!
//! One part searched into a store (resumed from its checkpoint, its proof recorded) is
//! [`crate::settle::exhaustive`]: it reads and writes the store, whose records name this
//! room's orders, parts and residues, so it lives above it.

pub mod bench;
pub mod cpu;
pub mod estimate;
pub mod found;
pub mod projection;
pub mod residue;
pub mod run;
pub mod shard;
