// One entry of a JSON settings file (an MCP server, a hook, a plugin's
// manifest), read and written in place with `jsonc-parser`: a change
// rewrites only that entry, so the file's other settings, its comments
// (VS Code's and OpenCode's files allow them) and its indentation stay as
// they were. Entries are addressed by the host's `hangar.at` (a JSON
// pointer, RFC 6901).
import { applyEdits, type JSONPath, modify, type ParseError, parse, printParseErrorCode } from 'jsonc-parser';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A JSON pointer's segments (`/hooks/PreToolUse/0` → hooks, PreToolUse, 0). */
export function pathOfPointer(pointer: string): JSONPath {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9][0-9]*)$/.test(s) ? Number(s) : s));
}

/** A path as a JSON pointer. */
export function pointerOfPath(path: JSONPath): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** Why `text` is not JSON (comments and trailing commas allowed), or null. */
export function jsonProblem(text: string): string | null {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: true });
  if (errors.length === 0) return null;
  const e = errors[0];
  const line = text.slice(0, e.offset).split('\n').length;
  return `${printParseErrorCode(e.error)} on line ${line}`;
}

/** The whole document (an empty file is an empty object). */
export function documentOf(text: string): Json {
  return text.trim() ? (parse(text, [], { allowTrailingComma: true }) as Json) : {};
}

/** The value at `path`, or undefined. */
export function valueAt(text: string, path: JSONPath): Json | undefined {
  let at: Json | undefined = documentOf(text);
  for (const seg of path) {
    if (at == null || typeof at !== 'object') return undefined;
    at = Array.isArray(at) ? at[Number(seg)] : (at as JsonObject)[String(seg)];
  }
  return at;
}

/** `text` with the value at `path` set (`undefined`: removed). */
export function setAt(text: string, path: JSONPath, value: Json | undefined): string {
  const base = text.trim() ? text : '{}\n';
  const tabs = /^\t/m.test(base);
  const size = /^( +)\S/m.exec(base)?.[1].length ?? 2;
  const edits = modify(base, path, value, {
    formattingOptions: { insertSpaces: !tabs, tabSize: tabs ? 1 : size, eol: '\n' },
  });
  return applyEdits(base, edits);
}

/** `text` with `value` appended to the array at `path` (made when missing);
 * the new element's path. */
export function appendAt(text: string, path: JSONPath, value: Json): { text: string; path: JSONPath } {
  const list = valueAt(text, path);
  const index = Array.isArray(list) ? list.length : 0;
  if (!Array.isArray(list)) return { text: setAt(text, path, [value]), path: [...path, 0] };
  return { text: setAt(text, [...path, index], value), path: [...path, index] };
}

/** The object at `path` (an empty one when it is missing or not an object). */
export function objectAt(text: string, path: JSONPath): JsonObject {
  const v = valueAt(text, path);
  return v != null && typeof v === 'object' && !Array.isArray(v) ? v : {};
}

/** A string field of `o`, or ''. */
export function str(o: JsonObject, key: string): string {
  const v = o[key];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}
