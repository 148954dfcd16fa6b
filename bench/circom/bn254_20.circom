pragma circom 2.0.0;
// 2024 Poseidon hashes: 1,048,431 constraints (circom2 0.2.23 defaults, --prime bn128), which
// with 2 public signals fill snarkjs's 2^20 = 1,048,576-row domain
// (scripts/bn254-bench-circuits.sh).
include "poseidon_chain.circom";

component main {public [nonce]} = PoseidonChain(2024);
