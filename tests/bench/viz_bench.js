// Live-view benchmark (run: tests/node/run.sh tests/bench/viz_bench.js, from
// the source folder, TYCHO_BUILD_DIR set). Prints:
//  1. latency from publish (Channels:publish in tycho) to receipt in a
//     @foxglove/ws-protocol viewer on loopback, 2000 messages at 100 Hz:
//     median and p99 (target: median <= 2 ms);
//  2. the small-maze mission in accelerated simulation with --viz and one
//     viewer subscribed to every channel, against the same mission without
//     --viz: CPU time (user + system), median of 3 (target <= 5 % slower);
//  3. the same mission at real-time pace for 20 s, twice each way: the
//     longest wall-clock gap between two 20 Hz control ticks (the summary's
//     timing.worst_gap_ms) with a viewer subscribed to everything against
//     none (target: within 1 ms).
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { FoxgloveClient } = require("@foxglove/ws-protocol");
const WebSocket = require("ws");

const src = process.env.TYCHO_SOURCE_DIR || process.cwd();
const exe = process.env.TYCHO_EXE || path.join(process.env.TYCHO_BUILD_DIR, "tycho");
const decoder = new TextDecoder();
// the machine-readable line per figure (tests/bench/result.h), for scripts/trials.sh
const result = (name, value, unit, target, description) =>
  console.log(`RESULT ${name} ${Number(value.toPrecision(6))} ${unit} ${target} ${description}`);
const monotonic = () => Number(process.hrtime.bigint()) / 1e9; // CLOCK_MONOTONIC, as tycho.clock.monotonic

function startTycho(args) {
  const child = spawn("/usr/bin/time", ["-f", "CPU %U %S", exe, ...args], { cwd: src });
  let out = "";
  child.stdout.on("data", (d) => { out += d; });
  child.stderr.on("data", (d) => { out += d; });
  const port = new Promise((resolve) => {
    const iv = setInterval(() => {
      const m = out.match(/ws:\/\/127\.0\.0\.1:(\d+)/);
      if (m) { clearInterval(iv); resolve(m[0]); }
    }, 2);
  });
  const done = new Promise((resolve) => child.on("exit", (code) => {
    const m = out.match(/CPU ([\d.]+) ([\d.]+)/);
    resolve({ code, cpu: m ? Number(m[1]) + Number(m[2]) : NaN, out });
  }));
  return { port, done };
}

function subscribeAll(url, onMessage) {
  const c = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
  const byId = new Map();
  c.on("advertise", (chs) => { for (const ch of chs) byId.set(c.subscribe(ch.id), ch.topic); });
  c.on("message", (m) => onMessage(byId.get(m.subscriptionId), m));
  c.on("error", () => {});
  return c;
}

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const pct = (v, p) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };

async function latency() {
  const run = startTycho(["run", "tests/bench/viz_latency_server.lua", "0", "2000"]);
  const url = await run.port;
  const lat = [];
  const c = subscribeAll(url, (topic, m) => {
    if (topic !== "/log") return;
    const sent = Number(JSON.parse(decoder.decode(m.data)).message);
    lat.push((monotonic() - sent) * 1000);
  });
  await run.done;
  c.close();
  const med = median(lat);
  console.log(`viz latency: ${lat.length} messages, publish -> viewer median ${med.toFixed(3)} ms, ` +
              `p99 ${pct(lat, 0.99).toFixed(3)} ms, max ${Math.max(...lat).toFixed(3)} ms (target median <= 2 ms) ` +
              `${med <= 2 ? "PASS" : "FAIL"}`);
  result("viz.latency_median_ms", med, "ms", "<=2", `live view: publish in tycho -> a @foxglove/ws-protocol ` +
         `viewer on loopback, ${lat.length} messages at 100 Hz, median`);
  result("viz.latency_p99_ms", pct(lat, 0.99), "ms", "-", "… p99");
  return med <= 2;
}

async function mission(withViz, dir, extra = []) {
  const args = ["run", "behaviors/heat_seek.lua", "--world", "maps/maze_small.lua", "--quiet", "--no-socket",
                "--out", dir, ...extra];
  if (!withViz) {
    const r = await startTycho(args).done;
    return { cpu: r.cpu, messages: 0 };
  }
  const run = startTycho([...args, "--viz", "127.0.0.1:0"]);
  const url = await run.port;
  let messages = 0;
  const c = subscribeAll(url, () => { messages++; });
  const r = await run.done;
  c.close();
  return { cpu: r.cpu, messages };
}

async function main() {
  const okLatency = await latency();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tycho-viz-bench-"));
  const without = [], withv = [], msgs = [];
  for (let i = 0; i < 3; i++) {
    without.push((await mission(false, path.join(dir, `a${i}`))).cpu);
    const r = await mission(true, path.join(dir, `b${i}`));
    withv.push(r.cpu);
    msgs.push(r.messages);
  }
  const a = median(without), b = median(withv), over = (b / a - 1) * 100;
  console.log(`viz overhead: small maze, median of 3: without ${a.toFixed(2)} s CPU, with --viz and a viewer ` +
              `subscribed to everything ${b.toFixed(2)} s CPU (${median(msgs)} messages received): ` +
              `${over >= 0 ? "+" : ""}${over.toFixed(1)} % (target <= 5 %) ${over <= 5 ? "PASS" : "FAIL"}`);
  result("viz.mission_overhead_pct", over, "%", "<=5", `small-maze mission with --viz and a viewer subscribed ` +
         `to every channel, against the same mission without --viz: CPU time (user + system), median of 3 ` +
         `(${a.toFixed(2)} -> ${b.toFixed(2)} s)`);
  // real time: the control loop's worst tick with and without a viewer
  const REAL_S = 20;
  const worst = { without: [], with: [] };
  for (let i = 0; i < 2; i++) {
    for (const v of [false, true]) {
      const out = path.join(dir, `rt${v ? "v" : "n"}${i}`);
      await mission(v, out, ["--realtime", "--set", `mission_timeout=${REAL_S}`]);
      const t = JSON.parse(fs.readFileSync(path.join(out, "summary.json"), "utf8")).timing;
      worst[v ? "with" : "without"].push(t.worst_gap_ms);
    }
  }
  const w0 = Math.max(...worst.without), w1 = Math.max(...worst.with), dw = w1 - w0;
  console.log(`viz real time: ${REAL_S} s of mission twice each way, longest gap between 50 ms control ticks: ` +
              `without --viz ${w0.toFixed(1)} ms, with a viewer subscribed to everything ${w1.toFixed(1)} ms ` +
              `(${dw >= 0 ? "+" : ""}${dw.toFixed(1)} ms; target within 1 ms) ${dw <= 1 ? "PASS" : "FAIL"}`);
  result("viz.worst_tick_delta_ms", dw, "ms", "<=1", `real-time small-maze mission, ${REAL_S} s twice each way: ` +
         `longest gap between 20 Hz control ticks with a viewer subscribed to everything, minus without ` +
         `(${w0.toFixed(1)} -> ${w1.toFixed(1)} ms)`);
  fs.rmSync(dir, { recursive: true, force: true });
  // a missed target is a figure (scripts/trials.sh's table says so), not a failed run
  console.log(`viz_bench: targets ${okLatency && over <= 5 && dw <= 1 ? "met" : "missed (see above)"}`);
  process.exit(0);
}
main().catch((e) => { console.log(e.stack || e); process.exit(1); });
