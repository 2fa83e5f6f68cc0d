// Self-test of the mock model server (no agents needed): node --test tests/interop/mock-model-server/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
let srv, base, dir, logFile;

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mock-selftest-'));
  fs.writeFileSync(path.join(dir, 'hello.txt'), 'hello world\n');
  logFile = path.join(dir, 'log.jsonl');
  srv = spawn(process.execPath, [path.join(HERE, 'server.mjs'), '--port', '0'], {
    env: { ...process.env, MOCK_LOG: logFile, MOCK_DELAY_MS: '0', MOCK_FILE: 'hello.txt', MOCK_OLD: 'world', MOCK_NEW: 'ACP', MOCK_REPLY: 'Done.' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((r) => readline.createInterface({ input: srv.stdout }).once('line', r));
  const { port } = JSON.parse(line);
  assert.ok(port > 0);
  base = `http://127.0.0.1:${port}`;
});
after(() => {
  srv.kill();
  fs.rmSync(dir, { recursive: true, force: true });
});

const post = async (p, body) => {
  const r = await fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(r.status, 200);
  return r.text();
};
const sseData = (txt) => txt.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]').map((l) => JSON.parse(l.slice(6)));

test('anthropic: step 0 -> Read with absolute path from system prompt', async () => {
  const txt = await post('/v1/messages?beta=true', {
    model: 'claude-sonnet-4-6', stream: true, system: [{ type: 'text', text: `Primary working directory: ${dir}` }],
    tools: [{ name: 'Read', input_schema: { properties: { file_path: {} } } }, { name: 'Edit', input_schema: { properties: { file_path: {}, old_string: {}, new_string: {} } } }],
    messages: [{ role: 'user', content: 'go' }],
  });
  const ev = sseData(txt);
  const start = ev.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use');
  assert.equal(start.content_block.name, 'Read');
  const json = ev.filter((e) => e.delta?.type === 'input_json_delta').map((e) => e.delta.partial_json).join('');
  assert.deepEqual(JSON.parse(json), { file_path: path.join(dir, 'hello.txt') });
  assert.equal(ev.find((e) => e.type === 'message_delta').delta.stop_reason, 'tool_use');
});

test('chat: step 1 -> edit, step 2 -> final text + usage + [DONE]', async () => {
  const tools = [
    { type: 'function', function: { name: 'read_file', parameters: { properties: { absolute_path: {} } } } },
    { type: 'function', function: { name: 'edit', parameters: { properties: { file_path: {}, old_string: {}, new_string: {} } } } },
  ];
  const msgs = [{ role: 'user', content: `I'm currently working in the directory: ${dir}` }, { role: 'tool', tool_call_id: 'a', content: 'hello world' }];
  let ev = sseData(await post('/v1/chat/completions', { stream: true, tools, messages: msgs }));
  const args = ev.flatMap((e) => e.choices?.[0]?.delta?.tool_calls ?? []).map((t) => t.function.arguments).join('');
  assert.deepEqual(JSON.parse(args), { file_path: path.join(dir, 'hello.txt'), old_string: 'world', new_string: 'ACP' });
  const txt = await post('/v1/chat/completions', { stream: true, stream_options: { include_usage: true }, tools, messages: [...msgs, { role: 'tool', content: 'ok' }] });
  assert.ok(txt.trim().endsWith('data: [DONE]'));
  ev = sseData(txt);
  assert.equal(ev.map((e) => e.choices?.[0]?.delta?.content ?? '').join(''), 'Done.');
  assert.ok(ev.some((e) => e.usage));
});

test('responses: exec_command cat, then custom_tool_call apply_patch', async () => {
  const tools = [{ type: 'function', name: 'exec_command', parameters: { properties: { cmd: {} } } }, { type: 'custom', name: 'apply_patch' }, { type: 'function', name: 'view_image', parameters: { properties: { path: {} } } }];
  const input = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: `<cwd>${dir}</cwd>` }] }];
  let ev = sseData(await post('/v1/responses', { stream: true, tools, input }));
  let item = ev.filter((e) => e.type === 'response.output_item.done').map((e) => e.item).find((i) => i.type === 'function_call');
  assert.equal(item.name, 'exec_command');
  assert.equal(JSON.parse(item.arguments).cmd, `cat ${path.join(dir, 'hello.txt')}`);
  ev = sseData(await post('/v1/responses', { stream: true, tools, input: [...input, { type: 'function_call_output', call_id: 'x', output: 'hello world\n' }] }));
  item = ev.filter((e) => e.type === 'response.output_item.done').map((e) => e.item).find((i) => i.type === 'custom_tool_call');
  assert.equal(item.name, 'apply_patch');
  assert.match(item.input, /^\*\*\* Begin Patch\n\*\*\* Update File: .*hello\.txt\n@@\n-hello world\n\+hello ACP\n\*\*\* End Patch/);
  assert.equal(ev.at(-1).type, 'response.completed');
});

test('gemini: stream functionCall with required extra arg; JSON mode classifier', async () => {
  const tools = [{ functionDeclarations: [{ name: 'read_file', parametersJsonSchema: { properties: { file_path: {} } } }, { name: 'replace', parametersJsonSchema: { properties: { file_path: {}, old_string: {}, new_string: {}, instruction: { type: 'string' } }, required: ['file_path', 'old_string', 'new_string', 'instruction'] } }] }];
  const contents = [{ role: 'user', parts: [{ text: `I'm currently working in the directory: ${dir}` }] }, { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: 'hello world' } } }] }];
  const ev = sseData(await post('/v1beta/models/gemini-x:streamGenerateContent?alt=sse', { contents, tools }));
  const call = ev.flatMap((e) => e.candidates[0].content.parts).find((p) => p.functionCall).functionCall;
  assert.equal(call.name, 'replace');
  assert.equal(typeof call.args.instruction, 'string');
  assert.equal(ev.at(-1).candidates[0].finishReason, 'STOP');
  const r = JSON.parse(await post('/v1beta/models/gemini-3.5-flash-lite:generateContent', {
    contents: [{ role: 'user', parts: [{ text: 'x' }] }],
    generationConfig: { responseMimeType: 'application/json', responseJsonSchema: { type: 'OBJECT', properties: { complexity_reasoning: { type: 'STRING' }, complexity_score: { type: 'INTEGER' } } } },
  }));
  const j = JSON.parse(r.candidates[0].content.parts[0].text);
  assert.equal(typeof j.complexity_score, 'number');
  assert.equal(typeof j.complexity_reasoning, 'string');
});

test('[[call NAME ARG]]: the named (prefixed MCP) tool, then its result; absent tool -> text', async () => {
  const tools = [{ name: 'Read', input_schema: { properties: { file_path: {} } } }, { name: 'mcp__probe__hangar_probe', input_schema: { properties: { text: {} }, required: ['text'] } }];
  const messages = [{ role: 'user', content: `Primary working directory: ${dir}\nPlease [[call hangar_probe m-1]]` }];
  let ev = sseData(await post('/v1/messages?beta=true', { stream: true, tools, messages }));
  const start = ev.find((e) => e.type === 'content_block_start' && e.content_block.type === 'tool_use');
  assert.equal(start.content_block.name, 'mcp__probe__hangar_probe');
  const json = ev.filter((e) => e.delta?.type === 'input_json_delta').map((e) => e.delta.partial_json).join('');
  assert.deepEqual(JSON.parse(json), { text: 'm-1' });
  const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'HANGAR_PROBE_OK:m-1' }] };
  ev = sseData(await post('/v1/messages?beta=true', { stream: true, tools, messages: [...messages, result] }));
  const text = ev.filter((e) => e.delta?.type === 'text_delta').map((e) => e.delta.text).join('');
  assert.equal(text, 'Tool said: HANGAR_PROBE_OK:m-1');
  const input = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: '[[call hangar_probe m-2]]' }] }];
  ev = sseData(await post('/v1/responses', { stream: true, tools: [{ type: 'function', name: 'exec_command', parameters: { properties: { cmd: {} } } }], input }));
  const done = ev.find((e) => e.type === 'response.output_text.done');
  assert.equal(done.text, 'No tool matching hangar_probe.');
  const log = fs.readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(log.at(-1).directive, { name: 'hangar_probe', arg: 'm-2', tool: null });
});

test('log is JSONL with step and tool names', () => {
  const lines = fs.readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.length >= 6);
  assert.ok(lines.every((l) => 'api' in l && 'step' in l && Array.isArray(l.tools)));
});
