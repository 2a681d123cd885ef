// Drives a baton server with the reference TypeScript MCP client, which is
// strict: listTools() rejects bare boolean property schemas, and callTool()
// validates structuredContent against the tool's outputSchema, error
// results included. Usage: node client.mjs stdio BATON_BIN DB | http URL
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, a, b] = process.argv.slice(2);
const transport = mode === "stdio"
  ? new StdioClientTransport({ command: a, args: ["--db", b, "mcp", "--preset", "full", "--agent", "agent-ts"] })
  : new StreamableHTTPClientTransport(new URL(a));

const client = new Client({ name: "baton-interop", version: "1.0.0" });
await client.connect(transport);
const report = {};
const { tools } = await client.listTools();
report.tools = tools.map((t) => t.name).sort();
const ok = await client.callTool({ name: "task_create", arguments: { title: "From TypeScript", project: "colibri", priority: "high" } });
report.created = ok.structuredContent;
const got = await client.callTool({ name: "task_get", arguments: { task_id: ok.structuredContent.task_id } });
report.got = got.structuredContent;
const bad = await client.callTool({ name: "task_update", arguments: { task_id: ok.structuredContent.task_id, status: "done" } });
report.transition = { isError: bad.isError, structuredContent: bad.structuredContent };
const invalid = await client.callTool({ name: "task_create", arguments: { title: "", project: "colibri" } });
report.invalid = { isError: invalid.isError, structuredContent: invalid.structuredContent };
const health = await client.callTool({ name: "server_health", arguments: {} });
report.health = health.structuredContent.status;
await client.close();
console.log(JSON.stringify(report));
