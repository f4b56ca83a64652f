// The Foxglove live view against real clients (@foxglove/ws-protocol over
// ws), on loopback: a heat_seek mission in real time with --viz; two
// viewers at once; the advertised channels and their schemas; every message
// decoded and validated against its JSON Schema; the time capability;
// parameters read, set (accepted and refused, as the console's :set) and
// followed; unsubscribing; and a viewer that stops reading is disconnected
// while the others keep their rate.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const net = require("net");
const os = require("os");
const path = require("path");
const crypto = require("crypto");
const { FoxgloveClient } = require("@foxglove/ws-protocol");
const WebSocket = require("ws");
const Ajv = require("ajv/dist/2020");

const src = process.env.TYCHO_SOURCE_DIR, build = process.env.TYCHO_BUILD_DIR;
const exe = process.env.TYCHO_EXE || path.join(build, "tycho");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tycho-viz-"));
let failed = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { failed++; console.log(`FAILED: ${what}`); }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const decoder = new TextDecoder();

function viewer(url) {
  const v = { msgs: [], times: [], params: [], status: [], channels: null, info: null, subs: new Map() };
  v.client = new FoxgloveClient({ ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]) });
  v.client.on("serverInfo", (i) => { v.info = i; });
  v.client.on("advertise", (chs) => { v.channels = chs; });
  v.client.on("message", (m) => v.msgs.push({ sub: m.subscriptionId, t: m.timestamp, data: m.data, at: Date.now() }));
  v.client.on("time", (t) => v.times.push(t.timestamp));
  v.client.on("parameterValues", (p) => v.params.push(p));
  v.client.on("status", (s) => v.status.push(s));
  v.client.on("error", (e) => console.log(`viewer error: ${e.message || e}`));
  return v;
}
async function until(fn, ms, what) {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) { if (fn()) return true; await sleep(20); }
  console.log(`timed out waiting for ${what}`);
  return false;
}

async function main() {
  const env = Object.assign({}, process.env, { TYCHO_VIZ_QUEUE_LIMIT: "524288", TYCHO_VIZ_STALL_S: "2" });
  const mission = spawn(exe, ["run", "behaviors/heat_seek.lua", "--world", "maps/maze_small.lua", "--realtime",
                              "--viz", "127.0.0.1:0", "--no-socket", "--out", path.join(dir, "out")],
                        { cwd: src, env });
  let out = "";
  mission.stdout.on("data", (d) => { out += d; });
  mission.stderr.on("data", (d) => { out += d; });
  await until(() => /ws:\/\/127\.0\.0\.1:\d+/.test(out), 10000, "the viz line");
  const url = out.match(/ws:\/\/127\.0\.0\.1:\d+/)[0];
  console.log(`mission serving ${url}`);

  // a handshake without the subprotocol is refused
  const refused = await new Promise((resolve) => {
    const ws = new WebSocket(url, ["other.protocol"]);
    ws.on("open", () => resolve(false));
    ws.on("error", () => resolve(true));
    ws.on("unexpected-response", () => resolve(true));
  });
  check(refused, "a client without foxglove.websocket.v1 is refused");

  const a = viewer(url), b = viewer(url);
  await until(() => a.channels && b.channels, 5000, "advertise");
  check(a.info && a.info.name === "heat_seek", "serverInfo names the mission");
  for (const cap of ["time", "parameters", "parametersSubscribe"])
    check(a.info.capabilities.includes(cap), `capability ${cap}`);
  const topics = ["/map", "/costmap", "/scan", "/tf", "/path", "/trail", "/scene", "/thermal/1", "/thermal/2",
                  "/imu", "/cmd_vel", "/state", "/log"];
  check(topics.every((t) => a.channels.some((c) => c.topic === t)), `all ${topics.length} channels advertised`);
  const ajv = new Ajv({ strict: false });
  const validators = new Map();
  for (const ch of a.channels) {
    const file = path.join(src, "viz/schemas", ch.schemaName + ".json");
    check(ch.encoding === "json" && ch.schemaEncoding === "jsonschema" &&
          JSON.stringify(JSON.parse(ch.schema)) === JSON.stringify(JSON.parse(fs.readFileSync(file, "utf8"))),
          `${ch.topic}: ${ch.schemaName}, the repository's schema`);
    validators.set(ch.id, ajv.compile(JSON.parse(ch.schema)));
  }
  // a subscribes to everything, b to the transforms only
  const subToChannel = new Map();
  for (const ch of a.channels) subToChannel.set(a.client.subscribe(ch.id), ch);
  const tfChannel = b.channels.find((c) => c.topic === "/tf");
  b.client.subscribe(tfChannel.id);
  await sleep(3000);
  const seen = new Set();
  let invalid = 0;
  for (const m of a.msgs) {
    const ch = subToChannel.get(m.sub);
    const value = JSON.parse(decoder.decode(m.data));
    if (!validators.get(ch.id)(value)) {
      if (invalid++ < 3) console.log(`${ch.topic}: ${ajv.errorsText(validators.get(ch.id).errors)}`);
    }
    seen.add(ch.topic);
  }
  check(a.msgs.length > 50 && invalid === 0, `${a.msgs.length} messages decoded, each valid against its schema`);
  // /log too: its sink was once added only with --record, and a viewer's Log panel stayed empty
  for (const t of ["/map", "/costmap", "/scan", "/tf", "/thermal/1", "/imu", "/cmd_vel", "/scene", "/state", "/log"])
    check(seen.has(t), `received ${t}`);
  const bTf = b.msgs.length;
  check(bTf >= 40, `the second viewer at the same time: ${bTf} /tf messages in 3 s (20 Hz)`);
  check(a.times.length > 20 && a.times[a.times.length - 1] > a.times[0], `time messages advance (${a.times.length})`);

  // parameters: read, set accepted, set refused (out of range, unknown), followed
  a.client.subscribeParameterUpdates(["mission_timeout"]);
  b.client.getParameters([], "all");
  await until(() => b.params.some((p) => p.id === "all"), 3000, "parameterValues");
  const all = b.params.find((p) => p.id === "all").parameters;
  const mt = all.find((p) => p.name === "mission_timeout");
  check(all.length > 20 && mt && mt.value === 1800, `getParameters: ${all.length} parameters, mission_timeout 1800`);
  b.client.setParameters([{ name: "mission_timeout", value: 1700 }], "ok");
  await until(() => b.params.some((p) => p.id === "ok"), 3000, "set reply");
  check(b.params.find((p) => p.id === "ok").parameters[0].value === 1700, "setParameters within range: applied");
  await until(() => a.params.some((p) => p.parameters.some((q) => q.name === "mission_timeout" && q.value === 1700)),
              3000, "parameter update");
  check(a.params.some((p) => p.id === undefined), "the other viewer, subscribed, is told of the change");
  b.client.setParameters([{ name: "mission_timeout", value: 5 }, { name: "no_such_thing", value: 1 }], "bad");
  await until(() => b.params.some((p) => p.id === "bad"), 3000, "refused reply");
  const refusedStatus = b.status.filter((s) => s.id === "bad" && s.level === 2 && /^refused/.test(s.message));
  check(refusedStatus.length === 2, `refused sets are reported: ${refusedStatus.map((s) => s.message).join("; ")}`);
  check(b.params.find((p) => p.id === "bad").parameters[0].value === 1700, "a refused value is not applied");

  // unsubscribe: nothing more arrives
  for (const id of subToChannel.keys()) a.client.unsubscribe(id);
  await sleep(300);
  const after = a.msgs.length;
  await sleep(1000);
  check(a.msgs.length === after, `after unsubscribing no more messages (${a.msgs.length - after})`);

  // a viewer that stops reading: raw socket, handshake, subscribe to all, never read again
  const stalled = await new Promise((resolve) => {
    const u = new URL(url);
    const s = net.connect(Number(u.port), u.hostname, () => {
      const key = crypto.randomBytes(16).toString("base64");
      s.write(`GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\n` +
              `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: foxglove.websocket.v1\r\n\r\n`);
      const subs = a.channels.map((c, i) => ({ id: i + 1, channelId: c.id }));
      const payload = Buffer.from(JSON.stringify({ op: "subscribe", subscriptions: subs }));
      // one masked client text frame (RFC 6455 5.2)
      const mask = crypto.randomBytes(4);
      const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length])
                                        : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
      const body = Buffer.from(payload.map((x, i) => x ^ mask[i % 4]));
      setTimeout(() => { s.write(Buffer.concat([head, mask, body])); s.pause(); resolve(s); }, 200);
    });
  });
  const tf0 = b.msgs.length, t0 = Date.now();
  await until(() => /viewer left \(not reading/.test(out), 30000, "the stalled viewer to be dropped");
  check(/viewer left \(not reading: \d+ messages dropped\)/.test(out), "the viewer that stopped reading is disconnected");
  await sleep(1000);
  const rate = (b.msgs.length - tf0) / ((Date.now() - t0) / 1000);
  check(rate > 17, `meanwhile the other viewer kept 20 Hz /tf (${rate.toFixed(1)} Hz)`);
  stalled.destroy();

  a.client.close();
  b.client.close();
  mission.kill("SIGTERM");
  const code = await new Promise((r) => mission.on("exit", (c) => r(c)));
  check(code === 143, `the mission ends on SIGTERM as usual (exit ${code})`);
  const summary = JSON.parse(fs.readFileSync(path.join(dir, "out", "summary.json"), "utf8"));
  check(summary.end_reason === "signal SIGTERM", "and writes its summary");
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(failed ? `${failed} failed` : "all passed");
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.log(`FAILED: ${e.stack || e}`); process.exit(1); });
