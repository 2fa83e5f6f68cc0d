// An MCP server's form over its entry in a JSON settings file, in the four
// JSON dialects the host reads (../shared/docs/customizations.md §9):
// - claude: `.mcp.json`, `~/.claude.json`, the Copilot CLI's
//   `mcp-config.json`: `mcpServers.<name>` = {type?, command, args, env} or
//   {type: http|sse, url, headers};
// - gemini (and Qwen): `mcpServers.<name>`, http as `httpUrl`, sse as `url`;
// - vscode: `.vscode/mcp.json` `servers.<name>` with `type` always written;
// - opencode: `mcp.<name>` = {type: local, command: [cmd, ...args],
//   environment} or {type: remote, url, headers}.
// Codex's TOML is edited as text. Fields a form does not show (cwd,
// timeout, trust, enabled, …) are kept as written.
import { type Json, type JsonObject, objectAt, pathOfPointer, pointerOfPath, setAt, str } from './json-entry';

export type McpDialect = 'claude' | 'gemini' | 'vscode' | 'opencode';
export type Transport = 'stdio' | 'http' | 'sse';
export type Pair = { key: string; value: string };

export interface McpForm {
  name: string;
  transport: Transport;
  command: string;
  args: string[];
  env: Pair[];
  url: string;
  headers: Pair[];
}

const ROOT: Record<McpDialect, string> = {
  claude: 'mcpServers',
  gemini: 'mcpServers',
  vscode: 'servers',
  opencode: 'mcp',
};

/** The dialect of the file at `uri` (its entry's pointer, when known, settles it). */
export function mcpDialect(uri: string, at: string | null): McpDialect {
  const root = at ? String(pathOfPointer(at)[0]) : null;
  if (root === 'servers' || /\/\.vscode\/mcp\.json$/.test(uri)) return 'vscode';
  if (root === 'mcp' || /\/opencode\.jsonc?$/.test(uri)) return 'opencode';
  if (/\/\.(gemini|qwen)\/settings\.json$/.test(uri)) return 'gemini';
  return 'claude';
}

/** The transports a dialect can write (OpenCode's remote is http with an SSE fallback). */
export function transports(d: McpDialect): Transport[] {
  return d === 'opencode' ? ['stdio', 'http'] : ['stdio', 'http', 'sse'];
}

const pairs = (o: Json | undefined): Pair[] =>
  o != null && typeof o === 'object' && !Array.isArray(o)
    ? Object.entries(o).map(([key, v]) => ({ key, value: typeof v === 'string' ? v : JSON.stringify(v) }))
    : [];
const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.map((x) => String(x)) : []);

/** The form of server `name` as written in `entry`. */
export function readMcp(d: McpDialect, name: string, entry: JsonObject): McpForm {
  const type = str(entry, 'type');
  const form: McpForm = {
    name,
    transport: 'stdio',
    command: str(entry, 'command'),
    args: strings(entry.args),
    env: pairs(entry.env),
    url: str(entry, 'url'),
    headers: pairs(entry.headers),
  };
  if (d === 'opencode') {
    const [command = '', ...args] = strings(entry.command);
    return { ...form, command, args, env: pairs(entry.environment), transport: type === 'remote' ? 'http' : 'stdio' };
  }
  if (d === 'gemini') {
    const http = str(entry, 'httpUrl');
    if (http) return { ...form, transport: 'http', url: http };
    return { ...form, transport: form.url ? (type === 'http' ? 'http' : 'sse') : 'stdio' };
  }
  if (type === 'http' || type === 'streamable-http' || type === 'sse') {
    return { ...form, transport: type === 'sse' ? 'sse' : 'http' };
  }
  return { ...form, transport: !form.command && form.url ? 'http' : 'stdio' };
}

/** Keys a form writes; every other key of the entry is kept. */
const OWNED = ['type', 'command', 'args', 'env', 'environment', 'url', 'httpUrl', 'headers'];

const record = (ps: Pair[]): JsonObject => Object.fromEntries(ps.filter((p) => p.key).map((p) => [p.key, p.value]));

/** The entry for `form`, keeping `prior`'s other keys. */
export function writeMcp(d: McpDialect, form: McpForm, prior: JsonObject): JsonObject {
  const kept: JsonObject = Object.fromEntries(Object.entries(prior).filter(([k]) => !OWNED.includes(k)));
  const some = (ps: Pair[]) => ps.some((p) => p.key);
  const stdio = form.transport === 'stdio';
  const args = form.args.filter(Boolean);
  let own: JsonObject;
  if (d === 'opencode') {
    own = stdio
      ? {
          type: 'local',
          command: [form.command, ...args],
          ...(some(form.env) ? { environment: record(form.env) } : {}),
        }
      : { type: 'remote', url: form.url, ...(some(form.headers) ? { headers: record(form.headers) } : {}) };
  } else if (stdio) {
    // Claude's files name the type only when it was written before; VS Code's always.
    const type: JsonObject = d === 'vscode' || prior.type != null ? { type: 'stdio' } : {};
    own = {
      ...type,
      command: form.command,
      ...(args.length ? { args } : {}),
      ...(some(form.env) ? { env: record(form.env) } : {}),
    };
  } else {
    const headers: JsonObject = some(form.headers) ? { headers: record(form.headers) } : {};
    own =
      d === 'gemini'
        ? form.transport === 'http'
          ? { httpUrl: form.url, ...headers }
          : { url: form.url, ...headers }
        : { type: form.transport, url: form.url, ...headers };
  }
  return { ...own, ...kept };
}

/** The form's problems (none: it can be saved). `taken`: the file's other servers. */
export function mcpProblems(form: McpForm, taken: string[]): string[] {
  const out: string[] = [];
  if (!form.name.trim()) out.push('Name: required');
  else if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(form.name))
    out.push('Name: letters, digits, dots, hyphens, underscores');
  else if (taken.includes(form.name)) out.push(`Name: there is already a server named ${form.name} in this file`);
  if (form.transport === 'stdio' && !form.command.trim()) out.push('Command: required');
  if (form.transport !== 'stdio' && !/^https?:\/\/\S+$/.test(form.url)) out.push('URL: an http:// or https:// address');
  const vars = form.env.filter((p) => p.key || p.value);
  if (vars.some((p) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(p.key)))
    out.push('Environment: a name is letters, digits and _');
  if (form.headers.some((p) => p.value && !p.key)) out.push('Headers: a value needs a name');
  return out;
}

/** What an agent that reads the file does differently (warnings). */
export function mcpWarnings(d: McpDialect, form: McpForm, readBy: string[]): string[] {
  const out: string[] = [];
  if (form.transport === 'sse' && readBy.includes('claude'))
    out.push('Claude Code calls SSE deprecated: prefer http where the server offers it.');
  if (d === 'vscode' && readBy.includes('copilot') && form.transport !== 'stdio')
    out.push('The Copilot CLI reads its own mcp-config.json, not this file; VS Code reads this one.');
  return out;
}

/** The names of the file's servers other than the one at `at`. */
export function otherServers(text: string, d: McpDialect, at: string | null): string[] {
  const own = at ? String(pathOfPointer(at)[1]) : null;
  return Object.keys(objectAt(text, [ROOT[d]])).filter((n) => n !== own);
}

/** The form of the entry at `at` (a new, empty stdio server when null). */
export function mcpFormAt(text: string, d: McpDialect, at: string | null): McpForm {
  if (!at) return { name: '', transport: 'stdio', command: '', args: [], env: [], url: '', headers: [] };
  const path = pathOfPointer(at);
  return readMcp(d, String(path[1]), objectAt(text, path));
}

/** `text` with the entry at `at` (or a new one) written from `form`; the
 * entry's pointer after (a rename moves it). */
export function saveMcpForm(
  text: string,
  d: McpDialect,
  at: string | null,
  form: McpForm,
): { text: string; at: string | null } {
  if (!form.name) return { text, at };
  const prior = at ? objectAt(text, pathOfPointer(at)) : {};
  const path = [ROOT[d], form.name];
  let out = text;
  if (at && pointerOfPath(path) !== at) out = setAt(out, pathOfPointer(at), undefined);
  out = setAt(out, path, writeMcp(d, form, prior));
  return { text: out, at: pointerOfPath(path) };
}
