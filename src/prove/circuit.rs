//! The circuits the CNF encoding is built from: signals with constants folded, clauses, the
//! gates and ripple-carry adders of the products, and "at most one" constraints. Nothing here
//! knows about magics; [`super::cnf`] wires these into the encoding of a question.

/// A signal: a constant or a literal.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Sig {
    /// False.
    F,
    /// True.
    T,
    /// A literal (a variable, negated when below zero).
    L(i32),
}

impl Sig {
    /// The negation.
    pub(super) fn not(self) -> Sig {
        match self {
            Sig::F => Sig::T,
            Sig::T => Sig::F,
            Sig::L(l) => Sig::L(-l),
        }
    }
}

/// Builds clauses with constant folding.
pub(super) struct Builder {
    /// Variables `1..=vars` are in use.
    pub(super) vars: u32,
    /// The clauses, each ended by 0.
    pub(super) lits: Vec<i32>,
    /// Number of clauses.
    pub(super) clauses: usize,
}

impl Builder {
    /// A builder whose variables `1..=inputs` are the inputs.
    pub(super) fn new(inputs: u32) -> Builder {
        Builder {
            vars: inputs,
            lits: Vec::new(),
            clauses: 0,
        }
    }

    /// A fresh variable.
    pub(super) fn var(&mut self) -> i32 {
        self.vars += 1;
        self.vars as i32
    }

    /// Adds a clause of signals: a true signal satisfies it, false ones drop out.
    pub(super) fn clause(&mut self, sigs: &[Sig]) {
        if sigs.contains(&Sig::T) {
            return;
        }
        let start = self.lits.len();
        for &s in sigs {
            if let Sig::L(l) = s {
                if self.lits[start..].contains(&-l) {
                    self.lits.truncate(start);
                    return;
                }
                if !self.lits[start..].contains(&l) {
                    self.lits.push(l);
                }
            }
        }
        self.lits.push(0);
        self.clauses += 1;
    }

    /// `a ^ b`.
    fn xor2(&mut self, a: Sig, b: Sig) -> Sig {
        match (a, b) {
            (Sig::F, x) | (x, Sig::F) => x,
            (Sig::T, x) | (x, Sig::T) => x.not(),
            (Sig::L(x), Sig::L(y)) if x == y => Sig::F,
            (Sig::L(x), Sig::L(y)) if x == -y => Sig::T,
            _ => {
                let o = Sig::L(self.var());
                self.clause(&[o.not(), a, b]);
                self.clause(&[o.not(), a.not(), b.not()]);
                self.clause(&[o, a.not(), b]);
                self.clause(&[o, a, b.not()]);
                o
            }
        }
    }

    /// `a & b`.
    fn and2(&mut self, a: Sig, b: Sig) -> Sig {
        match (a, b) {
            (Sig::F, _) | (_, Sig::F) => Sig::F,
            (Sig::T, x) | (x, Sig::T) => x,
            (Sig::L(x), Sig::L(y)) if x == y => a,
            (Sig::L(x), Sig::L(y)) if x == -y => Sig::F,
            _ => {
                let o = Sig::L(self.var());
                self.clause(&[o.not(), a]);
                self.clause(&[o.not(), b]);
                self.clause(&[o, a.not(), b.not()]);
                o
            }
        }
    }

    /// `a | b`.
    fn or2(&mut self, a: Sig, b: Sig) -> Sig {
        self.and2(a.not(), b.not()).not()
    }

    /// Sum and carry of three bits; `want_carry` false skips the carry (the top bit).
    fn full_add(&mut self, a: Sig, b: Sig, c: Sig, want_carry: bool) -> (Sig, Sig) {
        let consts = [a, b, c].iter().filter(|s| !matches!(s, Sig::L(_))).count();
        if consts > 0 {
            // Put a constant first and fold it.
            let (k, x, y) = match (a, b, c) {
                (Sig::L(_), Sig::L(_), k) => (k, a, b),
                (Sig::L(_), k, y) => (k, a, y),
                (k, x, y) => (k, x, y),
            };
            let sum = self.xor2(x, y);
            return if k == Sig::F {
                let carry = if want_carry { self.and2(x, y) } else { Sig::F };
                (sum, carry)
            } else {
                let carry = if want_carry { self.or2(x, y) } else { Sig::F };
                (sum.not(), carry)
            };
        }
        let s = Sig::L(self.var());
        // s <-> a ^ b ^ c: forbid the four assignments of odd mismatch.
        for mask in 0..8u32 {
            let lit = |sig: Sig, bit: u32| if mask >> bit & 1 == 1 { sig } else { sig.not() };
            let parity = mask.count_ones() % 2 == 1;
            // When a,b,c take the values of `mask`, s must equal parity.
            let out = if parity { s } else { s.not() };
            self.clause(&[lit(a, 0).not(), lit(b, 1).not(), lit(c, 2).not(), out]);
        }
        let carry = if want_carry {
            let k = Sig::L(self.var());
            // k <-> majority(a, b, c)
            self.clause(&[k.not(), a, b]);
            self.clause(&[k.not(), a, c]);
            self.clause(&[k.not(), b, c]);
            self.clause(&[k, a.not(), b.not()]);
            self.clause(&[k, a.not(), c.not()]);
            self.clause(&[k, b.not(), c.not()]);
            k
        } else {
            Sig::F
        };
        (s, carry)
    }

    /// `acc + (m << shift)` mod 2^64, bits `shift..64` added, the bits below kept.
    pub(super) fn add_shifted(&mut self, acc: &[Sig; 64], m: &[Sig], shift: u32) -> [Sig; 64] {
        let mut out = *acc;
        let mut carry = Sig::F;
        for i in shift as usize..64 {
            let b = m.get(i - shift as usize).copied().unwrap_or(Sig::F);
            let (s, c) = self.full_add(acc[i], b, carry, i < 63);
            out[i] = s;
            carry = c;
        }
        out
    }
}

/// At most one of `lits` is true: pairwise for a few, a sequential counter for more.
pub(super) fn at_most_one(b: &mut Builder, lits: &[i32]) {
    if lits.len() <= 6 {
        for i in 0..lits.len() {
            for j in i + 1..lits.len() {
                b.clause(&[Sig::L(-lits[i]), Sig::L(-lits[j])]);
            }
        }
        return;
    }
    // s_i: one of lits[0..=i] is true.
    let mut prev = Sig::L(lits[0]);
    for (i, &x) in lits.iter().enumerate().skip(1) {
        let x = Sig::L(x);
        b.clause(&[prev.not(), x.not()]);
        if i + 1 < lits.len() {
            let s = Sig::L(b.var());
            b.clause(&[prev.not(), s]);
            b.clause(&[x.not(), s]);
            prev = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adders_add() {
        // m + m << 1 + carry chains, checked on every 4-bit m by brute force over the
        // auxiliaries via propagation: with the inputs fixed the circuit determines the rest.
        for shift in 0..3u32 {
            let mut b = Builder::new(4);
            let m: Vec<Sig> = (1..=4).map(Sig::L).collect();
            let mut acc = [Sig::F; 64];
            acc = b.add_shifted(&acc, &m, 0);
            acc = b.add_shifted(&acc, &m, shift + 1);
            let clauses: Vec<&[i32]> = b.lits.split(|&l| l == 0).take(b.clauses).collect();
            for x in 0..16u64 {
                let want = x + (x << (shift + 1));
                // Evaluate the circuit by forward simulation: find the assignment of every
                // auxiliary that satisfies the clauses, one variable at a time in order.
                let mut val = vec![false; b.vars as usize + 1];
                for i in 0..4 {
                    val[i + 1] = x >> i & 1 == 1;
                }
                for v in 5..=b.vars as usize {
                    val[v] = false;
                    let ok_false = clauses.iter().all(|c| {
                        let defined = c.iter().all(|&l| l.unsigned_abs() as usize <= v);
                        !defined || c.iter().any(|&l| val[l.unsigned_abs() as usize] == (l > 0))
                    });
                    if !ok_false {
                        val[v] = true;
                    }
                }
                assert!(clauses
                    .iter()
                    .all(|c| c.iter().any(|&l| val[l.unsigned_abs() as usize] == (l > 0))));
                let got = (0..64).fold(0u64, |acc_v, i| {
                    let bit = match acc[i] {
                        Sig::F => false,
                        Sig::T => true,
                        Sig::L(l) => val[l.unsigned_abs() as usize] == (l > 0),
                    };
                    acc_v | u64::from(bit) << i
                });
                assert_eq!(got, want, "x {x} shift {shift}");
            }
        }
    }
}
