#!/usr/bin/env node
// A tiny MCP stdio server for Hangar's interop tests: one tool, `hangar_probe`, that answers
// `HANGAR_PROBE_OK:<text>`. Built on the official @modelcontextprotocol/sdk, pinned in
// ../agents/package.json and installed with the agents (`cd ../agents && npm ci`).
//
//   node server.mjs [--log FILE] [--name NAME]
//
// Proof of life independent of the model: when HANGAR_PROBE_LOG (or --log) names a file, the
// server appends one JSON line there when it starts ({"event":"start",...}), when a client lists
// its tools ({"event":"list"}) and when the tool is called ({"event":"call","text":...}).
// So a test can tell that an agent started this server, and called its tool, without asking
// the model. NAME (default "probe") only labels the log lines.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const opt = (n) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : undefined;
};
const LOG = opt('--log') ?? process.env.HANGAR_PROBE_LOG ?? '';
const NAME = opt('--name') ?? 'probe';
const MARKER = 'HANGAR_PROBE_OK';

function note(event, extra = {}) {
  if (!LOG) return;
  const line = { event, name: NAME, pid: process.pid, t: Date.now(), ...extra };
  fs.appendFileSync(LOG, `${JSON.stringify(line)}\n`);
}

// The SDK lives in ../agents/node_modules: resolve it from there, whatever the cwd.
const sdk = createRequire(new URL('../agents/package.json', import.meta.url));
const load = (spec) => import(pathToFileURL(sdk.resolve(spec)).href);
const { Server } = await load('@modelcontextprotocol/sdk/server/index.js');
const { StdioServerTransport } = await load('@modelcontextprotocol/sdk/server/stdio.js');
const { ListToolsRequestSchema, CallToolRequestSchema } = await load('@modelcontextprotocol/sdk/types.js');

const TOOL = {
  name: 'hangar_probe',
  description: `Hangar test probe: answers ${MARKER}:<text>.`,
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'Text to echo back after the marker.' } },
    required: ['text'],
  },
};

const server = new Server({ name: 'hangar-mcp-probe', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => {
  note('list');
  return { tools: [TOOL] };
});
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const { name, arguments: args = {} } = req.params;
  if (name !== TOOL.name) return { isError: true, content: [{ type: 'text', text: `unknown tool ${name}` }] };
  const text = String(args.text ?? '');
  note('call', { text });
  return { content: [{ type: 'text', text: `${MARKER}:${text}` }] };
});

note('start', { cwd: process.cwd(), argv });
await server.connect(new StdioServerTransport());
