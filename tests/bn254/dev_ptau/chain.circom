pragma circom 2.0.0;

// scripts/bn254-dev-ptau-check.sh's circuit: 100 squarings, public x and y, so snarkjs's QAP has
// 100 + 2 + 1 = 103 rows and a 2^7 domain. Keyed from a 2^7 ptau the domain is the file's power
// (zkey new then takes its H points from section 12's truncated top level), from a 2^8 one it
// is below it (a full level).
template Chain(n) {
  signal input x;
  signal output y;
  signal t[n + 1];
  t[0] <== x;
  for (var i = 0; i < n; i++) t[i + 1] <== t[i] * t[i] + i;
  y <== t[n];
}

component main {public [x]} = Chain(100);
