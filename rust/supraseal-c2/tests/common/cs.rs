//! A constraint system that records what bellperson's ProvingAssignment records while a circuit
//! is synthesised (bellperson src/groth16/prover: alloc, alloc_input, enforce, eval): the
//! evaluations a, b, c of every constraint, the input and aux assignments, and the density bit
//! vectors (aux in A; inputs and aux in B), a variable counting as soon as a term with a
//! non-zero coefficient names it. `finish` appends bellperson's `input·0 = 0` rows. It also keeps
//! the constraints themselves, to write the circuit as a circom .r1cs for `snarkd setup`.

use super::field::Fr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Var {
    Input(usize),
    Aux(usize),
}

pub const ONE: Var = Var::Input(0);

#[derive(Clone, Default)]
pub struct Lc(pub Vec<(Var, Fr)>);

impl Lc {
    pub fn new() -> Lc {
        Lc(Vec::new())
    }
    pub fn var(v: Var) -> Lc {
        Lc(vec![(v, Fr::one())])
    }
    pub fn term(mut self, v: Var, c: Fr) -> Lc {
        self.0.push((v, c));
        self
    }
    pub fn plus(self, v: Var) -> Lc {
        self.term(v, Fr::one())
    }
}

/// bellperson's DensityTracker: a bit per variable, and how many are set.
#[derive(Clone, Default)]
pub struct Density {
    pub words: Vec<u64>,
    pub len: usize,
    pub total: usize,
}

impl Density {
    fn push(&mut self) {
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        self.len += 1;
    }
    fn inc(&mut self, i: usize) {
        let (w, b) = (i / 64, 1u64 << (i % 64));
        if self.words[w] & b == 0 {
            self.words[w] |= b;
            self.total += 1;
        }
    }
}

#[derive(Clone, Default)]
pub struct ProvingAssignment {
    pub a_aux_density: Density,
    pub b_input_density: Density,
    pub b_aux_density: Density,
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
    pub input_assignment: Vec<Fr>,
    pub aux_assignment: Vec<Fr>,
    pub constraints: Vec<(Lc, Lc, Lc)>, // the circuit's own, without the input rows
}

impl ProvingAssignment {
    /// A fresh system with ONE allocated, as bellperson's prover starts.
    pub fn new() -> ProvingAssignment {
        let mut cs = ProvingAssignment::default();
        cs.alloc_input(Fr::one());
        cs
    }

    pub fn alloc(&mut self, v: Fr) -> Var {
        self.aux_assignment.push(v);
        self.a_aux_density.push();
        self.b_aux_density.push();
        Var::Aux(self.aux_assignment.len() - 1)
    }

    pub fn alloc_input(&mut self, v: Fr) -> Var {
        self.input_assignment.push(v);
        self.b_input_density.push();
        Var::Input(self.input_assignment.len() - 1)
    }

    pub fn value(&self, v: Var) -> Fr {
        match v {
            Var::Input(i) => self.input_assignment[i],
            Var::Aux(i) => self.aux_assignment[i],
        }
    }

    fn eval(&mut self, lc: &Lc, which: u8) -> Fr {
        let mut acc = Fr::zero();
        for &(v, coeff) in &lc.0 {
            if coeff.is_zero() {
                continue;
            }
            match (v, which) {
                (Var::Input(i), b'B') => self.b_input_density.inc(i),
                (Var::Aux(i), b'A') => self.a_aux_density.inc(i),
                (Var::Aux(i), b'B') => self.b_aux_density.inc(i),
                _ => {}
            }
            acc = acc.add(self.value(v).mul(coeff));
        }
        acc
    }

    fn push_row(&mut self, a: &Lc, b: &Lc, c: &Lc) {
        let (ea, eb, ec) = (self.eval(a, b'A'), self.eval(b, b'B'), self.eval(c, b'C'));
        self.a.push(ea);
        self.b.push(eb);
        self.c.push(ec);
    }

    pub fn enforce(&mut self, a: Lc, b: Lc, c: Lc) {
        self.push_row(&a, &b, &c);
        self.constraints.push((a, b, c));
    }

    /// bellperson's prover: one `input_i · 0 = 0` row per input, ONE included.
    pub fn finish(mut self) -> ProvingAssignment {
        for i in 0..self.input_assignment.len() {
            self.push_row(&Lc::var(Var::Input(i)), &Lc::new(), &Lc::new());
        }
        self
    }

    /// Whether every constraint holds (the test circuits must be satisfied).
    pub fn satisfied(&self) -> bool {
        (0..self.a.len()).all(|i| self.a[i].mul(self.b[i]) == self.c[i])
    }
}

/// The constraints as a circom .r1cs file (iden3 binfile, version 1): wire 0 = ONE, then the
/// public inputs, then the aux variables; LCs merged by wire and sorted, zero terms dropped.
pub fn write_r1cs(path: &std::path::Path, cs: &ProvingAssignment) {
    let (ni, na) = (cs.input_assignment.len(), cs.aux_assignment.len());
    let wire = |v: Var| -> u32 {
        match v {
            Var::Input(i) => i as u32,
            Var::Aux(i) => (ni + i) as u32,
        }
    };
    let mut body = Vec::new();
    for (a, b, c) in &cs.constraints {
        for lc in [a, b, c] {
            let mut terms: Vec<(u32, Fr)> = Vec::new();
            for &(v, coeff) in &lc.0 {
                let w = wire(v);
                match terms.iter_mut().find(|t| t.0 == w) {
                    Some(t) => t.1 = t.1.add(coeff),
                    None => terms.push((w, coeff)),
                }
            }
            terms.retain(|t| !t.1.is_zero());
            terms.sort_by_key(|t| t.0);
            body.extend_from_slice(&(terms.len() as u32).to_le_bytes());
            for (w, coeff) in terms {
                body.extend_from_slice(&w.to_le_bytes());
                body.extend_from_slice(&coeff.to_le_bytes());
            }
        }
    }
    let mut header = Vec::new();
    header.extend_from_slice(&32u32.to_le_bytes());
    for limb in super::field::R_LIMBS {
        header.extend_from_slice(&limb.to_le_bytes());
    }
    for v in [(ni + na) as u32, 0, (ni - 1) as u32, 0] {
        header.extend_from_slice(&v.to_le_bytes()); // nWires, nPubOut, nPubIn, nPrvIn
    }
    header.extend_from_slice(&((ni + na) as u64).to_le_bytes()); // nLabels
    header.extend_from_slice(&(cs.constraints.len() as u32).to_le_bytes());
    let mut file = b"r1cs".to_vec();
    file.extend_from_slice(&1u32.to_le_bytes());
    file.extend_from_slice(&2u32.to_le_bytes());
    for (kind, section) in [(1u32, &header), (2u32, &body)] {
        file.extend_from_slice(&kind.to_le_bytes());
        file.extend_from_slice(&(section.len() as u64).to_le_bytes());
        file.extend_from_slice(section);
    }
    std::fs::write(path, file).unwrap_or_else(|e| panic!("{}: {}", path.display(), e));
}
