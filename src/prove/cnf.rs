//! The CNF encoding of a [`Question`]: satisfiable exactly when a magic exists.
//!
//! **Encoding 1** (the one named in every proof as [`ENCODING`]):
//!
//! - Variables `1..=P` are the bits `0..P` of the magic `m`, `P` the period bits (bits from
//!   `P` up cannot change any index; for a black magic `P = 64`).
//! - Every blocker subset `s` of the mask gets the 64-bit product `key(s) * m mod 2^64` as a
//!   vector of signals. The empty subset's product is `key(0) * m`: zero for a plain magic,
//!   `!mask * m` for a black one (a chain of shifted additions of `m`). Every other subset's
//!   product is its parent's (`s` without its highest square `h`) plus `m << h`, one
//!   ripple-carry adder from bit `h` up: the key of `s` is the key of its parent plus `2^h`
//!   under both formulas. Constants are folded, so bits below `h` are shared, not re-encoded.
//! - The index of `s` is the top `bits` bits of its product.
//! - Subsets are grouped into classes of equal attack sets. A slot variable `y(c, v)` for class
//!   `c` and index value `v` is forced true by every subset of `c` whose index is `v` (one
//!   clause per subset and value), and at most one class holds each value (pairwise for a few
//!   classes, a sequential counter for more). Two subsets with different attack sets can
//!   therefore never share an index, and subsets of one class may.
//! - An optional cube fixes the low bits of `m` (unit clauses): the sub-question of a shard.
//!
//! Nothing else is added (no symmetry breaking): every model's magic is valid and every valid
//! magic extends to a model, which the tests check by enumeration against `exhaust`.
//!
//! The gates, adders and cardinality constraints it is built from are in `prove/circuit.rs`.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::attacks::Occupancies;
use crate::question::{Formula, Question};

use super::circuit::{at_most_one, Builder, Sig};

/// The name and version of the encoding, recorded in every proof.
pub const ENCODING: &str = "magichunt-cnf 1 (ripple-carry products, class slots)";

/// The release of magichunt that defined [`ENCODING`], named in the first comment of every
/// CNF. The comments are part of the DIMACS text a proof's `cnf_sha256` hashes, so this line
/// stays as that release wrote it for as long as the encoding is unchanged: were it the
/// running release's version, every release would turn each recorded certificate, shipped or
/// a user's, into one for another CNF, and its proof would stop counting.
pub const ENCODING_RELEASE: &str = "0.1.0";

/// The low `bits` bits of the magic fixed to `value`: one sub-question of a split.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Cube {
    /// How many low bits are fixed.
    pub bits: u32,
    /// Their value (below `2^bits`).
    pub value: u64,
}

/// What the encoding needs: the mask, every (subset, attack set) pair, the bits and formula.
#[derive(Clone, Debug)]
pub struct Instance {
    /// The relevant mask.
    pub mask: u64,
    /// Every subset of the mask once, with its attack set (only equality of attack sets
    /// matters, so tests may use synthetic instances).
    pub pairs: Vec<(u64, u64)>,
    /// Index bits.
    pub bits: u32,
    /// The index formula.
    pub formula: Formula,
}

impl Instance {
    /// The instance of `question`, from the slow reference.
    #[must_use]
    pub fn of(question: Question) -> Instance {
        let o = Occupancies::new(question.target);
        Instance {
            mask: o.mask.0,
            pairs: o.pairs.iter().map(|p| (p.0 .0, p.1 .0)).collect(),
            bits: question.bits,
            formula: question.formula,
        }
    }

    /// `log2` of the period: the number of magic bits that are variables.
    #[must_use]
    pub fn period_bits(&self) -> u32 {
        match self.formula {
            Formula::Plain => 64 - self.mask.trailing_zeros(),
            Formula::Black => 64,
        }
    }
}

/// A CNF in DIMACS form: clauses as literals separated by 0, and what the variables mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cnf {
    /// Variables `1..=vars`.
    pub vars: u32,
    /// Variables `1..=magic_bits` are the bits `0..magic_bits` of the magic.
    pub magic_bits: u32,
    /// The clauses, each ended by 0.
    pub lits: Vec<i32>,
    /// Number of clauses.
    pub clauses: usize,
    /// Comment lines of the DIMACS header (without `c `).
    pub comments: Vec<String>,
}

impl Cnf {
    /// The clauses one by one.
    pub fn iter(&self) -> impl Iterator<Item = &[i32]> {
        self.lits.split(|&l| l == 0).take(self.clauses)
    }

    /// Writes the DIMACS text: comments, `p cnf`, one clause per line.
    ///
    /// # Errors
    /// The writer's.
    pub fn write_dimacs(&self, out: &mut impl Write) -> io::Result<()> {
        let mut line = String::new();
        for c in &self.comments {
            writeln!(out, "c {c}")?;
        }
        writeln!(out, "p cnf {} {}", self.vars, self.clauses)?;
        for clause in self.iter() {
            line.clear();
            for l in clause {
                let _ = write!(line, "{l} ");
            }
            line.push_str("0\n");
            out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    /// The magic of a model, given the value of each magic variable.
    #[must_use]
    pub fn magic_of(&self, mut value: impl FnMut(i32) -> bool) -> u64 {
        (0..self.magic_bits)
            .filter(|&i| value(i as i32 + 1))
            .fold(0, |m, i| m | 1 << i)
    }

    /// The literals that fix the magic variables to `magic` (assumptions or a blocking clause).
    #[must_use]
    pub fn magic_lits(&self, magic: u64) -> Vec<i32> {
        (0..self.magic_bits)
            .map(|i| {
                let v = i as i32 + 1;
                if magic >> i & 1 == 1 {
                    v
                } else {
                    -v
                }
            })
            .collect()
    }
}

/// Encodes `inst` (restricted to `cube`, if any) as [`ENCODING`] describes.
///
/// # Panics
/// If the pairs are not every subset of the mask once, or `bits` is not 1 to 63.
#[must_use]
pub fn encode(inst: &Instance, cube: Option<Cube>, title: &str) -> Cnf {
    assert!((1..64).contains(&inst.bits), "bits {}", inst.bits);
    let n = inst.mask.count_ones();
    assert_eq!(inst.pairs.len(), 1usize << n, "every subset once");
    let period = inst.period_bits();
    let mut b = Builder::new(period);
    let m: Vec<Sig> = (1..=period as i32).map(Sig::L).collect();
    if let Some(c) = cube {
        for i in 0..c.bits.min(period) {
            let v = Sig::L(i as i32 + 1);
            b.clause(&[if c.value >> i & 1 == 1 { v } else { v.not() }]);
        }
    }
    // Products in increasing subset order: a subset's parent is smaller than it.
    let mut order: Vec<usize> = (0..inst.pairs.len()).collect();
    order.sort_unstable_by_key(|&i| inst.pairs[i].0);
    let subsets: Vec<u64> = order.iter().map(|&i| inst.pairs[i].0).collect();
    let mut products: Vec<[Sig; 64]> = Vec::with_capacity(subsets.len());
    for (k, &s) in subsets.iter().enumerate() {
        let p = if s == 0 {
            let mut acc = [Sig::F; 64];
            if inst.formula == Formula::Black {
                let rest = !inst.mask;
                for j in 0..64 {
                    if rest >> j & 1 == 1 {
                        acc = b.add_shifted(&acc, &m, j);
                    }
                }
            }
            acc
        } else {
            let h = 63 - s.leading_zeros();
            let parent = s & !(1u64 << h);
            let pi = subsets[..k]
                .binary_search(&parent)
                .expect("the parent is a subset listed before");
            let acc = products[pi];
            b.add_shifted(&acc, &m, h)
        };
        products.push(p);
    }
    // Classes of equal attack sets.
    let mut atts: Vec<u64> = inst.pairs.iter().map(|p| p.1).collect();
    atts.sort_unstable();
    atts.dedup();
    let slots = 1usize << inst.bits;
    let mut y: Vec<Vec<Option<i32>>> = vec![vec![None; slots]; atts.len()];
    let shift = 64 - inst.bits as usize;
    let mut clause = Vec::with_capacity(inst.bits as usize + 1);
    for (k, &i) in order.iter().enumerate() {
        let class = atts.binary_search(&inst.pairs[i].1).expect("listed");
        let idx = &products[k][shift..];
        for (v, slot) in y[class].iter_mut().enumerate() {
            // (index == v) -> y(class, v)
            clause.clear();
            let mut possible = true;
            for (bit, &sig) in idx.iter().enumerate() {
                let want = v >> bit & 1 == 1;
                let differs = if want { sig.not() } else { sig };
                match differs {
                    Sig::T => {
                        possible = false;
                        break;
                    }
                    Sig::F => {}
                    l => clause.push(l),
                }
            }
            if !possible {
                continue;
            }
            let yv = *slot.get_or_insert_with(|| b.var());
            clause.push(Sig::L(yv));
            b.clause(&clause);
        }
    }
    // At most one class per slot.
    for v in 0..slots {
        let holders: Vec<i32> = y.iter().filter_map(|c| c[v]).collect();
        at_most_one(&mut b, &holders);
    }
    let mut comments = vec![
        format!("magichunt {ENCODING_RELEASE}: {title}"),
        format!("encoding: {ENCODING}"),
        format!(
            "formula {}, mask {:#018x}, {} index bits (shift {}), period 2^{period}",
            inst.formula,
            inst.mask,
            inst.bits,
            64 - inst.bits
        ),
        format!(
            "variables 1..{period} are the bits 0..{} of the magic (bit i is variable i+1); higher bits do not matter",
            period - 1
        ),
    ];
    if let Some(c) = cube {
        comments.push(format!(
            "cube: the low {} bits of the magic are {:#x}",
            c.bits, c.value
        ));
    }
    Cnf {
        vars: b.vars,
        magic_bits: period,
        lits: b.lits,
        clauses: b.clauses,
        comments,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimacs_header_and_counts() {
        let inst = Instance {
            mask: 0b110,
            pairs: vec![(0, 1), (2, 2), (4, 2), (6, 3)],
            bits: 2,
            formula: Formula::Plain,
        };
        let cnf = encode(&inst, None, "test");
        let mut out = Vec::new();
        cnf.write_dimacs(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(&format!("p cnf {} {}\n", cnf.vars, cnf.clauses)));
        assert_eq!(cnf.magic_bits, 63);
        assert_eq!(
            text.lines()
                .filter(|l| l.ends_with(" 0") || *l == "0")
                .count(),
            cnf.clauses
        );
    }

    /// The text a certificate's `cnf_sha256` names does not change with the release: bishop
    /// d1 at 4 bits hashes as `results/best.json` recorded it when 0.1.0 proved it (2026-11-23).
    #[test]
    fn the_hashed_text_is_the_encodings_not_the_releases() {
        let d1 = crate::Target::new(crate::Piece::Bishop, "d1".parse().unwrap());
        let q = Question::new(d1, 4, Formula::Plain).unwrap();
        assert_eq!(
            crate::prove::sha256(&crate::prove::cnf_of(q, None)),
            "4b4e2056ca40b10c9baa1705a7db4d50e0b2a79fef064a8e8cb7331f8a3186f1"
        );
    }
}
