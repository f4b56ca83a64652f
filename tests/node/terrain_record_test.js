// A terrain run recorded with --record, read back by @mcap/core (every record,
// CRCs and indexes) and every message validated against its Foxglove JSON
// Schema; the terrain's own channels: the world's height map once
// (/terrain, foxglove.PointCloud), the mission's traversability grid (/map)
// and the 3D LiDAR sweeps (/points, up to 2 Hz) whose points, decoded, lie on the
// world and near the robot.
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { checkMcap } = require("./check_mcap");

const src = process.env.TYCHO_SOURCE_DIR, build = process.env.TYCHO_BUILD_DIR;
const exe = process.env.TYCHO_EXE || path.join(build, "tycho");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tycho-terrain-record-"));
const file = path.join(dir, "terrain.mcap");
let failed = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { failed++; console.log(`FAILED: ${what}`); }
}

// x, y, z float32 triples of a foxglove.PointCloud message
function points(msg) {
  const buf = Buffer.from(msg.data, "base64");
  const out = [];
  for (let o = 0; o + 12 <= buf.length; o += msg.point_stride)
    out.push([buf.readFloatLE(o), buf.readFloatLE(o + 4), buf.readFloatLE(o + 8)]);
  return out;
}

async function main() {
  const run = spawnSync(exe, ["run", "behaviors/terrain_nav.lua", "--world", "maps/terrain_rough.lua",
                              "--out", path.join(dir, "out"), "--quiet", "--record", file],
                        { cwd: src, encoding: "utf8", timeout: 300000 });
  check(run.status === 0, `the terrain run completes with --record (exit ${run.status}) ${(run.stderr || "").slice(-400)}`);
  const clouds = { "/points": [], "/terrain": [] };
  const tf = [];
  const ours = await checkMcap(file, {
    schemas: path.join(src, "viz/schemas"),
    "expect-topics": "/map,/points,/terrain,/tf",
    onMessage: (topic, t, value) => {
      if (clouds[topic]) clouds[topic].push({ t: Number(t) / 1e9, value });
      if (topic === "/tf") tf.push(value);
    },
  });
  console.log(JSON.stringify({ bytes: ours.bytes, topics: ours.topics }));
  check(ours.topics["/terrain"] === 1, `the height map once (${ours.topics["/terrain"]})`);
  const summary = JSON.parse(fs.readFileSync(path.join(dir, "out", "summary.json"), "utf8"));
  const simS = summary.sim_time_s || summary.time_s;
  // the mission sweeps at 5 Hz; /points takes the first sweep half a second
  // or more after the last one it sent: every third, 1.67 a second
  const sent = clouds["/points"].length;
  check(summary.sweeps >= 4 * simS && sent >= 1.5 * simS - 2 && sent <= 2 * simS + 1,
        `sweeps at 1.5-2 Hz over ${simS.toFixed(0)} s: ${sent} of ${summary.sweeps}`);
  const hm = points(clouds["/terrain"][0].value);
  check(hm.length > 1000 && hm.length <= 40000, `the height map as ${hm.length} points (at most 200 x 200)`);
  const zs = hm.map((p) => p[2]);
  check(Math.max(...zs) > Math.min(...zs), `the height map is not flat (z ${Math.min(...zs).toFixed(2)}..${Math.max(...zs).toFixed(2)} m)`);
  const xs = hm.map((p) => p[0]), ys = hm.map((p) => p[1]);
  const box = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  let near = 0, inside = 0, n = 0;
  for (const c of clouds["/points"]) {
    for (const p of points(c.value)) {
      n++;
      if (p[0] >= box[0] - 0.5 && p[0] <= box[1] + 0.5 && p[1] >= box[2] - 0.5 && p[1] <= box[3] + 0.5) inside++;
      if (Math.abs(p[2]) < 5) near++;
    }
  }
  check(n > 0 && inside === n, `every swept point on the world (${inside} of ${n})`);
  check(near === n, `every swept point within 5 m of the ground (${near} of ${n})`);
  check(clouds["/points"].every((c) => points(c.value).length <= 5000), "at most 5000 points a sweep");
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(failed ? `${failed} failed` : "all passed");
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.log(`FAILED: ${e.message || e}`); process.exit(1); });
