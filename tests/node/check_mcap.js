// Reads an MCAP file with the reference TypeScript reader (@mcap/core): every
// record in file order with CRC checks (stream reader), then through the
// summary and chunk indexes (indexed reader), and compares the two; with
// --schemas DIR each JSON message is validated against its channel's JSON
// Schema. Prints one JSON line of figures; exits 1 naming the first problem.
//   node check_mcap.js FILE.mcap [--schemas DIR] [--expect-topics a,b,c]
"use strict";
const fs = require("fs");
const path = require("path");
const { McapStreamReader, McapIndexedReader } = require("@mcap/core");
const fzstd = require("fzstd");

// as a module: checkMcap(file, {schemas, "expect-topics", onMessage(topic, logTime, value)})
// resolves to the figures, rejects with the first problem
class McapProblem extends Error {}

const decompressHandlers = {
  zstd: (buf, size) => fzstd.decompress(buf, new Uint8Array(Number(size))),
};

async function checkMcap(file, opt = {}) {
  const fail = (msg) => { throw new McapProblem(`${file}: ${msg}`); };
  const bytes = fs.readFileSync(file);
  // 1. every record, in order, CRCs checked
  const stream = new McapStreamReader({ decompressHandlers, validateCrcs: true, noMagicPrefix: false });
  stream.append(bytes);
  const counts = { records: {}, messages: 0 };
  const schemas = new Map(), channels = new Map(), perChannel = new Map();
  let record, footer = false, dataEnd = null;
  while ((record = stream.nextRecord())) {
    counts.records[record.type] = (counts.records[record.type] || 0) + 1;
    if (record.type === "Schema") schemas.set(record.id, record);
    else if (record.type === "Channel") channels.set(record.id, record);
    else if (record.type === "Message") {
      counts.messages++;
      perChannel.set(record.channelId, (perChannel.get(record.channelId) || 0) + 1);
    } else if (record.type === "DataEnd") dataEnd = record;
    else if (record.type === "Footer") footer = true;
  }
  if (!stream.done()) fail("the stream reader did not reach the end");
  if (!footer) fail("no footer");
  if (!dataEnd || dataEnd.dataSectionCrc === 0) fail("no data section CRC");

  // 2. through the summary: statistics, chunk indexes, message indexes
  const readable = {
    size: async () => BigInt(bytes.length),
    read: async (offset, length) => bytes.subarray(Number(offset), Number(offset + length)),
  };
  const indexed = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  const stats = indexed.statistics;
  if (!stats) fail("no statistics record");
  if (Number(stats.messageCount) !== counts.messages)
    fail(`statistics count ${stats.messageCount} messages, the file holds ${counts.messages}`);
  // (the stream reader opens chunks and hands out their records, not the chunks)
  if (indexed.chunkIndexes.length !== stats.chunkCount)
    fail(`${indexed.chunkIndexes.length} chunk indexes, statistics say ${stats.chunkCount} chunks`);
  let indexedMessages = 0, lastTime = -1n;
  const validators = new Map();
  let Ajv;
  if (opt.schemas) Ajv = require("ajv/dist/2020");
  const ajv = Ajv ? new Ajv({ strict: false, allErrors: false }) : null;
  const decoder = new TextDecoder();
  for await (const msg of indexed.readMessages()) {
    indexedMessages++;
    if (msg.logTime < lastTime) fail("indexed messages not in time order");
    lastTime = msg.logTime;
    const ch = indexed.channelsById.get(msg.channelId);
    if (!ch) fail(`message on unknown channel ${msg.channelId}`);
    if (ch.messageEncoding !== "json") continue;
    let value;
    try { value = JSON.parse(decoder.decode(msg.data)); }
    catch (e) { fail(`${ch.topic}: message at ${msg.logTime} is not JSON: ${e.message}`); }
    if (opt.onMessage) opt.onMessage(ch.topic, msg.logTime, value);
    if (!ajv || ch.schemaId === 0) continue;
    let validate = validators.get(ch.schemaId);
    if (!validate) {
      const sc = indexed.schemasById.get(ch.schemaId);
      if (sc.encoding !== "jsonschema") fail(`${ch.topic}: schema encoding ${sc.encoding}`);
      const schema = JSON.parse(decoder.decode(sc.data));
      // the schema in the file is the one in the repository, byte for byte
      const ref = path.join(opt.schemas, sc.name + ".json");
      if (fs.existsSync(ref) && JSON.stringify(JSON.parse(fs.readFileSync(ref, "utf8"))) !== JSON.stringify(schema))
        fail(`${sc.name}: schema differs from ${ref}`);
      validate = ajv.compile(schema);
      validators.set(ch.schemaId, validate);
    }
    if (!validate(value)) fail(`${ch.topic}: message at ${msg.logTime} fails ${indexed.schemasById.get(ch.schemaId).name}: ${ajv.errorsText(validate.errors)}`);
  }
  if (indexedMessages !== counts.messages)
    fail(`the indexes reach ${indexedMessages} messages, the file holds ${counts.messages}`);
  const topics = {};
  for (const [id, ch] of indexed.channelsById) topics[ch.topic] = Number(stats.channelMessageCounts.get(id) || 0n);
  if (opt["expect-topics"]) {
    for (const t of opt["expect-topics"].split(",")) if (!topics[t]) fail(`no messages on ${t}`);
  }
  return { file, bytes: bytes.length, messages: counts.messages, chunks: indexed.chunkIndexes.length,
           schemas: schemas.size, channels: channels.size, validated: validators.size, topics };
}
module.exports = { checkMcap };

if (require.main === module) {
  const args = process.argv.slice(2);
  const opt = {};
  for (let i = 1; i < args.length; i += 2) opt[args[i].replace(/^--/, "")] = args[i + 1];
  if (!args[0]) {
    console.error("usage: node check_mcap.js FILE.mcap [--schemas DIR] [--expect-topics a,b]");
    process.exit(2);
  }
  checkMcap(args[0], opt).then((r) => console.log(JSON.stringify(r)),
    (e) => { console.error(`check_mcap: ${e.message || e}`); process.exit(1); });
}
