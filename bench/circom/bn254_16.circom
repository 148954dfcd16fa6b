pragma circom 2.0.0;
// 126 Poseidon hashes: 65,267 constraints (30,618 non-linear; circom2 0.2.23 defaults, --prime
// bn128), which with 2 public signals fill snarkjs's 2^16 = 65,536-row domain
// (scripts/bn254-bench-circuits.sh).
include "poseidon_chain.circom";

component main {public [nonce]} = PoseidonChain(126);
