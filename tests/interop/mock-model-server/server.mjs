#!/usr/bin/env node
// Mock LLM server for Hangar's ACP interop tests. Dependency-free (node:http only), Node >= 20.
//
// Speaks four model-API dialects so real ACP agents from npm can run offline:
//   POST /v1/messages[?beta=true]                 Anthropic Messages (SSE or JSON)       claude-agent-acp
//   POST /v1/messages/count_tokens                Anthropic token count
//   POST /v1/responses                            OpenAI Responses (SSE)                 codex-acp
//   POST /v1/chat/completions                     OpenAI Chat Completions (SSE or JSON)  qwen, copilot, opencode
//   POST /v1beta/models/M:streamGenerateContent   Gemini (SSE with ?alt=sse)             gemini-cli
//   POST /v1beta/models/M:generateContent         Gemini (JSON; JSON-mode answers built from the schema)
//   POST /v1beta/models/M:countTokens             Gemini token count
//   GET  /v1/models, /health                      trivial answers
//
// Stateless script. step = number of tool results in the request's history:
//   0 -> call the agent's READ tool on the target file (codex: exec_command `cat FILE`)
//   1 -> call its EDIT tool replacing MOCK_OLD by MOCK_NEW (codex: apply_patch custom tool)
//   2+ -> final text MOCK_REPLY, end of turn
// With MOCK_PLAN=1 step 0 calls the agent's todo tool first and the later steps shift by one.
// A prompt containing `[[call NAME ARG]]` scripts a call to one named tool instead (an MCP tool:
// the agent's name for it may be prefixed, e.g. claude `mcp__SERVER__NAME`; any tool whose name is
// NAME or ends with `_NAME`, `.NAME` or `/NAME` matches): step 0 calls it with {text: ARG} (or its
// first required argument), step 1+ answers `Tool said: <last tool result>`. When no offered tool
// matches, the answer is `No tool matching NAME.` (the log line's `directive` tells which).
// A request that offers no tools (titles, classifiers) gets a short text, or JSON built from
// the requested schema (Gemini responseJsonSchema / OpenAI response_format json_schema).
// Tool and argument names are discovered from the tool schemas in the request.
//
// Usage: node server.mjs [--port 0] [--config cfg.json]
// Prints exactly one line `{"port":N}` on stdout once listening on 127.0.0.1.
//
// Configuration (config file first, then env vars override it):
//   file   MOCK_FILE   target file, relative to the agent's cwd or absolute  (default hello.txt)
//   old    MOCK_OLD    text to replace                                      (default world)
//   new    MOCK_NEW    replacement                                          (default ACP)
//   reply  MOCK_REPLY  final text                                           (default "Done: replaced ...")
//   delayMs MOCK_DELAY_MS  delay between streamed chunks in ms              (default 0)
//   log    MOCK_LOG    JSONL request log file                               (default none)
//   plan   MOCK_PLAN   1 = call the todo tool first                          (default 0)
//   cwd    MOCK_CWD    fallback workspace dir when the request does not reveal it
// MOCK_LOG_BODIES=1 adds each full request body to the log (debugging).
// The config file can also be given with MOCK_CONFIG=path.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

// ---------------------------------------------------------------- configuration
function argValue(name) {
  const i = process.argv.indexOf(name);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  const pref = process.argv.find((a) => a.startsWith(name + '='));
  return pref ? pref.slice(name.length + 1) : undefined;
}

const cfgPath = argValue('--config') ?? process.env.MOCK_CONFIG;
let fileCfg = {};
if (cfgPath) fileCfg = JSON.parse(fs.readFileSync(cfgPath, 'utf8'));
const env = process.env;
const pick = (envName, key, dflt) => (env[envName] !== undefined && env[envName] !== '' ? env[envName] : fileCfg[key] ?? dflt);

const CFG = {
  file: String(pick('MOCK_FILE', 'file', 'hello.txt')),
  old: String(pick('MOCK_OLD', 'old', 'world')),
  new: String(pick('MOCK_NEW', 'new', 'ACP')),
  delayMs: Number(pick('MOCK_DELAY_MS', 'delayMs', 0)) || 0,
  log: pick('MOCK_LOG', 'log', ''),
  plan: ['1', 'true', true, 1].includes(pick('MOCK_PLAN', 'plan', '0')),
  cwd: pick('MOCK_CWD', 'cwd', ''),
};
CFG.reply = String(pick('MOCK_REPLY', 'reply', `Done: replaced '${CFG.old}' with '${CFG.new}' in ${path.basename(CFG.file)}.`));
const PREAMBLE = "I'll do that now.";
const port = Number(argValue('--port') ?? env.MOCK_PORT ?? 0);

// ---------------------------------------------------------------- helpers
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const rid = (p) => `${p}${crypto.randomBytes(10).toString('hex')}`;
const T0 = Date.now();

function chunkText(s, n = 12) {
  const out = [];
  for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
  return out.length ? out : [''];
}
function splitPreamble() {
  // "I'll do that now." -> ["I'll do that", " now."] like the recorded transcripts
  const i = PREAMBLE.lastIndexOf(' ');
  return [PREAMBLE.slice(0, i), PREAMBLE.slice(i)];
}

function logLine(obj) {
  if (!CFG.log) return;
  try {
    fs.appendFileSync(CFG.log, JSON.stringify({ t: (Date.now() - T0) / 1000, ...obj }) + '\n');
  } catch (e) {
    process.stderr.write(`mock: cannot write log: ${e}\n`);
  }
}

// Find the agent's working directory in the request text (system prompt / env context).
const CWD_PATTERNS = [
  /<cwd>([^<\n]+)<\/cwd>/, // codex environment_context
  /Primary working directory:\s*(\/[^\s"\\]+)/, // claude
  /[Ww]orking directory:\s*(\/[^\s"\\]+)/,
  /currently working in the directory:?\s*(\/[^\s"\\]+)/, // gemini / qwen
  /"cwd"\s*:\s*"(\/[^"\\]+)"/,
];
function findCwd(rawText) {
  for (const re of CWD_PATTERNS) {
    const m = rawText.match(re);
    if (m) return m[1].replace(/[.,;:]+$/, '');
  }
  return CFG.cwd || '';
}
function targetPath(cwd) {
  if (path.isAbsolute(CFG.file)) return CFG.file;
  return cwd ? path.join(cwd, CFG.file) : CFG.file;
}

// ---------------------------------------------------------------- tool discovery
// Normalised tool: {name, kind:'function'|'custom', props:{name:schema}, required:[], namespace?}
// A Responses `namespace` tool (codex puts each MCP server's tools in one, `mcp__SERVER`) lists its
// functions as `NAMESPACE__NAME`; a call to one goes out as {name: NAME, namespace: NAMESPACE}.
function normTools(api, body) {
  const out = [];
  const add = (name, schema, kind = 'function', namespace = undefined) => {
    if (!name) return;
    schema = schema || {};
    const tool = { name, kind, props: schema.properties || {}, required: schema.required || [] };
    if (namespace) Object.assign(tool, { name: `${namespace}__${name}`, namespace, callName: name });
    out.push(tool);
  };
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (api === 'anthropic') for (const t of tools) add(t.name, t.input_schema);
  else if (api === 'responses')
    for (const t of tools) {
      if (t.type === 'function') add(t.name, t.parameters);
      else if (t.type === 'custom') add(t.name, null, 'custom');
      else if (t.type === 'namespace') for (const f of t.tools || []) if (f.type === 'function') add(f.name, f.parameters, 'function', t.name);
    }
  else if (api === 'chat')
    for (const t of tools) {
      if (t.type === 'function' && t.function) add(t.function.name, t.function.parameters);
    }
  else if (api === 'gemini')
    for (const t of tools)
      for (const f of t.functionDeclarations || []) add(f.name, f.parametersJsonSchema || f.parameters);
  return out;
}

const firstProp = (tool, names) => names.find((n) => n in tool.props);
const PATH_ARGS = ['file_path', 'filePath', 'absolute_path', 'absolutePath', 'path', 'fileName', 'filename', 'file'];
const OLD_ARGS = ['old_string', 'oldString', 'old_str', 'oldText', 'old_text', 'old'];
const NEW_ARGS = ['new_string', 'newString', 'new_str', 'newText', 'new_text', 'new'];

function findReadTool(tools) {
  const pref = ['Read', 'read_file', 'read', 'view', 'ReadFile', 'read_text_file', 'readFile', 'view_file'];
  for (const n of pref) {
    const t = tools.find((x) => x.name === n && firstProp(x, PATH_ARGS));
    if (t) return { tool: t, type: 'read' };
  }
  const t = tools.find((x) => /read|view/i.test(x.name) && !/many|multiple|dir|folder|mcp|image|media|pdf|notebook/i.test(x.name) && firstProp(x, PATH_ARGS));
  if (t) return { tool: t, type: 'read' };
  // no read tool (codex): read with a shell command
  const sh = tools.find((x) => ['exec_command', 'shell', 'shell_command', 'Bash', 'run_shell_command', 'bash'].includes(x.name));
  if (sh) return { tool: sh, type: 'shell' };
  return null;
}

function findEditTool(tools) {
  const pref = ['Edit', 'edit', 'replace', 'str_replace', 'edit_file', 'str_replace_editor', 'StrReplace'];
  for (const n of pref) {
    const t = tools.find((x) => x.name === n && firstProp(x, PATH_ARGS) && firstProp(x, OLD_ARGS) && firstProp(x, NEW_ARGS));
    if (t) return { tool: t, type: 'replace' };
  }
  const t = tools.find((x) => firstProp(x, PATH_ARGS) && firstProp(x, OLD_ARGS) && firstProp(x, NEW_ARGS));
  if (t) return { tool: t, type: 'replace' };
  const ap = tools.find((x) => x.name === 'apply_patch');
  if (ap) return { tool: ap, type: 'patch' };
  return null;
}

// `[[call NAME ARG]]` in the request (the user's prompt): {name, arg} or null.
const DIRECTIVE = /\[\[call ([\w.:/-]+) ([^\]\s"\\]+)\]\]/;
function findDirective(rawText) {
  const m = rawText.match(DIRECTIVE);
  return m ? { name: m[1], arg: m[2] } : null;
}
function findNamedTool(tools, name) {
  return tools.find((t) => t.name === name) ?? tools.find((t) => ['_', '.', '/'].some((sep) => t.name.endsWith(sep + name)));
}
function namedToolArgs(tool, arg) {
  const key = 'text' in tool.props ? 'text' : tool.required[0] ?? Object.keys(tool.props)[0] ?? 'text';
  return { [key]: arg };
}

function findTodoTool(tools) {
  for (const n of ['TodoWrite', 'update_plan', 'todo_write', 'todowrite', 'write_todos']) {
    const t = tools.find((x) => x.name === n);
    if (t) return t;
  }
  return null;
}

// ---------------------------------------------------------------- history inspection
function countToolResults(api, body) {
  let n = 0;
  let last = null;
  const asText = (c) => (typeof c === 'string' ? c : JSON.stringify(c));
  if (api === 'anthropic') {
    for (const m of body.messages || [])
      if (Array.isArray(m.content))
        for (const b of m.content)
          if (b && b.type === 'tool_result') {
            n++;
            last = asText(b.content);
          }
  } else if (api === 'responses') {
    for (const it of Array.isArray(body.input) ? body.input : [])
      if (it && (it.type === 'function_call_output' || it.type === 'custom_tool_call_output')) {
        n++;
        last = asText(it.output);
      }
  } else if (api === 'chat') {
    for (const m of body.messages || [])
      if (m && m.role === 'tool') {
        n++;
        last = asText(m.content);
      }
  } else if (api === 'gemini') {
    for (const c of body.contents || [])
      for (const p of c.parts || [])
        if (p && p.functionResponse) {
          n++;
          last = asText(p.functionResponse.response);
        }
  }
  return { n, last };
}

// ---------------------------------------------------------------- JSON from schema
function fromSchema(s, key = '') {
  if (!s || typeof s !== 'object') return 'mock';
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  if (s.anyOf || s.oneOf) return fromSchema((s.anyOf || s.oneOf)[0], key);
  let type = s.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') || type[0];
  type = typeof type === 'string' ? type.toLowerCase() : type;
  switch (type) {
    case 'object': {
      const o = {};
      for (const [k, v] of Object.entries(s.properties || {})) o[k] = fromSchema(v, k);
      return o;
    }
    case 'array':
      return s.minItems ? Array.from({ length: s.minItems }, () => fromSchema(s.items, key)) : [];
    case 'number':
    case 'integer': {
      const lo = s.minimum ?? s.exclusiveMinimum ?? 1;
      return Math.max(typeof lo === 'number' ? lo : 1, 1);
    }
    case 'boolean':
      return false;
    case 'string':
      return key ? `mock ${key}` : 'mock';
    default:
      return s.properties ? fromSchema({ ...s, type: 'object' }, key) : 'mock';
  }
}

// JSON mode requested? -> {schema|null}, else null
function requestedJson(api, body) {
  if (api === 'gemini') {
    const gc = body.generationConfig || {};
    const schema = gc.responseJsonSchema || gc.responseSchema;
    if (schema || gc.responseMimeType === 'application/json') return { schema: schema || null };
  } else if (api === 'chat' || api === 'responses') {
    const rf = api === 'chat' ? body.response_format : body.text?.format;
    if (rf?.type === 'json_schema') return { schema: rf.json_schema?.schema || rf.schema || { type: 'object' } };
    if (rf?.type === 'json_object') return { schema: null };
  } else if (api === 'anthropic') {
    const f = body.output_format;
    if (f?.type === 'json_schema') return { schema: f.schema || null };
  }
  return null;
}

// ---------------------------------------------------------------- the script
// Returns {kind:'text', text} or {kind:'tool', name, args, custom?:string, text?} plus info for the log.
function decide(api, body, rawText) {
  const tools = normTools(api, body);
  const { n, last } = countToolResults(api, body);
  const cwd = findCwd(rawText);
  const info = { step: n, tools: tools.map((t) => t.name), cwd, lastToolResult: last ? last.slice(0, 300) : null };

  if (!tools.length) {
    const want = requestedJson(api, body);
    const text = want ? JSON.stringify(want.schema ? fromSchema(want.schema) : {}) : 'Mock title';
    return { action: { kind: 'text', text }, info: { ...info, sideRequest: true } };
  }

  const directive = findDirective(rawText);
  if (directive) {
    const t = findNamedTool(tools, directive.name);
    const dinfo = { ...info, directive: { ...directive, tool: t ? t.name : null } };
    if (!t) return { action: { kind: 'text', text: `No tool matching ${directive.name}.` }, info: dinfo };
    if (n === 0) {
      const action = { kind: 'tool', name: t.callName ?? t.name, args: namedToolArgs(t, directive.arg), text: PREAMBLE };
      return { action: t.namespace ? { ...action, namespace: t.namespace } : action, info: dinfo };
    }
    return { action: { kind: 'text', text: `Tool said: ${last}` }, info: dinfo };
  }

  let step = n;
  if (CFG.plan) {
    const todo = findTodoTool(tools);
    if (todo) {
      if (step === 0) return { action: { kind: 'tool', name: todo.name, args: todoArgs(todo), text: PREAMBLE }, info };
      step -= 1;
    }
  }

  const file = targetPath(cwd);
  if (step === 0) {
    const r = findReadTool(tools);
    if (r) {
      const t = r.tool;
      if (r.type === 'read') {
        return { action: { kind: 'tool', name: t.name, args: fillRequired(t, { [firstProp(t, PATH_ARGS)]: file }), text: PREAMBLE }, info };
      }
      const cmdStr = `cat ${shellQuote(file)}`;
      let args;
      if ('cmd' in t.props) args = { cmd: cmdStr };
      else if ('command' in t.props) args = { command: t.props.command.type === 'array' ? ['bash', '-lc', cmdStr] : cmdStr };
      else args = { command: cmdStr };
      if ('workdir' in t.props && cwd) args.workdir = cwd;
      return { action: { kind: 'tool', name: t.name, args, text: PREAMBLE }, info };
    }
    step = 1; // no read tool at all: go straight to the edit
  }
  if (step === 1) {
    const e = findEditTool(tools);
    if (e) {
      const t = e.tool;
      if (e.type === 'replace') {
        const args = {
          [firstProp(t, PATH_ARGS)]: file,
          [firstProp(t, OLD_ARGS)]: CFG.old,
          [firstProp(t, NEW_ARGS)]: CFG.new,
        };
        if ('replace_all' in t.props && t.required.includes('replace_all')) args.replace_all = false;
        return { action: { kind: 'tool', name: t.name, args: fillRequired(t, args), text: PREAMBLE }, info };
      }
      const patch = makePatch(file, last);
      if (t.kind === 'custom') return { action: { kind: 'tool', name: t.name, custom: patch, text: PREAMBLE }, info };
      return { action: { kind: 'tool', name: t.name, args: { [('input' in t.props) ? 'input' : Object.keys(t.props)[0] || 'input']: patch }, text: PREAMBLE }, info };
    }
  }
  return { action: { kind: 'text', text: CFG.reply }, info };
}

// Fill required arguments the script does not know about (e.g. gemini's replace.instruction).
function fillRequired(tool, args) {
  if (!args || typeof args !== 'object') return args;
  for (const k of tool.required || []) {
    if (k in args) continue;
    const sch = tool.props[k] || {};
    args[k] = sch.type === 'string' || !sch.type ? `Replace '${CFG.old}' with '${CFG.new}' in ${path.basename(CFG.file)}.` : fromSchema(sch, k);
  }
  return args;
}

function shellQuote(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function todoArgs(t) {
  const items = [`Read ${path.basename(CFG.file)}`, `Replace '${CFG.old}' with '${CFG.new}'`];
  switch (t.name) {
    case 'TodoWrite':
      return { todos: items.map((c, i) => ({ content: c, status: i ? 'pending' : 'in_progress', activeForm: c })) };
    case 'update_plan':
      return { plan: items.map((c, i) => ({ step: c, status: i ? 'pending' : 'in_progress' })) };
    case 'write_todos':
      return { todos: items.map((c, i) => ({ description: c, status: i ? 'pending' : 'in_progress' })) };
    default:
      return { todos: items.map((c, i) => ({ id: String(i + 1), content: c, status: i ? 'pending' : 'in_progress', priority: 'medium' })) };
  }
}

// apply_patch needs whole lines: take them from disk, else from the last tool result.
function makePatch(file, lastResult) {
  let lines = [];
  try {
    lines = fs.readFileSync(file, 'utf8').split('\n');
  } catch {
    if (lastResult) {
      let txt = lastResult;
      try {
        const j = JSON.parse(lastResult);
        if (typeof j === 'string') txt = j;
      } catch {}
      lines = txt.split('\n');
    }
  }
  const hit = lines.find((l) => l.includes(CFG.old)) ?? CFG.old;
  return ['*** Begin Patch', `*** Update File: ${file}`, '@@', `-${hit}`, `+${hit.split(CFG.old).join(CFG.new)}`, '*** End Patch', ''].join('\n');
}

// ---------------------------------------------------------------- streaming plumbing
function sseStart(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}
async function emit(res, lines) {
  for (const l of lines) {
    if (res.destroyed || res.writableEnded) return;
    res.write(l);
    if (CFG.delayMs) await sleep(CFG.delayMs);
  }
}
const ev = (type, data) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const dataLine = (data) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const argsPieces = (args) => {
  const s = JSON.stringify(args);
  const mid = Math.ceil(s.length / 2);
  return [s.slice(0, mid), s.slice(mid)];
};

// ---------------------------------------------------------------- Anthropic Messages
async function anthropic(req, res, body, action) {
  const model = body.model || 'claude-sonnet-4-6';
  const id = rid('msg_');
  const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const blocks = [];
  if (action.kind === 'tool') {
    blocks.push({ type: 'text', text: action.text });
    blocks.push({ type: 'tool_use', id: rid('toolu_'), name: action.name, input: action.args });
  } else blocks.push({ type: 'text', text: action.text });
  const stop = action.kind === 'tool' ? 'tool_use' : 'end_turn';

  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  sseStart(res);
  const out = [ev('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } })];
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      out.push(ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      const parts = action.kind === 'tool' ? splitPreamble() : chunkText(b.text);
      for (const p of parts) out.push(ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } }));
    } else {
      out.push(ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } }));
      for (const p of argsPieces(b.input)) out.push(ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } }));
    }
    out.push(ev('content_block_stop', { type: 'content_block_stop', index }));
  });
  out.push(ev('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } }));
  out.push(ev('message_stop', { type: 'message_stop' }));
  await emit(res, out);
  res.end();
}

// ---------------------------------------------------------------- OpenAI Responses
async function responses(req, res, body, action) {
  const model = body.model || 'gpt-5.4';
  const respId = rid('resp_');
  const created_at = Math.floor(Date.now() / 1000);
  let seq = 0;
  const E = (type, data) => ev(type, { type, sequence_number: seq++, ...data });
  const items = [];
  const out = [];
  const base = { id: respId, object: 'response', created_at, model, status: 'in_progress', output: [] };
  out.push(E('response.created', { response: base }));
  out.push(E('response.in_progress', { response: base }));

  // message item
  const text = action.text;
  const msgId = rid('msg_');
  const oi = items.length;
  const part = { type: 'output_text', text: '', annotations: [] };
  out.push(E('response.output_item.added', { output_index: oi, item: { id: msgId, type: 'message', role: 'assistant', status: 'in_progress', content: [] } }));
  out.push(E('response.content_part.added', { item_id: msgId, output_index: oi, content_index: 0, part }));
  const parts = action.kind === 'tool' ? splitPreamble() : chunkText(text);
  for (const p of parts) out.push(E('response.output_text.delta', { item_id: msgId, output_index: oi, content_index: 0, delta: p, logprobs: [] }));
  out.push(E('response.output_text.done', { item_id: msgId, output_index: oi, content_index: 0, text, logprobs: [] }));
  out.push(E('response.content_part.done', { item_id: msgId, output_index: oi, content_index: 0, part: { ...part, text } }));
  const msgItem = { id: msgId, type: 'message', role: 'assistant', status: 'completed', content: [{ ...part, text }] };
  out.push(E('response.output_item.done', { output_index: oi, item: msgItem }));
  items.push(msgItem);

  if (action.kind === 'tool') {
    const call_id = rid('call_');
    const ti = items.length;
    if (action.custom !== undefined) {
      const id = rid('ctc_');
      out.push(E('response.output_item.added', { output_index: ti, item: { id, type: 'custom_tool_call', status: 'in_progress', call_id, name: action.name, input: '' } }));
      out.push(E('response.custom_tool_call_input.delta', { item_id: id, output_index: ti, delta: action.custom }));
      out.push(E('response.custom_tool_call_input.done', { item_id: id, output_index: ti, input: action.custom }));
      const item = { id, type: 'custom_tool_call', status: 'completed', call_id, name: action.name, input: action.custom };
      out.push(E('response.output_item.done', { output_index: ti, item }));
      items.push(item);
    } else {
      const id = rid('fc_');
      const args = JSON.stringify(action.args);
      const ns = action.namespace ? { namespace: action.namespace } : {};
      out.push(E('response.output_item.added', { output_index: ti, item: { id, type: 'function_call', status: 'in_progress', call_id, name: action.name, ...ns, arguments: '' } }));
      for (const p of argsPieces(action.args)) out.push(E('response.function_call_arguments.delta', { item_id: id, output_index: ti, delta: p }));
      out.push(E('response.function_call_arguments.done', { item_id: id, output_index: ti, arguments: args }));
      const item = { id, type: 'function_call', status: 'completed', call_id, name: action.name, ...ns, arguments: args };
      out.push(E('response.output_item.done', { output_index: ti, item }));
      items.push(item);
    }
  }
  const usage = { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 };
  out.push(E('response.completed', { response: { ...base, status: 'completed', output: items, usage } }));

  if (body.stream === false) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, status: 'completed', output: items, usage }));
    return;
  }
  sseStart(res);
  await emit(res, out);
  res.end();
}

// ---------------------------------------------------------------- OpenAI Chat Completions
async function chat(req, res, body, action) {
  const model = body.model || 'mock-model';
  const id = rid('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
  const text = action.text;
  const callId = rid('call_');

  if (!body.stream) {
    const message = { role: 'assistant', content: text };
    if (action.kind === 'tool') message.tool_calls = [{ id: callId, type: 'function', function: { name: action.name, arguments: JSON.stringify(action.args) } }];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: action.kind === 'tool' ? 'tool_calls' : 'stop' }], usage }));
    return;
  }
  const chunk = (delta, finish_reason = null) => dataLine({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }] });
  const out = [chunk({ role: 'assistant', content: '' })];
  const parts = action.kind === 'tool' ? splitPreamble() : chunkText(text);
  for (const p of parts) out.push(chunk({ content: p }));
  if (action.kind === 'tool') {
    out.push(chunk({ tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: action.name, arguments: '' } }] }));
    for (const p of argsPieces(action.args)) out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: p } }] }));
    out.push(chunk({}, 'tool_calls'));
  } else out.push(chunk({}, 'stop'));
  if (body.stream_options?.include_usage) out.push(dataLine({ id, object: 'chat.completion.chunk', created, model, choices: [], usage }));
  out.push(dataLine('[DONE]'));
  sseStart(res);
  await emit(res, out);
  res.end();
}

// ---------------------------------------------------------------- Gemini
async function gemini(req, res, body, action, model, streaming) {
  const usageMetadata = { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 };
  const resp = (parts, finishReason) => {
    const cand = { content: { role: 'model', parts }, index: 0 };
    if (finishReason) cand.finishReason = finishReason;
    return { candidates: [cand], usageMetadata, modelVersion: model, responseId: rid('') };
  };
  let pieces;
  if (action.kind === 'tool') pieces = [...splitPreamble().map((t) => [{ text: t }]), [{ functionCall: { name: action.name, args: action.args } }]];
  else pieces = chunkText(action.text).map((t) => [{ text: t }]);

  if (!streaming) {
    // one text part (joined), then any functionCall part
    const flat = pieces.flat();
    const text = flat.filter((p) => 'text' in p).map((p) => p.text).join('');
    const parts = [...(text ? [{ text }] : []), ...flat.filter((p) => !('text' in p))];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(resp(parts, 'STOP')));
    return;
  }
  sseStart(res);
  await emit(res, pieces.map((p, i) => dataLine(resp(p, i === pieces.length - 1 ? 'STOP' : undefined))));
  res.end();
}

// ---------------------------------------------------------------- server
function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res, status, obj) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(obj));
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const p = url.pathname;
  res.on('error', () => {});
  try {
    if (req.method === 'GET' || req.method === 'HEAD') {
      logLine({ method: req.method, path: p });
      if (p === '/health' || p === '/') return json(res, 200, { ok: true });
      if (/\/models$/.test(p)) return json(res, 200, { object: 'list', data: [], models: [] });
      return json(res, 404, { error: { message: `mock: no GET ${p}` } });
    }
    const raw = await readBody(req);
    let body = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      body = {};
    }

    let api = null;
    let gModel = null;
    let gStream = false;
    if (p.endsWith('/messages/count_tokens')) {
      logLine({ api: 'anthropic', path: p, countTokens: true });
      return json(res, 200, { input_tokens: 100 });
    }
    if (p.endsWith('/messages')) api = 'anthropic';
    else if (p.endsWith('/responses')) api = 'responses';
    else if (p.endsWith('/chat/completions')) api = 'chat';
    else {
      const m = p.match(/\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/);
      if (m) {
        if (m[2] === 'countTokens') {
          logLine({ api: 'gemini', path: p, countTokens: true });
          return json(res, 200, { totalTokens: 100 });
        }
        api = 'gemini';
        gModel = decodeURIComponent(m[1]);
        gStream = m[2] === 'streamGenerateContent';
      }
    }
    if (!api) {
      logLine({ method: req.method, path: p, unknown: true });
      return json(res, 404, { error: { message: `mock: unknown endpoint ${req.method} ${p}` } });
    }

    const { action, info } = decide(api, body, raw);
    logLine({
      api,
      path: p + url.search,
      model: body.model || gModel,
      stream: api === 'gemini' ? gStream : !!body.stream,
      ...info,
      action: action.kind === 'tool' ? { tool: action.name, ...(action.namespace ? { namespace: action.namespace } : {}), args: action.args ?? action.custom } : { text: action.text },
      ...(env.MOCK_LOG_BODIES ? { body } : {}),
    });
    if (api === 'anthropic') await anthropic(req, res, body, action);
    else if (api === 'responses') await responses(req, res, body, action);
    else if (api === 'chat') await chat(req, res, body, action);
    else await gemini(req, res, body, action, gModel, gStream);
  } catch (e) {
    process.stderr.write(`mock: error handling ${req.method} ${p}: ${e?.stack || e}\n`);
    logLine({ path: p, error: String(e) });
    if (!res.headersSent) json(res, 500, { error: { message: String(e) } });
    else res.end();
  }
});

server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n');
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
