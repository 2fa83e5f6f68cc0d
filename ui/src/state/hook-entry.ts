// A hook's form over its handler in a JSON settings or hooks file, in the
// three shapes the host reads (../shared/docs/customizations.md §2–6, 11):
// - nested (Claude, Codex's hooks.json, Gemini, Qwen):
//   `hooks.<Event>: [{matcher?, hooks: [handler]}]`, handler at
//   `/hooks/<Event>/<i>/hooks/<j>`;
// - flat (VS Code, the Copilot CLI): `hooks.<Event>: [handler]`, handler
//   at `/hooks/<Event>/<i>`, no matcher. The Copilot CLI's files
//   (`"version": 1`) name events in camelCase and the command `bash`, its
//   timeout `timeoutSec`.
// Gemini and Qwen take the timeout in milliseconds, the others in seconds;
// the form always shows seconds. Keys the form does not show are kept.
import type { JSONPath } from 'jsonc-parser';
import {
  appendAt,
  type Json,
  type JsonObject,
  objectAt,
  pathOfPointer,
  pointerOfPath,
  setAt,
  str,
  valueAt,
} from './json-entry';

export type HookShape = 'nested' | 'flat';

export interface HookForm {
  event: string;
  /** Which tools (a regex, or `*`); nested files only. */
  matcher: string;
  command: string;
  /** Seconds, as typed ('' = the agent's default). */
  timeout: string;
}

/** How a file is laid out, and what its handlers' keys are called. */
export interface HookFile {
  shape: HookShape;
  commandKey: 'command' | 'bash';
  timeoutKey: 'timeout' | 'timeoutSec';
  /** The file's timeouts are milliseconds. */
  millis: boolean;
  /** The events the agents reading the file know. */
  events: string[];
}

const CLAUDE_EVENTS =
  'PreToolUse PostToolUse PostToolUseFailure PermissionRequest UserPromptSubmit Notification Stop SubagentStart SubagentStop SessionStart SessionEnd PreCompact PostCompact'.split(
    ' ',
  );
const GEMINI_EVENTS =
  'BeforeTool AfterTool BeforeAgent AfterAgent BeforeModel AfterModel BeforeToolSelection Notification SessionStart SessionEnd PreCompress'.split(
    ' ',
  );
const VSCODE_EVENTS =
  'PreToolUse PostToolUse UserPromptSubmit SessionStart SubagentStart SubagentStop Stop PreCompact'.split(' ');
const COPILOT_CLI_EVENTS =
  'preToolUse postToolUse postToolUseFailure permissionRequest userPromptSubmitted sessionStart sessionEnd agentStop subagentStart subagentStop preCompact notification errorOccurred'.split(
    ' ',
  );

/** The layout of the hooks file at `uri` holding `text`. */
export function hookFile(uri: string, text: string): HookFile {
  const copilotCli = valueAt(text, ['version']) === 1;
  const gemini = /\/\.(gemini|qwen)\/settings\.json$/.test(uri);
  const flat = copilotCli || /\/\.github\/hooks\/[^/]+\.json$/.test(uri) || /\/\.copilot\/hooks\//.test(uri);
  return {
    shape: flat ? 'flat' : 'nested',
    commandKey: copilotCli ? 'bash' : 'command',
    timeoutKey: copilotCli ? 'timeoutSec' : 'timeout',
    millis: gemini,
    events: copilotCli ? COPILOT_CLI_EVENTS : gemini ? GEMINI_EVENTS : flat ? VSCODE_EVENTS : CLAUDE_EVENTS,
  };
}

/** Whether `event` is one a tool call fires (a matcher and a tool event apply). */
export function isToolEvent(event: string): boolean {
  return /^(PreToolUse|PostToolUse|PostToolUseFailure|PermissionRequest|BeforeTool|AfterTool|preToolUse|postToolUse|postToolUseFailure|permissionRequest)$/.test(
    event,
  );
}

/** The form of the handler at `at` (a new PreToolUse-like hook when null). */
export function hookFormAt(text: string, file: HookFile, at: string | null): HookForm {
  if (!at) return { event: file.events[0], matcher: '', command: '', timeout: '' };
  const path = pathOfPointer(at);
  const handler = objectAt(text, path);
  const group = file.shape === 'nested' ? objectAt(text, path.slice(0, 3)) : {};
  const raw = handler[file.timeoutKey];
  const timeout = typeof raw === 'number' ? String(file.millis ? raw / 1000 : raw) : '';
  return {
    event: String(path[1]),
    matcher: str(group, 'matcher'),
    command: str(handler, file.commandKey) || str(handler, 'command'),
    timeout,
  };
}

/** The form's problems (none: it can be saved). */
export function hookProblems(form: HookForm, file: HookFile): string[] {
  const out: string[] = [];
  if (!form.event.trim()) out.push('Event: required');
  else if (!/^[A-Za-z]+$/.test(form.event)) out.push('Event: letters only');
  if (!form.command.trim()) out.push('Command: required');
  if (form.timeout && !(Number(form.timeout) > 0)) out.push('Timeout: a number of seconds above 0');
  if (form.matcher && file.shape === 'nested') {
    try {
      new RegExp(form.matcher);
    } catch {
      out.push('Matcher: not a valid regular expression');
    }
  }
  return out;
}

/** What an agent reading the file does differently (warnings). */
export function hookWarnings(form: HookForm, file: HookFile, readBy: string[]): string[] {
  const out: string[] = [];
  if (form.event && !file.events.includes(form.event)) out.push(`${form.event} is not an event these agents fire.`);
  if (form.matcher && !isToolEvent(form.event)) out.push(`${form.event} is not a tool event: the matcher is ignored.`);
  if (readBy.includes('codex')) out.push('Codex runs hooks only with `[features] codex_hooks = true` in its config.');
  return out;
}

/** The handler for `form`, keeping `prior`'s other keys. */
function handlerOf(form: HookForm, file: HookFile, prior: JsonObject): JsonObject {
  const kept = Object.fromEntries(
    Object.entries(prior).filter(([k]) => k !== 'command' && k !== 'bash' && k !== 'timeout' && k !== 'timeoutSec'),
  );
  const secs = Number(form.timeout);
  const timeout: JsonObject = form.timeout && secs > 0 ? { [file.timeoutKey]: file.millis ? secs * 1000 : secs } : {};
  return { type: 'command', ...kept, [file.commandKey]: form.command, ...timeout };
}

/** `text` with the handler at `at` (or a new one) written from `form`; its
 * pointer after (a new event or matcher moves it). */
export function saveHookForm(
  text: string,
  file: HookFile,
  at: string | null,
  form: HookForm,
): { text: string; at: string | null } {
  if (!form.event || !/^[A-Za-z]+$/.test(form.event)) return { text, at };
  const path = at ? pathOfPointer(at) : null;
  const prior = path ? objectAt(text, path) : {};
  const handler = handlerOf(form, file, prior);
  const matcher = file.shape === 'nested' ? form.matcher : '';
  if (path && String(path[1]) === form.event) {
    if (file.shape === 'flat') return { text: setAt(text, path, handler), at };
    const group = objectAt(text, path.slice(0, 3));
    const siblings = Array.isArray(group.hooks) ? group.hooks.length : 1;
    // The matcher belongs to the group: changed, the handler leaves a shared group.
    if (str(group, 'matcher') === matcher || siblings === 1) {
      let out = setAt(text, path, handler);
      out = setAt(out, [...path.slice(0, 3), 'matcher'], matcher ? matcher : undefined);
      return { text: out, at };
    }
  }
  const out = path ? removeHandler(text, file, path) : text;
  const entry: Json = file.shape === 'nested' ? { ...(matcher ? { matcher } : {}), hooks: [handler] } : handler;
  const added = appendAt(out, ['hooks', form.event], entry);
  const newPath = file.shape === 'nested' ? [...added.path, 'hooks', 0] : added.path;
  return { text: added.text, at: pointerOfPath(newPath) };
}

/** `text` without the handler at `path`, and without its group and event
 * when that leaves them with no handler. */
export function removeHandler(text: string, file: HookFile, path: JSONPath): string {
  let out = setAt(text, path, undefined);
  if (file.shape === 'nested') {
    const left = valueAt(out, path.slice(0, 4));
    if (Array.isArray(left) && left.length > 0) return out;
    out = setAt(out, path.slice(0, 3), undefined);
  }
  const event = valueAt(out, path.slice(0, 2));
  return Array.isArray(event) && event.length === 0 ? setAt(out, path.slice(0, 2), undefined) : out;
}
