pragma circom 2.0.0;

// Benchmark circuit for `snarkd prove --zkey` against `snarkjs groth16 prove` (see README.md):
// about 16,000 constraints of the two kinds real circuits mix, sized so that constraints +
// nPublic + 1 fits snarkjs's 2^14 domain.
//  * Bit work, like SHA-256 / Keccak gadgets: 16 private 64-bit words are split into bits
//    (64 booleanity constraints each), then ROUNDS rounds of XOR with a rotated neighbour and a
//    bitwise choose, one constraint per bit per gate. Witness values are 0 or 1.
//  * Field work, like MiMC / Poseidon: the final words are recomposed (linear, free) and
//    absorbed into a keyed x^5 permutation, 3 constraints per round. Witness values are
//    full-size field elements.
// Public: the output digest and the inputs seed, nonce (nPublic = 3).

// out[i] is bit i of in; in < 2^n.
template ToBits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * e;
        e = e + e;
    }
    acc === in;
}

// One mixing step on bit vectors: x = a XOR rotr(b, r), then out = x ? c : d (choose).
template MixWord(n, r) {
    signal input a[n];
    signal input b[n];
    signal input c[n];
    signal input d[n];
    signal output out[n];
    signal x[n];
    for (var i = 0; i < n; i++) {
        var bi = b[(i + r) % n];
        x[i] <== a[i] + bi - 2 * a[i] * bi;
        out[i] <== x[i] * (c[i] - d[i]) + d[i];
    }
}

// y = (x + k + c)^5: one round of a keyed MiMC-style permutation.
template Pow5Round(c) {
    signal input in;
    signal input k;
    signal output out;
    signal t2;
    signal t4;
    var t = in + k + c;
    t2 <== t * t;
    t4 <== t2 * t2;
    out <== t4 * t;
}

template Bench(W, ROUNDS, PERM) {
    signal input seed;
    signal input nonce;
    signal input words[W];
    signal output digest;

    component split[W];
    for (var w = 0; w < W; w++) {
        split[w] = ToBits(64);
        split[w].in <== words[w];
    }

    component mix[ROUNDS][W];
    for (var r = 0; r < ROUNDS; r++) {
        for (var w = 0; w < W; w++) {
            mix[r][w] = MixWord(64, (7 * r + 3 * w + 1) % 63 + 1);
            for (var i = 0; i < 64; i++) {
                var a = (w + 0) % W;
                var b = (w + 1) % W;
                var c = (w + 5) % W;
                var d = (w + 11) % W;
                if (r == 0) {
                    mix[r][w].a[i] <== split[a].out[i];
                    mix[r][w].b[i] <== split[b].out[i];
                    mix[r][w].c[i] <== split[c].out[i];
                    mix[r][w].d[i] <== split[d].out[i];
                } else {
                    mix[r][w].a[i] <== mix[r - 1][a].out[i];
                    mix[r][w].b[i] <== mix[r - 1][b].out[i];
                    mix[r][w].c[i] <== mix[r - 1][c].out[i];
                    mix[r][w].d[i] <== mix[r - 1][d].out[i];
                }
            }
        }
    }

    signal key;
    key <== seed * nonce + 1;

    component perm[W][PERM];
    for (var w = 0; w < W; w++) {
        var word = 0;
        var e = 1;
        for (var i = 0; i < 64; i++) {
            word += mix[ROUNDS - 1][w].out[i] * e;
            e = e + e;
        }
        for (var p = 0; p < PERM; p++) {
            perm[w][p] = Pow5Round(w * PERM + p + 1);
            perm[w][p].k <== key;
            if (p == 0 && w == 0) {
                perm[w][p].in <== word + seed;
            } else if (p == 0) {
                perm[w][p].in <== perm[w - 1][PERM - 1].out + word;
            } else {
                perm[w][p].in <== perm[w][p - 1].out;
            }
        }
    }
    digest <== perm[W - 1][PERM - 1].out + key;
}

component main {public [seed, nonce]} = Bench(16, 5, 100);
