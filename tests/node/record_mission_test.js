// A whole heat_seek mission on the small maze recorded with --record, read
// back by @mcap/core (every record, CRCs, chunk and message indexes, each
// message validated against its JSON Schema) and by our own reader
// (tycho.mcap.read), which must agree; the channels keep their rates.
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { checkMcap } = require("./check_mcap");

const src = process.env.TYCHO_SOURCE_DIR, build = process.env.TYCHO_BUILD_DIR;
const exe = process.env.TYCHO_EXE || path.join(build, "tycho");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tycho-record-"));
const file = path.join(dir, "run.mcap");
let failed = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { failed++; console.log(`FAILED: ${what}`); }
}

async function main() {
  const run = spawnSync(exe, ["run", "behaviors/heat_seek.lua", "--world", "maps/maze_small.lua", "--out",
                              path.join(dir, "out"), "--quiet", "--no-socket", "--record", file],
                        { cwd: src, encoding: "utf8", timeout: 300000 });
  check(run.status === 0, `the mission completes with --record (exit ${run.status}) ${run.stderr.slice(-400)}`);
  check(/recorded \d+ messages to /.test(run.stdout), "it says what it recorded");
  check(!fs.existsSync(file + ".part"), "no .part file is left");
  const topics = ["/map", "/costmap", "/scan", "/tf", "/path", "/trail", "/scene", "/thermal/1", "/thermal/2",
                  "/imu", "/cmd_vel", "/state", "/log"];
  const times = {};
  let lastMap = null, repeatedMaps = 0;
  const ours = await checkMcap(file, {
    schemas: path.join(src, "viz/schemas"),
    "expect-topics": topics.join(","),
    onMessage: (topic, t, value) => {
      (times[topic] = times[topic] || []).push(Number(t) / 1e9);
      if (topic === "/map") {
        if (lastMap !== null && lastMap === value.data) repeatedMaps++;
        lastMap = value.data;
      }
    },
  });
  console.log(JSON.stringify(ours));
  // 10 schemas of the viewer's channels + 5 of the raw device samples (tycho.Raw*)
  check(ours.validated === 15, `messages validated against all 15 schemas (${ours.validated})`);
  const sim = JSON.parse(fs.readFileSync(path.join(dir, "out", "summary.json"), "utf8")).sim_time_s;
  // rates: no topic faster than its period, and the regular ones near it
  const period = { "/map": 1, "/costmap": 1, "/scan": 0.2, "/tf": 0.05, "/imu": 0.05, "/thermal/1": 0.2, "/scene": 1 };
  for (const [topic, p] of Object.entries(period)) {
    const ts = times[topic];
    let minGap = Infinity;
    for (let i = 1; i < ts.length; i++) minGap = Math.min(minGap, ts[i] - ts[i - 1]);
    check(minGap >= p - 1e-6, `${topic}: no two messages closer than ${p} s (closest ${minGap.toFixed(3)} s)`);
  }
  check(times["/tf"].length > 0.9 * sim / 0.05, `/tf at 20 Hz over ${sim} s (${times["/tf"].length} messages)`);
  check(times["/scan"].length > 0.9 * sim / 0.2, `/scan at 5 Hz (${times["/scan"].length} messages)`);
  check(repeatedMaps === 0, `/map is sent only when it changed (${repeatedMaps} repeats)`);

  // our reader agrees
  const info = spawnSync(exe, ["run", "tests/node/mcap_info.lua", file], { cwd: src, encoding: "utf8" });
  check(info.status === 0, `tycho.mcap.read accepts the file ${info.stderr}`);
  if (info.status === 0) {
    const mine = JSON.parse(info.stdout);
    check(mine.messages === ours.messages && mine.chunks === ours.chunks,
          `our reader: ${mine.messages} messages in ${mine.chunks} chunks, @mcap/core ${ours.messages} in ${ours.chunks}`);
    check(topics.every((t) => mine.topics[t] === ours.topics[t]), "our reader: the same count on every topic");
  }
  console.log(`figures: ${(ours.bytes / 1e6).toFixed(2)} MB for ${sim.toFixed(0)} s of mission, ${ours.messages} messages`);
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(failed ? `${failed} failed` : "all passed");
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.log(`FAILED: ${e.message || e}`); process.exit(1); });
