// node binfile_section.cjs FILE ID: the byte offset of the payload of section ID of an iden3
// binfile (.zkey, .r1cs, .wtns: magic, u32 version, u32 nSections, then u32 type + u64 size +
// payload per section, little-endian); exit 1 when the file has no such section.
const fs = require("fs");
const b = fs.readFileSync(process.argv[2]);
const want = Number(process.argv[3]);
let at = 12;
for (let i = 0; i < b.readUInt32LE(8); i++) {
  const type = b.readUInt32LE(at);
  const size = Number(b.readBigUInt64LE(at + 4));
  if (type === want) {
    console.log(at + 12);
    process.exit(0);
  }
  at += 12 + size;
}
process.exit(1);
