pragma circom 2.0.0;
// A chain of n Poseidon(2) hashes, h[i+1] = Poseidon(h[i], nonce + i), for the BN254 prover
// benchmarks (issue 23; bench/circom/README.md): circom/snarkjs users' circuits are mostly
// Poseidon, with full-size field elements throughout the witness. Included by bn254_16.circom
// and bn254_20.circom, which only pick n so that the circuit fills a 2^16 or 2^20 domain.
include "circomlib/circuits/poseidon.circom";

template PoseidonChain(n) {
    signal input seed;   // private
    signal input nonce;  // public
    signal output digest;

    signal h[n + 1];
    component p[n];
    h[0] <== seed;
    for (var i = 0; i < n; i++) {
        p[i] = Poseidon(2);
        p[i].inputs[0] <== h[i];
        p[i].inputs[1] <== nonce + i;
        h[i + 1] <== p[i].out;
    }
    digest <== h[n];
}
