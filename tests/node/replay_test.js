// `tycho replay` against a real Foxglove client (@foxglove/ws-protocol over
// ws), on loopback: a small-maze mission is recorded with --record, then
// served by `tycho replay --speed 100`; the viewer must see the recording's
// channels with their schemas, every message of every channel (playback
// waits for its subscription), each valid against its JSON Schema, and the
// time capability following the recording's clock to its end. Also: --info,
// and a file that is not MCAP refused with exit 2.
"use strict";
const { spawn, spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { FoxgloveClient } = require("@foxglove/ws-protocol");
const WebSocket = require("ws");
const Ajv = require("ajv/dist/2020");

const src = process.env.TYCHO_SOURCE_DIR, build = process.env.TYCHO_BUILD_DIR;
const exe = process.env.TYCHO_EXE || path.join(build, "tycho");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tycho-replay-"));
let failed = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { failed++; console.log(`FAILED: ${what}`); }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const decoder = new TextDecoder();
async function until(fn, ms, what) {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) { if (fn()) return true; await sleep(20); }
  console.log(`timed out waiting for ${what}`);
  return false;
}

async function main() {
  const rec = path.join(dir, "run.mcap");
  const mission = spawnSync(exe, ["run", "behaviors/heat_seek.lua", "--world", "maps/maze_small.lua", "--quiet",
                                  "--record", rec, "--out", path.join(dir, "out")], { cwd: src, encoding: "utf8" });
  check(mission.status === 0, `the mission records ${rec} (exit ${mission.status})`);

  // --info: the channels and their message counts
  const info = spawnSync(exe, ["replay", rec, "--info"], { cwd: src, encoding: "utf8" });
  check(info.status === 0, "--info exits 0");
  const expected = new Map();
  for (const m of info.stdout.matchAll(/^\s+(\/\S+)\s+(\S+)\s+(\d+) messages$/gm)) expected.set(m[1], Number(m[3]));
  check(expected.size >= 10, `--info lists the recording's ${expected.size} channels`);
  const span = info.stdout.match(/([\d.]+) s recorded/);
  const recorded = span ? Number(span[1]) : 0;

  const bad = spawnSync(exe, ["replay", path.join(src, "README.md")], { cwd: src, encoding: "utf8" });
  check(bad.status === 2 && /no MCAP magic/.test(bad.stderr), "a file that is not MCAP: exit 2, one line");

  const replay = spawn(exe, ["replay", rec, "--viz", "127.0.0.1:0", "--speed", "100"], { cwd: src });
  let out = "";
  replay.stdout.on("data", (d) => { out += d; });
  replay.stderr.on("data", (d) => { out += d; });
  const exited = new Promise((r) => replay.on("exit", (c) => r(c)));
  await until(() => /ws:\/\/127\.0\.0\.1:\d+/.test(out), 10000, "the viz line");
  const url = out.match(/ws:\/\/127\.0\.0\.1:\d+/)[0];

  const v = { channels: null, msgs: [], times: [], info: null };
  const client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
  client.on("serverInfo", (i) => { v.info = i; });
  client.on("advertise", (chs) => { v.channels = chs; });
  client.on("message", (m) => v.msgs.push(m));
  client.on("time", (t) => v.times.push(Number(t.timestamp) / 1e9));
  client.on("error", (e) => console.log(`viewer error: ${e.message || e}`));
  await until(() => v.channels, 5000, "advertise");
  check(v.info && v.info.capabilities.includes("time"), "serverInfo offers the time capability");
  check(v.channels.length === expected.size && v.channels.every((c) => expected.has(c.topic)),
        "every recorded channel is advertised");
  const ajv = new Ajv({ strict: false });
  const validators = new Map(), bySub = new Map();
  for (const ch of v.channels) {
    if (ch.schema) validators.set(ch.id, ajv.compile(JSON.parse(ch.schema)));
    bySub.set(client.subscribe(ch.id), ch);
  }
  check(validators.size === v.channels.length, "every channel comes with its JSON Schema");

  const code = await Promise.race([exited, sleep(60000).then(() => "timeout")]);
  check(code === 0, `the replay ends by itself with exit 0 (${code})`);
  await sleep(200);
  const counts = new Map();
  let invalid = 0;
  for (const m of v.msgs) {
    const ch = bySub.get(m.subscriptionId);
    counts.set(ch.topic, (counts.get(ch.topic) || 0) + 1);
    const value = JSON.parse(decoder.decode(m.data));
    const valid = validators.get(ch.id);
    if (valid && !valid(value) && invalid++ < 3) console.log(`${ch.topic}: ${ajv.errorsText(valid.errors)}`);
  }
  const short = [...expected].filter(([t, n]) => (counts.get(t) || 0) !== n);
  for (const [t, n] of short) console.log(`${t}: ${counts.get(t) || 0} of ${n}`);
  check(short.length === 0, `every message of every channel arrived (${v.msgs.length})`);
  check(invalid === 0, "every message is valid against its channel's schema");
  const monotonic = v.times.every((t, i) => i === 0 || t >= v.times[i - 1]);
  check(v.times.length > 100 && monotonic, `time follows the recording (${v.times.length} time messages, in order)`);
  const last = v.times[v.times.length - 1] || 0;
  check(recorded > 0 && last - v.times[0] > recorded * 0.95, `to its end (${(last - v.times[0]).toFixed(1)} of ${recorded} s)`);

  client.close();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(failed ? `${failed} failed` : "all passed");
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.log(`FAILED: ${e.stack || e}`); process.exit(1); });
