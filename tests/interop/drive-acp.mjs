#!/usr/bin/env node
// Minimal dependency-free ACP client (JSON-RPC 2.0 over NDJSON stdio) that drives one real agent
// through one scripted turn against the mock model server, and checks the result on disk.
//
//   node drive-acp.mjs AGENT [--reject|--cancel|--cancel-after MS] [--mock-port N] [--transcript FILE]
//                            [--timeout SEC] [--keep] [--quiet]
//
// AGENT is codex|claude|qwen|gemini|copilot|opencode (started through agents/run-agent.sh).
// Without --mock-port it starts its own mock (mock-model-server/server.mjs) on a free port.
// Modes: approve (default: pick the allow_once option), --reject (pick reject_once),
//        --cancel (send session/cancel on the permission request, then answer {outcome:cancelled}),
//        --cancel-after MS (send session/cancel MS after session/prompt; run with MOCK_DELAY_MS
//          set, e.g. 300, so the model stream is still in flight; permissions are answered
//          with cancelled if one still arrives).
// Asserts: approve -> hello.txt == "hello ACP\n" and end_turn; reject/cancel* -> still
// "hello world\n"; cancel* -> stopReason cancelled; all but cancel-mid -> a permission request.
// Prints one JSON summary line on stdout; exit code 0 = pass, 1 = fail.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const flag = (n) => argv.includes(n);
const opt = (n, d) => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1] : d;
};
const agent = argv.find((a, i) => !a.startsWith('--') && !['--mock-port', '--transcript', '--timeout', '--cancel-after'].includes(argv[i - 1]));
if (!agent) {
  console.error('usage: node drive-acp.mjs codex|claude|qwen|gemini|copilot|opencode [--reject|--cancel|--cancel-after MS] [--mock-port N] [--transcript FILE] [--timeout SEC] [--keep] [--quiet]');
  process.exit(2);
}
const cancelAfterMs = opt('--cancel-after') != null ? Number(opt('--cancel-after')) : null;
const mode = flag('--reject') ? 'reject' : flag('--cancel') ? 'cancel' : cancelAfterMs != null ? 'cancel-mid' : 'approve';
const timeoutSec = Number(opt('--timeout', 120));
const quiet = flag('--quiet');
const keep = flag('--keep');
const transcriptPath = opt('--transcript');

const T0 = performance.now();
const now = () => +((performance.now() - T0) / 1000).toFixed(3);
const log = (...a) => quiet || console.error(`[${now().toFixed(3)}] ${agent}:`, ...a);
const transcript = [];
const record = (dir, msg) => transcript.push({ t: now(), dir, msg });

// ------------------------------------------------------------------ temp dirs
const root = fs.mkdtempSync(path.join(os.tmpdir(), `hangar-interop-${agent}-`));
const workspace = path.join(root, 'workspace');
const agentHome = path.join(root, 'home');
fs.mkdirSync(workspace);
fs.mkdirSync(agentHome);
const target = path.join(workspace, 'hello.txt');
fs.writeFileSync(target, 'hello world\n');
const mockLog = path.join(root, 'mock.jsonl');

// ------------------------------------------------------------------ mock server
let mock = null;
let mockPort = opt('--mock-port', process.env.MOCK_PORT);
async function startMock() {
  mock = spawn(process.execPath, [path.join(HERE, 'mock-model-server/server.mjs'), '--port', '0'], {
    env: { ...process.env, MOCK_FILE: 'hello.txt', MOCK_OLD: 'world', MOCK_NEW: 'ACP', MOCK_LOG: mockLog, MOCK_CWD: workspace },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: mock.stdout });
    rl.once('line', resolve);
    mock.once('exit', (c) => reject(new Error(`mock exited ${c}`)));
  });
  return JSON.parse(line).port;
}

// ------------------------------------------------------------------ ACP connection
let child;
let nextId = 1;
const pending = new Map(); // our requests: id -> {resolve, reject, method}
const stats = { updates: {}, agentRequests: [], permission: null, toolCalls: {}, messageText: '' };
let onPermissionHook = null;

function send(msg) {
  record('c2a', msg);
  child.stdin.write(JSON.stringify(msg) + '\n');
}
function request(method, params) {
  const id = nextId++;
  send({ jsonrpc: '2.0', id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
}
function notify(method, params) {
  send({ jsonrpc: '2.0', method, params });
}
function reply(id, result) {
  send({ jsonrpc: '2.0', id, result });
}
function replyError(id, code, message) {
  send({ jsonrpc: '2.0', id, error: { code, message } });
}

async function handleAgentRequest(msg) {
  const { id, method, params } = msg;
  stats.agentRequests.push({ method, id, idType: typeof id });
  try {
    if (method === 'session/request_permission') {
      const kinds = params.options.map((o) => `${o.optionId}:${o.kind}`).join(',');
      log(`permission request id=${JSON.stringify(id)} options=${kinds}`);
      stats.permission = { id, options: params.options, toolCallId: params.toolCall?.toolCallId };
      if (mode === 'cancel-mid') return reply(id, { outcome: { outcome: 'cancelled' } });
      if (mode === 'cancel') {
        notify('session/cancel', { sessionId: params.sessionId });
        await new Promise((r) => setTimeout(r, 200));
        return reply(id, { outcome: { outcome: 'cancelled' } });
      }
      const wanted = mode === 'approve' ? 'allow_once' : 'reject_once';
      const opt = params.options.find((o) => o.kind === wanted) || params.options.find((o) => o.kind.startsWith(mode === 'approve' ? 'allow' : 'reject'));
      if (!opt) return reply(id, { outcome: { outcome: 'cancelled' } });
      return reply(id, { outcome: { outcome: 'selected', optionId: opt.optionId } });
    }
    if (method === 'fs/read_text_file') {
      let text = fs.readFileSync(params.path, 'utf8');
      if (params.line != null || params.limit != null) {
        const lines = text.split('\n');
        const start = Math.max((params.line ?? 1) - 1, 0);
        const end = params.limit != null ? start + params.limit : lines.length;
        text = lines.slice(start, end).join('\n');
      }
      return reply(id, { content: text });
    }
    if (method === 'fs/write_text_file') {
      fs.mkdirSync(path.dirname(params.path), { recursive: true });
      fs.writeFileSync(params.path, params.content);
      return reply(id, null);
    }
    return replyError(id, -32601, `Method not found: ${method}`);
  } catch (e) {
    return replyError(id, -32603, String(e?.message || e));
  }
}

function handleLine(line) {
  if (!line.trim()) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    log('non-JSON stdout line:', line.slice(0, 200));
    return;
  }
  record('a2c', msg);
  if (msg.method && msg.id !== undefined && msg.id !== null) return void handleAgentRequest(msg);
  if (msg.method) {
    if (msg.method === 'session/update') {
      const u = msg.params.update;
      const k = u.sessionUpdate;
      stats.updates[k] = (stats.updates[k] || 0) + 1;
      if (k === 'agent_message_chunk' && u.content?.type === 'text') stats.messageText += u.content.text;
      if (k === 'tool_call' || k === 'tool_call_update') {
        const tc = (stats.toolCalls[u.toolCallId] ||= { announced: false, kind: null, statuses: [] });
        if (k === 'tool_call') tc.announced = true;
        if (u.kind) tc.kind = u.kind;
        if (u.status) tc.statuses.push(u.status);
      }
    }
    return;
  }
  // response to one of our requests
  const p = pending.get(msg.id);
  if (!p) return log('response for unknown id', msg.id);
  pending.delete(msg.id);
  if (msg.error) p.reject(Object.assign(new Error(`${p.method} failed: ${JSON.stringify(msg.error)}`), { rpc: msg.error }));
  else p.resolve(msg.result);
}

async function stopChild() {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  const wait = (ms) => Promise.race([exited.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);
  try {
    child.stdin.end();
  } catch {}
  if (await wait(1000)) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {}
  if (await wait(2000)) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {}
  await wait(1000);
}

// ------------------------------------------------------------------ main
const summary = { agent, mode, ok: false };
const timer = setTimeout(() => {
  summary.error = `timeout after ${timeoutSec}s`;
  finish(1);
}, timeoutSec * 1000);

let finishing = false;
async function finish(code) {
  if (finishing) return;
  finishing = true;
  clearTimeout(timer);
  await stopChild();
  if (mock) mock.kill('SIGTERM');
  if (transcriptPath) fs.writeFileSync(transcriptPath, transcript.map((l) => JSON.stringify(l)).join('\n') + '\n');
  try {
    summary.mockRequests = fs.readFileSync(mockLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => {
      const j = JSON.parse(l);
      return `${j.api || j.method}:${j.step ?? ''}:${j.action?.tool || (j.action ? 'text' : j.path)}`;
    });
  } catch {}
  summary.root = keep || code ? root : undefined;
  if (!keep && code === 0) fs.rmSync(root, { recursive: true, force: true });
  console.log(JSON.stringify(summary));
  process.exit(code);
}

try {
  if (!mockPort) mockPort = await startMock();
  summary.mockPort = Number(mockPort);
  const runAgent = path.join(HERE, 'agents/run-agent.sh');
  const tSpawn = now();
  child = spawn(runAgent, [agent], {
    cwd: workspace,
    env: { ...process.env, MOCK_PORT: String(mockPort), AGENT_HOME: agentHome },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true, // own process group, so the whole tree can be killed
  });
  const stderrLines = [];
  readline.createInterface({ input: child.stderr }).on('line', (l) => {
    stderrLines.push(l);
    if (stderrLines.length > 200) stderrLines.shift();
    if (process.env.DRIVE_ACP_STDERR) console.error(`  [${agent} stderr] ${l}`);
  });
  readline.createInterface({ input: child.stdout }).on('line', handleLine);
  child.on('exit', (c, s) => {
    if (!finishing) {
      summary.error = `agent exited early code=${c} signal=${s}; stderr tail: ${stderrLines.slice(-15).join(' | ')}`;
      for (const p of pending.values()) p.reject(new Error(summary.error));
    }
  });
  child.stdin.on('error', () => {});

  const times = {};
  let t = now();
  const init = await request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    clientInfo: { name: 'hangar-drive-acp', version: '0.1.0' },
  });
  times.initialize = +(now() - t).toFixed(3);
  log(`initialize ok (${times.initialize}s) agentInfo=${JSON.stringify(init.agentInfo)}`);

  t = now();
  const sess = await request('session/new', { cwd: workspace, mcpServers: [] });
  times.sessionNew = +(now() - t).toFixed(3);
  log(`session/new ok (${times.sessionNew}s) sessionId=${sess.sessionId}`);

  t = now();
  if (cancelAfterMs != null) setTimeout(() => notify('session/cancel', { sessionId: sess.sessionId }), cancelAfterMs);
  const res = await request('session/prompt', {
    sessionId: sess.sessionId,
    prompt: [{ type: 'text', text: 'In hello.txt, replace the word world with ACP.' }],
  });
  times.prompt = +(now() - t).toFixed(3);
  times.total = +(now() - tSpawn).toFixed(3);
  log(`prompt done (${times.prompt}s) stopReason=${res.stopReason}`);

  const content = fs.readFileSync(target, 'utf8');
  Object.assign(summary, {
    stopReason: res.stopReason,
    times,
    file: content,
    permission: stats.permission && { idType: typeof stats.permission.id, options: stats.permission.options.map((o) => `${o.optionId}:${o.kind}`) },
    agentRequests: stats.agentRequests.map((r) => `${r.method}#${JSON.stringify(r.id)}`),
    updates: stats.updates,
    toolCalls: Object.values(stats.toolCalls).map((c) => `${c.kind}:${c.announced ? '' : 'unannounced:'}${c.statuses.join('>')}`),
    message: stats.messageText,
  });
  const expected = mode === 'approve' ? 'hello ACP\n' : 'hello world\n';
  const problems = [];
  if (content !== expected) problems.push(`hello.txt is ${JSON.stringify(content)}, expected ${JSON.stringify(expected)}`);
  if (!stats.permission && mode !== 'cancel-mid') problems.push('no session/request_permission was received');
  if (mode === 'approve' && res.stopReason !== 'end_turn') problems.push(`stopReason ${res.stopReason}, expected end_turn`);
  if (mode.startsWith('cancel') && res.stopReason !== 'cancelled') problems.push(`stopReason ${res.stopReason}, expected cancelled`);
  if (problems.length) summary.error = problems.join('; ');
  summary.ok = problems.length === 0;
  await finish(summary.ok ? 0 : 1);
} catch (e) {
  summary.error = summary.error || String(e?.message || e);
  await finish(1);
}
