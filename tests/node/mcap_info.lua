-- Our own reader's view of a recording, for the node tests to compare with
-- @mcap/core's: tycho run tests/node/mcap_info.lua FILE.mcap -> one JSON line
local tycho = require "tycho"
local path = arg[1]
if not path then io.stderr:write("usage: tycho run mcap_info.lua FILE.mcap\n") return 2 end
local info, err = tycho.mcap.read(path)
if not info then io.stderr:write("mcap_info: ", err, "\n") return 1 end
local topics = {}
for topic, c in pairs(info.channels) do topics[topic] = c.messages end
print(tycho.viz.json({ messages = info.messages, chunks = info.chunks, schemas = info.schemas, topics = topics,
                       compressed_bytes = info.compressed_bytes, uncompressed_bytes = info.uncompressed_bytes,
                       start_time = info.start_time, end_time = info.end_time }))
return 0
