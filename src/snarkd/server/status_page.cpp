// The live status page served at GET / on the HTTP side port: one self-contained HTML file
// (inline CSS and JavaScript, no build step, no external requests) that polls /status once a
// second and draws the build, the host (memory, this process, NVML), throughput and job/stage
// duration quantiles, devices (each ledger labelled with what its bytes are: VRAM only on a
// GPU) with NVML's view of each GPU and the workers' current stages, queues, budgets, keys and
// the most recent jobs. Text is inserted with textContent only (job errors come from clients).
#include "snarkd/server/status_page.hpp"

namespace snarkd::server {

const char* status_page_html() {
  return R"html(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>snarkd status</title>
<style>
  :root { --bg:#0f1419; --panel:#171d24; --line:#2a323c; --text:#d8dee6; --dim:#8a96a3;
          --wait:#b58900; --upload:#268bd2; --compute:#2aa198; --finalize:#6c71c4; --idle:#3a444f;
          --done:#859900; --failed:#dc322f; --cancelled:#93a1a1; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.4 system-ui, sans-serif; background:var(--bg); color:var(--text); }
  header { display:flex; gap:24px; align-items:baseline; padding:14px 20px; border-bottom:1px solid var(--line); }
  header h1 { font-size:18px; margin:0; }
  .dim { color:var(--dim); }
  main { padding:16px 20px; display:grid; gap:16px; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); }
  section { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:12px 14px; }
  section h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--dim); margin:0 0 10px; }
  .wide { grid-column: 1 / -1; }
  .tiles { display:flex; flex-wrap:wrap; gap:18px; }
  .tile b { display:block; font-size:22px; }
  table { width:100%; border-collapse:collapse; }
  th, td { text-align:left; padding:4px 6px; border-bottom:1px solid var(--line); white-space:nowrap; }
  th { color:var(--dim); font-weight:normal; }
  td.err { white-space:normal; color:var(--failed); }
  div.err { color:var(--failed); }
  .bar { height:10px; background:var(--idle); border-radius:3px; overflow:hidden; }
  .bar > div { height:100%; background:var(--upload); }
  .worker { display:flex; align-items:center; gap:8px; margin:4px 0; }
  .chip { display:inline-block; min-width:86px; padding:2px 8px; border-radius:3px; text-align:center; color:#fff; }
  .idle { background:var(--idle); } .wait_vram, .wait_compute { background:var(--wait); } .upload { background:var(--upload); }
  .compute { background:var(--compute); } .finalize { background:var(--finalize); }
  .s-done { color:var(--done); } .s-failed { color:var(--failed); } .s-cancelled { color:var(--cancelled); }
  .s-running { color:var(--compute); } .s-queued { color:var(--wait); }
  .bar.gpu > div { background:var(--compute); }
  #conn.bad { color:var(--failed); }
</style>
</head>
<body>
<header>
  <h1>snarkd</h1>
  <span id="version" class="dim"></span>
  <span id="build" class="dim"></span>
  <span id="uptime" class="dim"></span>
  <span id="drain"></span>
  <span id="conn" class="dim">connecting…</span>
</header>
<main>
  <section class="wide"><h2>Jobs</h2><div class="tiles" id="tiles"></div></section>
  <section class="wide" id="cluster-section" hidden><h2>Cluster</h2><div id="cluster"></div><table id="hosts"></table></section>
  <section><h2>Throughput</h2><div class="tiles" id="throughput"></div><table id="stages"></table></section>
  <section><h2>Host</h2><div id="host"></div></section>
  <section><h2>Devices and workers</h2><div id="devices"></div></section>
  <section><h2>Budgets</h2><div id="budgets"></div></section>
  <section class="wide"><h2>Job durations (recent completed jobs)</h2><table id="durations"></table></section>
  <section class="wide"><h2>Keys</h2><table id="keys"></table></section>
  <section class="wide"><h2>Recent jobs</h2><table id="jobs"></table></section>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of kids) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}
function bytes(n) {
  const u = ["B", "KiB", "MiB", "GiB", "TiB"]; let i = 0; n = Number(n);
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + " " + u[i];
}
function secs(s) { s = Number(s); return s < 1 ? (s * 1000).toFixed(0) + " ms" : s < 120 ? s.toFixed(1) + " s" : (s / 60).toFixed(1) + " min"; }
// What a ledger's bytes are (DeviceStatus.memory): only a GPU's are VRAM.
const MEMORY = { vram: "VRAM", host_arena: "simulated VRAM (host arena)", host: "host RAM for working sets" };
function memory(d) { return MEMORY[d.memory] || d.memory; }
function pct100(x) { return (100 * Number(x)).toFixed(0) + "%"; }
function rate(x) { x = Number(x); return x >= 10 ? x.toFixed(1) : x.toPrecision(3); }
function gpuLine(g) {
  if (!g.available) return el("div", { class: "dim" }, "GPU figures unavailable: " + g.reason);
  return el("div", {},
    el("div", {}, (g.name ? g.name + ": " : "") + "GPU " + pct100(g.utilization) + " busy · memory " +
      bytes(g.memory_used_bytes) + " of " + bytes(g.memory_total_bytes) + " used on the card · " +
      g.temperature_c + " °C" + (g.power_w > 0 ? " · " + Number(g.power_w).toFixed(0) + " W" : "")),
    el("div", { class: "bar gpu", title: "GPU utilisation (NVML)" }, el("div", { style: "width:" + pct100(Math.min(1, g.utilization)) })));
}
function quantileRows(list) {
  return list.map((q) => el("tr", {}, el("td", {}, q.name), el("td", {}, q.count), el("td", {}, secs(q.median_s)),
    el("td", {}, secs(q.p95_s)), el("td", {}, secs(q.max_s))));
}
function state(s) { return String(s).replace(/^JOB_STATE_/, "").toLowerCase(); }
function table(id, head, rows) {
  const t = $(id); t.replaceChildren(el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const r of rows) t.append(r);
  if (!rows.length) t.append(el("tr", {}, el("td", { colspan: head.length, class: "dim" }, "none")));
}
function render(s) {
  $("version").textContent = "v" + s.version;
  const b = s.build || {};
  $("build").textContent = (b.git_commit || "") + " · CUDA " + (b.cuda ? "on" : "off") + (b.cuda_compile_check ? " (compile check: not for GPU timings)" : "");
  $("uptime").textContent = "up " + secs(s.uptime_s);
  $("drain").textContent = s.draining ? "DRAINING" : "";
  const tiles = [["queued", s.jobs_queued], ["running", s.jobs_running], ["done", s.jobs_done],
                 ["failed", s.jobs_failed], ["cancelled", s.jobs_cancelled],
                 ["partitions queued", s.queued_partitions], ["partitions in flight", s.in_flight_partitions],
                 ["invalid proofs", s.invalid_proofs], ["deadlocks", s.deadlocks], ["ledger over-commits", s.vram_overcommits]];
  $("tiles").replaceChildren(...tiles.map(([k, v]) => el("div", { class: "tile" }, el("b", {}, v), el("span", { class: "dim" }, k))));
  renderCluster(s.cluster);
  const pct = (a, b) => (b > 0 ? Math.min(100, 100 * a / b) : 0).toFixed(1) + "%";
  const t = s.throughput || {};
  $("throughput").replaceChildren(...[["partitions/s", rate(t.partitions_per_s)], ["jobs/s", rate(t.jobs_per_s)],
      ["partitions", t.partitions], ["jobs", t.jobs]].map(([k, v]) =>
    el("div", { class: "tile" }, el("b", {}, v), el("span", { class: "dim" }, k))),
    el("div", { class: "dim" }, "completed in the last " + secs(t.window_s)));
  table("stages", ["stage", "partitions", "median", "p95", "max"], quantileRows(s.stage_durations || []));
  table("durations", ["circuit", "jobs", "median", "p95", "max"], quantileRows(s.job_durations || []));
  const h = s.host || {};
  const hostUsed = Math.max(0, h.memory_total_bytes - h.memory_available_bytes);
  $("host").replaceChildren(
    el("div", {}, "host memory: " + bytes(hostUsed) + " of " + bytes(h.memory_total_bytes) + " in use (" +
      bytes(h.memory_available_bytes) + " available)"),
    el("div", { class: "bar", title: "host memory in use" }, el("div", { style: "width:" + pct(hostUsed, h.memory_total_bytes) })),
    el("div", {}, "snarkd: " + bytes(h.process_resident_bytes) + " resident (peak " + bytes(h.process_peak_resident_bytes) +
      ") · CPU " + secs(h.process_cpu_s) + " · " + h.process_threads + " threads · " + h.process_open_fds + " open files"),
    el("div", { class: "dim" }, "NVML: " + s.nvml));
  $("devices").replaceChildren(...s.devices.map((d) => el("div", {},
    el("div", {}, el("b", {}, d.name), el("span", { class: "dim" },
      "  " + memory(d) + " " + bytes(d.reserved_bytes) + " of " + bytes(d.pool_bytes) + " reserved (peak " + bytes(d.peak_reserved_bytes) +
      ") · " + d.vram_waiting + " waiting" + (d.memory === "host" ? "" : " · resident keys " + bytes(d.resident_bytes)))),
    el("div", { class: "bar", title: memory(d) + " reserved" }, el("div", { style: "width:" + pct(d.reserved_bytes, d.pool_bytes) })),
    ...(d.memory === "vram" ? [gpuLine(d.gpu)] : []),
    ...d.workers.map((w) => el("div", { class: "worker" },
      el("span", { class: "dim" }, "worker " + w.index),
      el("span", { class: "chip " + w.stage }, w.stage),
      el("span", {}, w.job_id && w.job_id !== "0" ? "job " + w.job_id + " · partition " + w.partition + " · " + secs(w.stage_s) : ""))))));
  const used = s.host_budget_bytes > 0 ? s.host_in_use_bytes / s.host_budget_bytes : 0;
  $("budgets").replaceChildren(
    el("div", {}, "host budget: " + bytes(s.host_in_use_bytes) + " of " + (s.host_budget_bytes > 0 ? bytes(s.host_budget_bytes) : "unlimited") + " (peak " + bytes(s.host_peak_bytes) + ")"),
    el("div", { class: "bar" }, el("div", { style: "width:" + (100 * Math.min(1, used)).toFixed(1) + "%" })),
    ...s.devices.map((d) => el("div", {}, d.name + " " + memory(d) + " reserved " + bytes(d.reserved_bytes) + " of " + bytes(d.pool_bytes) +
      " (peak " + bytes(d.peak_reserved_bytes) + ")",
      el("div", { class: "bar" }, el("div", { style: "width:" + pct(d.reserved_bytes, d.pool_bytes) })))));
  table("keys", ["circuit", "curve", "flavour", "constraints", "variables", "public", "domain", "unfinished jobs", "source"],
    s.keys.map((k) => el("tr", {}, el("td", {}, k.circuit_id), el("td", {}, k.curve), el("td", {}, k.flavour), el("td", {}, k.constraints),
      el("td", {}, k.num_vars), el("td", {}, k.num_public), el("td", {}, "2^" + k.domain_log2), el("td", {}, k.unfinished_jobs),
      el("td", { class: "dim" }, k.source))).concat((s.failed_circuits || []).map((f) => el("tr", {},
      el("td", {}, f.circuit_id), el("td", { class: "err", colspan: 7 }, "failed to load: " + f.error),
      el("td", { class: "dim" }, f.source)))));
  table("jobs", ["job", "circuit", "state", "priority", "partitions", "age", "error"],
    s.recent_jobs.map((j) => el("tr", {}, el("td", {}, j.job_id), el("td", {}, j.circuit_id),
      el("td", { class: "s-" + state(j.state) }, state(j.state)), el("td", {}, String(j.priority).replace(/^PRIORITY_/, "").toLowerCase()),
      el("td", {}, j.partitions_proven + "/" + j.partitions), el("td", {}, secs(j.age_s)), el("td", { class: "err" }, j.error))));
}
// Cluster mode only ([cluster] database): the database link and every daemon's host row.
function renderCluster(c) {
  $("cluster-section").hidden = !c;
  if (!c) return;
  $("cluster").replaceChildren(
    c.connected ? el("div", {}, "database connected · schema v" + (c.schema_version || 0))
                : el("div", { class: "err" }, "database DISCONNECTED for " + secs(c.disconnected_s || 0) + ": " + (c.last_error || "")),
    el("div", { class: "dim" }, "this daemon: " + c.host + " · partitions queued " + (c.queued_partitions || 0) + " · claimed " +
      (c.claimed_partitions || 0) + " · held here " + (c.held_partitions || 0)));
  table("hosts", ["host", "heartbeat age", "devices", "workers", "partitions in flight", "state", "keys"],
    (c.hosts || []).map((h) => el("tr", {}, el("td", {}, h.name + (h.name === c.host ? " (this daemon)" : "")),
      el("td", {}, secs(h.heartbeat_age_s || 0)), el("td", {}, h.devices || ""), el("td", {}, h.workers || 0),
      el("td", {}, h.partitions_in_flight || 0),
      el("td", { class: h.alive ? "s-done" : h.stopped ? "dim" : "s-failed" }, h.alive ? "alive" : h.stopped ? "stopped" : "silent"),
      el("td", { class: "dim" }, h.keys || ""))));
}
async function poll() {
  try {
    const r = await fetch("status", { cache: "no-store" });
    if (!r.ok) throw new Error("HTTP " + r.status);
    render(await r.json());
    $("conn").textContent = "live · " + new Date().toLocaleTimeString(); $("conn").className = "dim";
  } catch (e) {
    $("conn").textContent = "disconnected (" + e.message + ")"; $("conn").className = "bad";
  }
  setTimeout(poll, 1000);
}
poll();
</script>
</body>
</html>
)html";
}

}  // namespace snarkd::server
