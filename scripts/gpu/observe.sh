#!/bin/sh
# The GPU half of issue 21 item 7 (observability), for the device tool: what CI cannot see
# without a driver. Run from the repository root with an optimised CUDA build carried in $B:
#   $B/apps/snarkd, $B/apps/snarkctl, $B/tests/server/test_server (+ libfake_nvml.so beside it)
#   (ninja -C build snarkd_cli snarkctl test_server)
# 1. The observability unit tests on a machine with the real libnvidia-ml (the service tests
#    then expect NVML "ok" instead of "unavailable").
# 2. A daemon on $OBS_DEVICE (cuda:0) with JSON debug logs proves one job of $OBS_PARTITIONS
#    partitions of a $OBS_CONSTRAINTS-constraint synthetic circuit (witnesses by path) while
#    /status is polled twice a second and nvidia-smi samples the card beside it. Checked: NVML
#    "ok: driver …", the device's ledger labelled "vram", every GPU sample available with a
#    name, the card's memory used ≥ the ledger pool (allocated at start-up), utilisation > 0
#    while proving (and nvidia-smi's maximum next to ours), sample age < 5 s; /metrics has the
#    snarkd_gpu_* series and memory="vram" (promtool check metrics where promtool exists); the
#    JSON log parses line by line with one partition_finished line per partition on the GPU,
#    each with its compute phases; throughput and duration quantiles present.
# Logs and the polled statuses go to $OUT; the summary table is printed last.
# Expected: about 3 minutes on one H200 (the CPU key setup of 2^20 constraints dominates).
#   env: OBS_DEVICE (cuda:0; sim or cpu for a dry run: the GPU checks then say "skip"),
#        OBS_CONSTRAINTS (1048576), OBS_PARTITIONS (48), B (build), OUT, OBS_WORK
set -u
OUT=${OUT:-/tmp/snarkd-gpu-observe}
B=${B:-build}
N=${OBS_CONSTRAINTS:-1048576}
P=${OBS_PARTITIONS:-48}
DEVICE=${OBS_DEVICE:-cuda:0}
W=${OBS_WORK:-/tmp/snarkd-observe-work}
rm -rf "$W"
mkdir -p "$OUT" "$W/wit"
rm -f "$OUT/status.jsonl" "$OUT/daemon.jsonl" "$OUT/nvidia-smi.csv"
S=$OUT/summary.txt
: > "$S"
PID=""
SAMPLER=""
SMI=""
cleanup() {
  for p in $SAMPLER $SMI $PID; do kill -9 "$p" 2>/dev/null; done
}
trap cleanup EXIT

step() {  # name, command...: logs to $OUT/name.log, notes rc and seconds in the summary
  name=$1; shift
  start=$(date +%s)
  "$@" > "$OUT/$name.log" 2>&1
  rc=$?
  printf '%-22s rc=%-3s %4s s  %s\n' "$name" "$rc" "$(( $(date +%s) - start ))" \
    "$(grep -E '^\[  (PASSED|FAILED) ' "$OUT/$name.log" | tr '\n' ' ')" >> "$S"
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/nvidia-smi.txt" 2>&1
step unit_tests "$B/tests/server/test_server" \
  --gtest_filter='GpuMonitor.*:HostStats.*:Activity.*:LogFormat.*:Service.Status*:Service.Metrics*:Service.Debug*'
step synth "$B/apps/snarkd" synth --constraints "$N" --circuit "$W/c.csr" --witness "$W/wit/w.wtns" --no-progress ||
  { cat "$S"; exit 1; }
step setup "$B/apps/snarkd" setup --r1cs "$W/c.csr" --params "$W/k.params" --seed 7 --no-progress ||
  { cat "$S"; exit 1; }

cat > "$W/d.toml" <<EOF
[server]
socket = "$W/d.sock"
http_listen = "127.0.0.1:0"
ports_file = "$W/ports.json"
witness_dirs = ["$W/wit"]
[engine]
devices = "$DEVICE"
workers_per_device = 2
[journal]
state_dir = "$W/state"
[log]
level = "debug"
format = "json"
file = "$OUT/daemon.jsonl"
[[circuit]]
id = "c"
params = "$W/k.params"
circuit = "$W/c.csr"
EOF
"$B/apps/snarkd" serve --config "$W/d.toml" > "$OUT/daemon.stderr" 2>&1 &
PID=$!
i=0
while [ ! -s "$W/ports.json" ] && [ $i -lt 1200 ] && kill -0 "$PID" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
[ -s "$W/ports.json" ] || { echo "the daemon did not start" >> "$S"; tail -5 "$OUT/daemon.stderr" >> "$S"; cat "$S"; exit 1; }
HTTP=$(sed -n 's/.*"http": \([0-9]*\).*/\1/p' "$W/ports.json")
export SNARKD_SOCKET="$W/d.sock"

# /status twice a second (one JSON object per line) and nvidia-smi beside it, while the job runs.
( while [ ! -e "$W/stop" ]; do curl -s "http://127.0.0.1:$HTTP/status" >> "$OUT/status.jsonl"; sleep 0.5; done ) &
SAMPLER=$!
nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 500 > "$OUT/nvidia-smi.csv" 2>/dev/null &
SMI=$!
parts=""
k=0
while [ $k -lt "$P" ]; do parts="$parts $W/wit/w.wtns"; k=$((k + 1)); done
# shellcheck disable=SC2086  # one path per partition
step prove "$B/apps/snarkctl" prove --circuit c --by-path $parts --no-progress
sleep 1.5  # two more status samples after the job (the sampler is not a check: no race)
: > "$W/stop"
wait "$SAMPLER" 2>/dev/null
SAMPLER=""
kill "$SMI" 2>/dev/null
SMI=""
curl -s "http://127.0.0.1:$HTTP/metrics" > "$OUT/metrics.txt"
"$B/apps/snarkctl" status > "$OUT/snarkctl_status.txt" 2>&1
if command -v promtool > /dev/null; then
  step promtool sh -c "promtool check metrics < '$OUT/metrics.txt'"
else
  echo "promtool                (not installed here; CI's daemon test runs it)" >> "$S"
fi
kill -TERM "$PID"
wait "$PID"
echo "daemon exit: $?" >> "$S"
PID=""

python3 - "$OUT" "$DEVICE" "$P" >> "$S" 2>&1 <<'EOF'
import json, re, sys
out, device, parts = sys.argv[1], sys.argv[2], int(sys.argv[3])
gpu = device.startswith("cuda:")
fails = 0
def check(name, ok, detail=""):
    global fails
    fails += not ok
    print(("ok   " if ok else "FAIL ") + name + (f"  ({detail})" if detail else ""))
def skip(name):
    print("skip " + name + " (not a GPU device)")
statuses = [json.loads(l) for l in open(f"{out}/status.jsonl") if l.strip()]
check("status samples", len(statuses) >= 4, f"{len(statuses)}")
last = statuses[-1]
device = last["devices"][0]["name"]  # the spec's first device ("sim" → "sim:0")
dev = last["devices"][0]
samples = [next(d for d in s["devices"] if d["name"] == device)["gpu"] for s in statuses]
util = max(g["utilization"] for g in samples)
used = max(g["memory_used_bytes"] for g in samples)
smi = [l.split(",") for l in open(f"{out}/nvidia-smi.csv") if "," in l]
smi_util = max((float(u) for u, _ in smi), default=-1)
smi_mib = max((float(m) for _, m in smi), default=-1)
if gpu:
    check("nvml ok", last["nvml"].startswith("ok"), last["nvml"])
    check("ledger labelled vram", dev["memory"] == "vram", dev["memory"])
    check("every GPU sample available", all(g["available"] for g in samples),
          next((g["reason"] for g in samples if not g["available"]), ""))
    check("board name", bool(dev["gpu"]["name"]), dev["gpu"]["name"])
    check("card memory used >= ledger pool", used >= dev["pool_bytes"], f"{used / 2**30:.1f} GiB used, pool {dev['pool_bytes'] / 2**30:.1f} GiB")
    check("utilisation > 0 while proving", util > 0, f"ours max {util:.2f}, nvidia-smi max {smi_util:.0f} %")
    check("sample age < 5 s", all(g["sample_age_s"] < 5 for g in samples), f"max {max(g['sample_age_s'] for g in samples):.2f} s")
else:
    for n in ("nvml ok", "ledger labelled vram", "GPU samples", "utilisation"): skip(n)
m = open(f"{out}/metrics.txt").read()
mem = dev["memory"]
check("metrics: ledger memory label", f'snarkd_ledger_capacity_bytes{{device="{device}",memory="{mem}"}}' in m)
check("metrics: build_info and process_*", "snarkd_build_info{" in m and "\nprocess_cpu_seconds_total " in m)
if gpu:
    check("metrics: snarkd_gpu_* series", f'snarkd_gpu_utilization_ratio{{device="{device}"}}' in m and "\nsnarkd_nvml_available 1\n" in m)
lines = pl = with_phases = 0
for l in open(f"{out}/daemon.jsonl", encoding="utf-8"):
    o = json.loads(l)
    lines += 1
    if o.get("event") == "partition_finished":
        pl += 1
        with_phases += bool(o["fields"]["phases"]) and o["fields"]["device"] == device
check("JSON log parses", lines > 5, f"{lines} lines")
check("a partition_finished line per partition", pl == parts, f"{pl} of {parts}")
if gpu:
    check("compute phases in every partition line", with_phases == parts, f"{with_phases}")
t = last["throughput"]
check("throughput", t["partitions"] == parts and t["partitions_per_s"] > 0, f"{t['partitions_per_s']:.2f} partitions/s")
jd = {q["name"]: q for q in last["job_durations"]}
sd = {q["name"]: q for q in last["stage_durations"]}
check("durations", "c" in jd and "compute" in sd)
print("-- one job of %d partitions on %s" % (parts, device))
print("%-28s %s" % ("job duration", "%.3f s" % jd["c"]["max_s"] if "c" in jd else "-"))
for st in ("queued", "wait_vram", "upload", "compute", "finalize"):
    if st in sd:
        print("%-28s median %.4f s  p95 %.4f s  max %.4f s" % ("stage " + st, sd[st]["median_s"], sd[st]["p95_s"], sd[st]["max_s"]))
print("%-28s %.3f" % ("partitions/s (window)", t["partitions_per_s"]))
print("%-28s ours %.2f  nvidia-smi %.0f %%" % ("max GPU utilisation", util, smi_util))
print("%-28s ours %.2f GiB  nvidia-smi %.2f GiB" % ("max card memory used", used / 2**30, smi_mib / 1024))
print("%-28s %.1f MiB (peak %.1f)" % ("daemon RSS", last["host"]["process_resident_bytes"] / 2**20, last["host"]["process_peak_resident_bytes"] / 2**20))
print("checks failed: %d" % fails)
EOF
echo "== $(cat "$OUT/nvidia-smi.txt")"
cat "$S"
