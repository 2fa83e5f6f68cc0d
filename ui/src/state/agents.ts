// The Agents page in words: what each well-known agent's row says and
// offers (Install, Update, Remove, a progress bar), and a custom agent's
// form (arguments as shell words, environment as rows) to and from the
// host's shape. No I/O here: `AgentsPage.tsx` renders it.
import type { AgentsView } from '../gen/AgentsView';
import type { CustomAgentView } from '../gen/CustomAgentView';
import type { InstallView } from '../gen/InstallView';
import type { KnownAgentView } from '../gen/KnownAgentView';
import type { Pair } from './mcp-entry';

/** What a well-known agent's row shows and offers. */
export interface AgentRow {
  /** One line: where it is and which version. */
  status: string;
  /** `ready`: sessions can use it; `busy`: installing; `failed`; `missing`. */
  tone: 'ready' | 'busy' | 'failed' | 'missing';
  /** The buttons it offers. */
  actions: Array<'install' | 'update' | 'remove' | 'retry'>;
  /** The version Install / Update put in. */
  target: string;
}

export function agentRow(a: KnownAgentView, view: Pick<AgentsView, 'npm' | 'registered'>): AgentRow {
  const target = a.pinned;
  const registered = view.registered.includes(a.id);
  if (a.install && a.install.phase !== 'failed') {
    return { status: installText(a.install), tone: 'busy', actions: [], target };
  }
  const retry: AgentRow['actions'] = a.install?.phase === 'failed' ? ['retry'] : [];
  const version = a.version ? ` ${a.version}` : '';
  const usable = registered ? '' : ' (not used: another agent has its id)';
  switch (a.location) {
    case 'hangar': {
      const outdated = a.version != null && a.version !== target;
      return {
        status: `Installed by Hangar${version}${outdated ? ` · ${target} is the tested version` : ''}${usable}`,
        tone: a.install ? 'failed' : 'ready',
        actions: [...retry, ...(outdated && view.npm ? (['update'] as const) : []), 'remove'],
        target,
      };
    }
    case 'elsewhere':
      return {
        status: `Found at ${a.program ?? 'an unknown place'}${version}${usable}`,
        tone: a.install ? 'failed' : 'ready',
        actions: retry,
        target,
      };
    default:
      return {
        status: view.npm
          ? 'Not installed'
          : 'Not installed · installing needs npm on this host (Node.js 20 or newer; Debian: apt install nodejs npm)',
        tone: a.install ? 'failed' : 'missing',
        actions: a.install ? retry : view.npm ? ['install'] : [],
        target,
      };
  }
}

/** An install's step in words. */
export function installText(p: InstallView): string {
  switch (p.phase) {
    case 'resolving':
      return `Installing ${p.version}: finding the packages to fetch…`;
    case 'downloading':
      return `Installing ${p.version}: fetched ${p.done} of ${p.total} packages`;
    case 'linking':
      return `Installing ${p.version}: unpacking and linking…`;
    default:
      return `Installing ${p.version} failed`;
  }
}

/**
 * The progress bar's value from 0 to 1: resolving fills the first tenth,
 * fetching up to nine tenths, linking sits just short of full; `null` for
 * a failed install.
 */
export function installFraction(p: InstallView): number | null {
  switch (p.phase) {
    case 'resolving':
      return 0.05;
    case 'downloading':
      return 0.1 + 0.8 * (p.total > 0 ? Math.min(p.done / p.total, 1) : 0);
    case 'linking':
      return 0.95;
    default:
      return null;
  }
}

/** A custom agent as its form edits it. */
export interface CustomForm {
  id: string;
  name: string;
  command: string;
  /** Arguments as a shell would split them. */
  args: string;
  env: Pair[];
}

export const emptyCustomForm: CustomForm = { id: '', name: '', command: '', args: '', env: [] };

export function toForm(a: CustomAgentView): CustomForm {
  return {
    id: a.id,
    name: a.name,
    command: a.command,
    args: a.args.map(quoteWord).join(' '),
    env: Object.entries(a.env).map(([key, value]) => ({ key, value })),
  };
}

/** The form as the host takes it, or what is wrong with it. */
export function fromForm(f: CustomForm): { agent: CustomAgentView } | { problem: string } {
  const id = f.id.trim();
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(id)) return { problem: "Id: use letters, digits, '-', '_' or '.'" };
  if (!f.command.trim()) return { problem: 'Command: say which program to run' };
  const args = splitWords(f.args);
  if (args === null) return { problem: 'Arguments: a quote is not closed' };
  const env: Record<string, string> = {};
  for (const { key, value } of f.env) {
    const name = key.trim();
    if (!name && !value) continue;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return { problem: `Environment: "${name}" is not a variable name` };
    env[name] = value;
  }
  return { agent: { id, name: f.name.trim(), command: f.command.trim(), args, env } };
}

/** Split `text` into words as a POSIX shell would (quotes, backslashes); `null` when a quote is left open. */
export function splitWords(text: string): string[] | null {
  const words: string[] = [];
  let word = '';
  let started = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`'.includes(text[i + 1])) word += text[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      started = true;
    } else if (c === '\\' && i + 1 < text.length) {
      word += text[++i];
      started = true;
    } else if (/\s/.test(c)) {
      if (started) words.push(word);
      word = '';
      started = false;
    } else {
      word += c;
      started = true;
    }
  }
  if (quote) return null;
  if (started) words.push(word);
  return words;
}

/** `word` quoted so that `splitWords` gives it back. */
export function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
