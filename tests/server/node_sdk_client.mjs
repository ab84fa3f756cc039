// The official TypeScript SDK's client drives `graphmem serve` over stdio, strict about capabilities:
// it subscribes to graphmem://graph, writes, and reports which resource updates arrived when.
// Run by tests/server/test_node_clients.py: node node_sdk_client.mjs GRAPHMEM ARGS… (NODE_PATH = node_modules).
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH, "noop.js"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { ResourceUpdatedNotificationSchema } = require("@modelcontextprotocol/sdk/types.js");

const client = new Client({ name: "graphmem-test", version: "1.0.0" }, { enforceStrictCapabilities: true });
const updates = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => { updates.push(note.params.uri); });
await client.connect(new StdioClientTransport({ command: process.argv[2], args: process.argv.slice(3), env: process.env }));

const store = async (content) => {
  const result = await client.callTool({ name: "memory_store", arguments: { content } });
  if (result.isError) throw new Error(JSON.stringify(result));
  await client.ping();  // an update is sent before the call's answer; the ping makes sure every one has arrived
  return updates.splice(0);
};
const report = { capabilities: client.getServerCapabilities(), protocol: client.transport?.protocolVersion ?? null };
report.before = await store("Deploys run at 10:00 UTC on weekdays");
await client.subscribeResource({ uri: "graphmem://graph" });
report.subscribed = await store("Rollbacks use the previous image tag");
await client.unsubscribeResource({ uri: "graphmem://graph" });
report.after = await store("Hotfixes skip the staging soak");
report.read = (await client.readResource({ uri: "graphmem://graph" })).contents.map((part) => part.uri);
console.log(JSON.stringify(report));
await client.close();
