// Whole-process wall times of several commands run alternately (A B C A B C ...) so that drift in
// the speed of a shared machine hits all of them; prints each run, the medians and each median's
// speed-up over the first command's. Used by scripts/bench-vs-snarkjs.sh and
// scripts/bench-bn254-peers.sh (node, which snarkjs needs anyway: POSIX sh has no sub-second
// clock). A run that fails stops the benchmark with exit status 1.
//
// usage: node scripts/time-alternating.cjs RUNS 'LABEL|COMMAND' ...
// COMMAND is split on spaces (no quoting: paths with spaces are not supported).
const { spawnSync } = require("child_process");

const runs = Number(process.argv[2]);
const sides = process.argv.slice(3).map((s) => {
  const bar = s.indexOf("|");
  return { label: s.slice(0, bar), cmd: s.slice(bar + 1), times: [] };
});
function time(cmd) {
  const [file, ...args] = cmd.split(" ").filter((w) => w !== "");
  const t0 = process.hrtime.bigint();
  const r = spawnSync(file, args, { stdio: ["ignore", "ignore", "inherit"] });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (r.status !== 0) { console.error(`failed (${r.status ?? r.signal ?? r.error}): ${cmd}`); process.exit(1); }
  return s;
}
const median = (xs) => { const s = [...xs].sort((x, y) => x - y); const m = s.length >> 1;
                         return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
for (let i = 0; i < runs; ++i) for (const side of sides) side.times.push(time(side.cmd));
const width = Math.max(...sides.map((s) => s.label.length)) + 1;
for (const s of sides) {
  console.log(`${(s.label + ":").padEnd(width)} ${s.times.map((x) => x.toFixed(3)).join(" ")} s; ` +
              `median ${median(s.times).toFixed(3)} s`);
}
for (const s of sides.slice(1)) {
  console.log(`speed-up (${sides[0].label} median / ${s.label} median): ` +
              `${(median(sides[0].times) / median(s.times)).toFixed(2)}x`);
}
