// slam_log.lua --bag against a rosbag2 recording written by real ROS tools'
// libraries (@mcap/core, @foxglove/cdr): the first 120 scans of the Intel
// log, with its poses as odometry, written twice: as a CARMEN log
// (ROBOTLASER1 lines, so that it carries the LaserScan's float32 geometry)
// and as a CDR bag (sensor_msgs/msg/LaserScan and nav_msgs/msg/Odometry at
// each scan's stamp); slam_log --bag must give the trajectory slam_log
// --carmen gives. Also: a bag with two LaserScan topics needs --scan, a
// truncated message is a one-line error naming it, exit 2.
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { McapWriter } = require("@mcap/core");
const { CdrWriter } = require("@foxglove/cdr");

const src = process.env.TYCHO_SOURCE_DIR, build = process.env.TYCHO_BUILD_DIR;
const exe = process.env.TYCHO_EXE || path.join(build, "tycho");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tycho-rosbag-"));
const SCANS = 120;
// the LaserScan's geometry as float32 holds it: the CARMEN log says the same
const ANGLE_MIN = Math.fround(-Math.PI / 2), ANGLE_STEP = Math.fround(Math.PI / 180);
let failed = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { failed++; console.log(`FAILED: ${what}`); }
}
function run(args) {
  return spawnSync(exe, ["run", "behaviors/slam_log.lua", ...args], { cwd: src, encoding: "utf8" });
}
function readCsv(file) {
  const lines = fs.readFileSync(file, "utf8").trim().split("\n");
  const cols = lines[0].split(",");
  return lines.slice(1).map((l) => Object.fromEntries(l.split(",").map((v, i) => [cols[i], Number(v)])));
}

class FileWritable {
  constructor(file) { this.fd = fs.openSync(file, "w"); this.pos = 0n; }
  async write(buf) { fs.writeSync(this.fd, buf); this.pos += BigInt(buf.byteLength); }
  position() { return this.pos; }
  close() { fs.closeSync(this.fd); }
}

function stamp(cdr, t) {
  const sec = Math.floor(t);
  cdr.int32(sec);
  cdr.uint32(Math.round((t - sec) * 1e9));
}
function laserScan(t, ranges) {
  const cdr = new CdrWriter();
  stamp(cdr, t);
  cdr.string("base_laser");
  // the CARMEN reader's geometry for 180 beams: -90 deg, one degree apart
  cdr.float32(ANGLE_MIN); cdr.float32(Math.PI / 2 - Math.PI / 180); cdr.float32(ANGLE_STEP);
  cdr.float32(0); cdr.float32(0); cdr.float32(0.01); cdr.float32(81.0);
  cdr.float32Array(ranges, true);
  cdr.float32Array([], true); // intensities
  return cdr.data;
}
function odometry(t, x, y, yaw) {
  const cdr = new CdrWriter();
  stamp(cdr, t);
  cdr.string("odom");
  cdr.string("base_link");
  cdr.float64(x); cdr.float64(y); cdr.float64(0);
  cdr.float64(0); cdr.float64(0); cdr.float64(Math.sin(yaw / 2)); cdr.float64(Math.cos(yaw / 2));
  cdr.float64Array(new Array(36).fill(0), false);
  for (let i = 0; i < 6; i++) cdr.float64(0); // twist
  cdr.float64Array(new Array(36).fill(0), false);
  return cdr.data;
}

async function writeBag(file, scans, poses, opts = {}) {
  const out = new FileWritable(file);
  const w = new McapWriter({ writable: out });
  await w.start({ profile: "ros2", library: "tycho rosbag_slam_test" });
  const enc = new TextEncoder();
  const scanSchema = await w.registerSchema({ name: "sensor_msgs/msg/LaserScan", encoding: "ros2msg", data: enc.encode("") });
  const odomSchema = await w.registerSchema({ name: "nav_msgs/msg/Odometry", encoding: "ros2msg", data: enc.encode("") });
  const topics = ["/scan", ...(opts.secondScan ? ["/scan2"] : [])];
  const scanChannels = [];
  for (const topic of topics)
    scanChannels.push(await w.registerChannel({ topic, schemaId: scanSchema, messageEncoding: "cdr", metadata: new Map() }));
  const odomChannel = await w.registerChannel({ topic: "/odom", schemaId: odomSchema, messageEncoding: "cdr", metadata: new Map() });
  let seq = 0;
  for (let i = 0; i < scans.length; i++) {
    const t = poses[i].t, ns = BigInt(Math.round(t * 1e9));
    let odom = odometry(t, poses[i].x, poses[i].y, poses[i].yaw);
    if (opts.truncate && i === 5) odom = odom.slice(0, 30);
    await w.addMessage({ channelId: odomChannel, sequence: seq++, logTime: ns, publishTime: ns, data: odom });
    for (const ch of scanChannels)
      await w.addMessage({ channelId: ch, sequence: seq++, logTime: ns, publishTime: ns, data: laserScan(t, scans[i]) });
  }
  await w.end();
  out.close();
}

async function main() {
  // the log's first SCANS FLASER lines: readings and (corrected) pose; a
  // stamp every 2 s (whole seconds: the same double on both paths)
  const scans = [], ref = [];
  for (const line of fs.readFileSync(path.join(src, "tests/data/carmen/intel.gfs.log"), "utf8").split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f[0] !== "FLASER") continue;
    const n = Number(f[1]);
    scans.push(f.slice(2, 2 + n).map(Number));
    ref.push({ t: 100 + 2 * ref.length, x: Number(f[2 + n]), y: Number(f[3 + n]), yaw: Number(f[4 + n]) });
    if (scans.length === SCANS) break;
  }
  const carmen = scans.map((r, i) => {
    const p = ref[i], pose = `${p.x} ${p.y} ${p.yaw}`;
    return `ROBOTLASER1 0 ${ANGLE_MIN} ${Math.PI} ${ANGLE_STEP} 81 0.01 0 ${r.length} ${r.join(" ")} 0 ` +
      `${pose} ${pose} 0 0 0 0 0 ${p.t} test ${p.t}`;
  }).join("\n") + "\n";
  const log = path.join(dir, "intel.clf");
  fs.writeFileSync(log, carmen);
  const carmenOut = path.join(dir, "carmen");
  const a = run(["--carmen", log, "--out", carmenOut, "--quiet"]);
  check(a.status === 0, `slam_log --carmen on the log (exit ${a.status}) ${a.stderr}`);
  const want = readCsv(path.join(carmenOut, "trajectory.csv"));
  const bag = path.join(dir, "intel.mcap");
  await writeBag(bag, scans, ref);
  const bagOut = path.join(dir, "bag");
  const b = run(["--bag", bag, "--out", bagOut, "--quiet"]);
  check(b.status === 0, `slam_log --bag on the bag written from it (exit ${b.status}) ${b.stderr}`);
  const got = readCsv(path.join(bagOut, "trajectory.csv"));
  check(got.length === want.length && got.length === SCANS, `${got.length} poses from the bag, ${want.length} from the log`);
  let worst = 0;
  for (let i = 0; i < Math.min(got.length, want.length); i++)
    worst = Math.max(worst, Math.hypot(got[i].x - want[i].x, got[i].y - want[i].y));
  check(worst < 1e-5, `the bag's trajectory is the log's (worst difference ${worst.toExponential(2)} m)`);
  const fromLog = JSON.parse(fs.readFileSync(path.join(carmenOut, "summary.json"), "utf8"));
  const summary = JSON.parse(fs.readFileSync(path.join(bagOut, "summary.json"), "utf8"));
  check(summary.laser.beams === 180 && summary.laser.kind === "LaserScan", "the LaserScan's geometry");
  check(fromLog.loop_closures > 5 && summary.loop_closures === fromLog.loop_closures,
        `the same loop closures (${summary.loop_closures} and ${fromLog.loop_closures})`);

  const two = path.join(dir, "two.mcap");
  await writeBag(two, scans.slice(0, 10), ref, { secondScan: true });
  const c = run(["--bag", two, "--out", path.join(dir, "two"), "--quiet"]);
  check(c.status === 2 && /2 sensor_msgs\/msg\/LaserScan topics \(\/scan, \/scan2\): choose one with --scan/.test(c.stderr),
        `two LaserScan topics: exit 2 and a reason (${c.status}: ${c.stderr.trim()})`);
  const d = run(["--bag", two, "--scan", "/scan2", "--out", path.join(dir, "two2"), "--quiet"]);
  check(d.status === 0, `--scan /scan2 picks one (exit ${d.status}) ${d.stderr}`);

  const cut = path.join(dir, "cut.mcap");
  await writeBag(cut, scans.slice(0, 10), ref, { truncate: true });
  const e = run(["--bag", cut, "--out", path.join(dir, "cut"), "--quiet"]);
  check(e.status === 2 && /message \d+ on \/odom: nav_msgs\/msg\/Odometry: truncated at byte \d+/.test(e.stderr),
        `a truncated Odometry: exit 2, the message and the byte (${e.status}: ${e.stderr.trim()})`);
  if (!process.env.KEEP) fs.rmSync(dir, { recursive: true, force: true });
  console.log(`${failed === 0 ? "PASS" : "FAIL"}: rosbag_slam_test`);
  process.exit(failed === 0 ? 0 : 1);
}
main().catch((err) => { console.log(`FAILED: ${err.stack}`); process.exit(1); });
