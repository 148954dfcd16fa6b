//! Just enough BLS12-381 field arithmetic for the tests, written independently of snarkd's C++:
//! Montgomery multiplication over N 64-bit limbs (CIOS with u128), conversion in and out of
//! Montgomery form, and canonical integers as decimal strings.

/// r, the order of G1/G2 (the scalar field), little-endian limbs.
pub const R_LIMBS: [u64; 4] = [0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48];
/// p, the base field modulus, little-endian limbs.
pub const P_LIMBS: [u64; 6] = [
    0xb9feffffffffaaab,
    0x1eabfffeb153ffff,
    0x6730d2a0f6b0f624,
    0x64774b84f38512bf,
    0x4b1ba7b6434bacd7,
    0x1a0111ea397fe69a,
];

pub fn less_than<const N: usize>(a: &[u64; N], b: &[u64; N]) -> bool {
    for i in (0..N).rev() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
    }
    false
}

fn add_mod<const N: usize>(a: &[u64; N], b: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let mut r = [0u64; N];
    let mut carry = 0u128;
    for i in 0..N {
        let s = a[i] as u128 + b[i] as u128 + carry;
        r[i] = s as u64;
        carry = s >> 64;
    }
    if carry != 0 || !less_than(&r, m) {
        r = sub_raw(&r, m).0;
    }
    r
}

fn sub_raw<const N: usize>(a: &[u64; N], b: &[u64; N]) -> ([u64; N], bool) {
    let mut r = [0u64; N];
    let mut borrow = false;
    for i in 0..N {
        let (d1, b1) = a[i].overflowing_sub(b[i]);
        let (d2, b2) = d1.overflowing_sub(borrow as u64);
        r[i] = d2;
        borrow = b1 || b2;
    }
    (r, borrow)
}

fn sub_mod<const N: usize>(a: &[u64; N], b: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let (r, borrow) = sub_raw(a, b);
    if borrow {
        let mut out = [0u64; N];
        let mut carry = 0u128;
        for i in 0..N {
            let s = r[i] as u128 + m[i] as u128 + carry;
            out[i] = s as u64;
            carry = s >> 64;
        }
        out
    } else {
        r
    }
}

/// -m⁻¹ mod 2^64 by Newton's iteration.
fn neg_inv(m0: u64) -> u64 {
    let mut inv = 1u64;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
    }
    inv.wrapping_neg()
}

/// a·b·2^(−64N) mod m (CIOS), for a, b < m.
fn mont_mul<const N: usize>(a: &[u64; N], b: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let inv = neg_inv(m[0]);
    let mut t = vec![0u64; N + 2];
    for &bi in b.iter() {
        let mut carry = 0u128;
        for j in 0..N {
            let s = t[j] as u128 + a[j] as u128 * bi as u128 + carry;
            t[j] = s as u64;
            carry = s >> 64;
        }
        let s = t[N] as u128 + carry;
        t[N] = s as u64;
        t[N + 1] = (s >> 64) as u64;
        let k = t[0].wrapping_mul(inv);
        let mut carry = (t[0] as u128 + k as u128 * m[0] as u128) >> 64;
        for j in 1..N {
            let s = t[j] as u128 + k as u128 * m[j] as u128 + carry;
            t[j - 1] = s as u64;
            carry = s >> 64;
        }
        let s = t[N] as u128 + carry;
        t[N - 1] = s as u64;
        t[N] = t[N + 1] + (s >> 64) as u64;
    }
    let mut r = [0u64; N];
    r.copy_from_slice(&t[..N]);
    if t[N] != 0 || !less_than(&r, m) {
        r = sub_raw(&r, m).0;
    }
    r
}

/// 2^(128N) mod m, the factor that takes an integer into Montgomery form.
fn r_squared<const N: usize>(m: &[u64; N]) -> [u64; N] {
    let mut x = [0u64; N];
    x[0] = 1;
    for _ in 0..128 * N {
        x = add_mod(&x, &x, m);
    }
    x
}

/// The canonical integer behind Montgomery limbs.
pub fn from_mont<const N: usize>(a: &[u64; N], m: &[u64; N]) -> [u64; N] {
    let mut one = [0u64; N];
    one[0] = 1;
    mont_mul(a, &one, m)
}

/// Fr in blst's layout: Montgomery form, 4 little-endian limbs.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Fr(pub [u64; 4]);

impl Fr {
    pub fn zero() -> Fr {
        Fr([0; 4])
    }
    pub fn from_u64(v: u64) -> Fr {
        let mut x = [0u64; 4];
        x[0] = v;
        if !less_than(&x, &R_LIMBS) {
            x = sub_raw(&x, &R_LIMBS).0;
        }
        Fr(mont_mul(&x, &r_squared(&R_LIMBS), &R_LIMBS))
    }
    pub fn one() -> Fr {
        Fr::from_u64(1)
    }
    /// A uniformly random element from 4 random limbs (rejection sampling below r).
    pub fn random(rng: &mut Rng) -> Fr {
        loop {
            let mut x = [rng.next(), rng.next(), rng.next(), rng.next()];
            x[3] &= (1 << 63) - 1;
            if less_than(&x, &R_LIMBS) {
                return Fr(x);
            }
        }
    }
    pub fn add(self, o: Fr) -> Fr {
        Fr(add_mod(&self.0, &o.0, &R_LIMBS))
    }
    pub fn sub(self, o: Fr) -> Fr {
        Fr(sub_mod(&self.0, &o.0, &R_LIMBS))
    }
    pub fn mul(self, o: Fr) -> Fr {
        Fr(mont_mul(&self.0, &o.0, &R_LIMBS))
    }
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 4]
    }
    pub fn canonical(&self) -> [u64; 4] {
        from_mont(&self.0, &R_LIMBS)
    }
    /// The canonical value in decimal (public.json).
    pub fn to_decimal(self) -> String {
        let mut v = self.canonical();
        if v == [0; 4] {
            return "0".to_string();
        }
        let mut digits = Vec::new();
        while v != [0; 4] {
            let mut rem = 0u128;
            for i in (0..4).rev() {
                let cur = (rem << 64) | v[i] as u128;
                v[i] = (cur / 10) as u64;
                rem = cur % 10;
            }
            digits.push(b'0' + rem as u8);
        }
        digits.reverse();
        String::from_utf8(digits).unwrap()
    }
    /// The canonical value as 32 little-endian bytes (circom files).
    pub fn to_le_bytes(self) -> [u8; 32] {
        let v = self.canonical();
        let mut out = [0u8; 32];
        for i in 0..4 {
            out[8 * i..8 * i + 8].copy_from_slice(&v[i].to_le_bytes());
        }
        out
    }
}

/// splitmix64: a seeded stream for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        z ^ (z >> 31)
    }
}

/// The process's test seed: SNARKD_TEST_SEED pins it, otherwise the clock; printed once.
pub fn seed() -> u64 {
    static SEED: std::sync::Once = std::sync::Once::new();
    static mut VALUE: u64 = 0;
    SEED.call_once(|| {
        let v = match std::env::var("SNARKD_TEST_SEED") {
            Ok(s) => s.parse().expect("SNARKD_TEST_SEED must be an integer"),
            Err(_) => std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64,
        };
        println!("[seed] SNARKD_TEST_SEED={}", v);
        unsafe { VALUE = v };
    });
    unsafe { VALUE }
}

/// A stream for one test: the process seed mixed with the test's label.
pub fn rng(label: &str) -> Rng {
    let mut h = seed();
    for b in label.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    Rng::new(h)
}
