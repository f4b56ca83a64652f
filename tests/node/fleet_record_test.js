// A fleet run (32 robots, the warehouse) recorded with --record, read back by
// @mcap/core: every record, CRCs and indexes, and every message validated
// against its Foxglove JSON Schema; /fleet (robots, routes, goals) at 5 Hz
// over the whole run, the map once, each scene with all 32 robots.
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { checkMcap } = require("./check_mcap");

const src = process.env.TYCHO_SOURCE_DIR, build = process.env.TYCHO_BUILD_DIR;
const exe = process.env.TYCHO_EXE || path.join(build, "tycho");
const data = path.join(src, "tests/data/warehouse");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tycho-fleet-record-"));
const file = path.join(dir, "fleet.mcap");
let failed = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { failed++; console.log(`FAILED: ${what}`); }
}

async function main() {
  const run = spawnSync(exe, ["run", "behaviors/fleet.lua", "--map", path.join(data, "map.yaml"),
                              "--starts", path.join(data, "stage.world"),
                              "--goals", path.join(data, "goals032/goals001.txt"),
                              "--out", path.join(dir, "out"), "--quiet", "--record", file],
                        { cwd: src, encoding: "utf8", timeout: 300000 });
  check(run.status === 0, `the fleet run completes with --record (exit ${run.status}) ${(run.stderr || "").slice(-400)}`);
  const scenes = [];
  const ours = await checkMcap(file, {
    schemas: path.join(src, "viz/schemas"),
    "expect-topics": "/map,/fleet",
    onMessage: (topic, t, value) => { if (topic === "/fleet") scenes.push({ t: Number(t) / 1e9, value }); },
  });
  console.log(JSON.stringify(ours));
  check(ours.validated === 2, `the /map and /fleet messages validated against their schemas (${ours.validated})`);
  check(ours.topics["/map"] === 1, `the map once (${ours.topics["/map"]})`);
  const makespan = JSON.parse(fs.readFileSync(path.join(dir, "out", "summary.json"), "utf8")).totals.makespan_s;
  check(scenes.length >= 0.95 * makespan * 5, `/fleet at 5 Hz over ${makespan} s (${scenes.length} scenes)`);
  let minGap = Infinity;
  for (let i = 1; i < scenes.length; i++) minGap = Math.min(minGap, scenes[i].t - scenes[i - 1].t);
  check(minGap >= 0.2 - 1e-6, `no two scenes closer than 0.2 s (closest ${minGap.toFixed(3)} s)`);
  const ids = (s) => Object.fromEntries(s.value.entities.map((e) => [e.id, e]));
  const every = scenes.every((s) => {
    const e = ids(s);
    return e.robots.spheres.length === 32 && e.routes.lines.length === 32 && e.goals.cubes.length === 32 &&
      Array.isArray(e.reservations.cubes);
  });
  check(every, "every scene holds 32 robots, 32 routes, 32 goals and the reservations");
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(failed ? `${failed} failed` : "all passed");
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.log(`FAILED: ${e.message || e}`); process.exit(1); });
