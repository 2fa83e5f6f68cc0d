// The Customizations panel's logic: the session's customizations (a view
// built in Rust from the host's AHP tree, kept current by the chat stream's
// `customizations` op) grouped by kind, what each item's badges and
// decisions say, the custom agents the composer offers, and the arguments
// of `customizations.toggle`. Pure: no DOM, tested in node.

import type { CustomizationContainer } from '../gen/CustomizationContainer';
import type { CustomizationItem } from '../gen/CustomizationItem';
import type { CustomizationKind } from '../gen/CustomizationKind';
import type { CustomizationsToggleArgs } from '../gen/CustomizationsToggleArgs';
import type { CustomizationsView } from '../gen/CustomizationsView';
import type { ToggleScope } from '../gen/ToggleScope';

export type { CustomizationContainer, CustomizationItem, CustomizationKind, CustomizationsView, ToggleScope };

/** The panel's groups, in order, with what to tell a user who has none. */
export const GROUPS: { kind: CustomizationKind; label: string; empty: string }[] = [
  {
    kind: 'rule',
    label: 'Rules',
    empty: 'No rules yet. Add AGENTS.md or CLAUDE.md to the folder, or .github/instructions/<name>.instructions.md',
  },
  { kind: 'agent', label: 'Agents', empty: 'No agents yet. Add .claude/agents/<name>.md' },
  { kind: 'skill', label: 'Skills', empty: 'No skills yet. Add .claude/skills/<name>/SKILL.md' },
  {
    kind: 'prompt',
    label: 'Prompts',
    empty: 'No prompts yet. Add .github/prompts/<name>.prompt.md or .claude/commands/<name>.md',
  },
  { kind: 'hook', label: 'Hooks', empty: 'No hooks yet. Add them under "hooks" in .claude/settings.json' },
  { kind: 'mcpServer', label: 'MCP servers', empty: 'No MCP servers yet. Add one under "mcpServers" in .mcp.json' },
  {
    kind: 'plugin',
    label: 'Plugins',
    empty: 'No plugins yet. Add a plugin folder under .agents/plugins/<name> with .plugin/plugin.json',
  },
];

/** Where items come from: a folder, a file of MCP servers, or a plugin. */
export interface Source {
  /** The folder or plugin (its own switch); `null` for a file of MCP servers. */
  container: CustomizationContainer | null;
  /** What the source is called in its group's list. */
  label: string;
  uri: string;
  items: CustomizationItem[];
}

export interface Group {
  kind: CustomizationKind;
  label: string;
  empty: string;
  sources: Source[];
  /** How many items the group lists. */
  count: number;
}

/** A `file:` URI as a path, relative to `workspace` when inside it. */
export function pathOf(uri: string, workspace?: string | null): string {
  const decode = (u: string) => {
    const p = u.replace(/^file:\/\//, '');
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  };
  const path = decode(uri);
  if (workspace) {
    const root = decode(workspace).replace(/\/$/, '');
    if (path === root) return '.';
    if (path.startsWith(`${root}/`)) return path.slice(root.length + 1);
  }
  return path;
}

/** The panel's groups: every kind, in order, even those with nothing (their `empty` text shows). */
export function groupCustomizations(view: CustomizationsView | null, keepEmptyFolders = false): Group[] {
  const containers = view?.containers ?? [];
  const ws = view?.workspace;
  return GROUPS.map(({ kind, label, empty }) => {
    const sources: Source[] = [];
    for (const c of containers) {
      if (kind === 'plugin' && c.item.kind === 'plugin') {
        sources.push({ container: c, label: c.item.name, uri: c.item.uri, items: c.children });
      } else if (c.item.kind === 'directory' && c.contents === kind) {
        // The host names a folder as the user knows it: `.claude/agents`, `~/.claude/agents`, the folder's own name.
        sources.push({
          container: c,
          label: c.item.name || pathOf(c.item.uri, ws),
          uri: c.item.uri,
          items: c.children,
        });
      } else if (kind === 'mcpServer' && c.item.kind === 'mcpServer') {
        // Top-level servers: one source per file they are declared in.
        const found = sources.find((s) => s.container === null && s.uri === c.item.uri);
        if (found) found.items.push(c.item);
        else sources.push({ container: null, label: pathOf(c.item.uri, ws), uri: c.item.uri, items: [c.item] });
      }
    }
    // A folder that does not exist yet holds nothing: it is listed only when it has items or a
    // problem. A plugin is a folder that exists: listed even with no components yet.
    const shown = sources.filter(
      (s) =>
        s.items.length > 0 ||
        s.container?.item.kind === 'plugin' ||
        // A host's own view lists each writable folder, to make the first entry in it.
        (keepEmptyFolders && s.container?.item.kind === 'directory' && s.container.writable) ||
        (s.container?.load && s.container.load !== 'loaded'),
    );
    const count = shown.reduce((n, s) => n + s.items.length, 0);
    return { kind, label, empty, sources: shown, count };
  });
}

/** A custom agent the composer offers. */
export interface AgentChoice {
  uri: string;
  name: string;
  description: string | null;
}

/** Enabled, unshadowed agents of enabled folders and plugins, by name. */
export function agentChoices(view: CustomizationsView | null): AgentChoice[] {
  const out: AgentChoice[] = [];
  for (const c of view?.containers ?? []) {
    if (!c.item.enabled) continue;
    for (const a of c.children) {
      if (a.kind === 'agent' && a.enabled && !a.shadowedBy)
        out.push({ uri: a.uri, name: a.name, description: a.description });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The agent a message went to, by name (its file name when no longer listed). */
export function agentName(view: CustomizationsView | null, uri: string): string {
  for (const c of view?.containers ?? []) for (const a of c.children) if (a.uri === uri) return a.name;
  return (uri.split('/').pop() ?? uri).replace(/(\.agent)?\.(md|toml)$/, '');
}

export const SCOPES: { scope: ToggleScope; label: string }[] = [
  { scope: 'session', label: 'This session' },
  { scope: 'workspace', label: 'This folder' },
  { scope: 'global', label: 'Everywhere' },
];

const scopeWords: Record<ToggleScope, string> = {
  session: 'for this session',
  workspace: 'for this folder',
  global: 'everywhere',
};

/** The scope a switch writes to at first: the one that decides, else this session. */
export const defaultScope = (item: CustomizationItem): ToggleScope => item.decisions.decidedBy ?? 'session';

/** The decisions in words, most specific first: "Off for this folder · On everywhere". */
export function decisionsText(item: CustomizationItem): string {
  const d = item.decisions;
  const parts = (['session', 'workspace', 'global'] as const)
    .filter((s) => d[s] != null)
    .map((s) => `${d[s] ? 'On' : 'Off'} ${scopeWords[s]}`);
  return parts.length ? parts.join(' · ') : 'On by default';
}

/**
 * The more specific scope whose decision wins over one made at `scope`
 * (a folder decision does nothing while this session has its own), if any.
 */
export function overriddenBy(item: CustomizationItem, scope: ToggleScope): ToggleScope | null {
  const order: ToggleScope[] = ['session', 'workspace', 'global'];
  return order.slice(0, order.indexOf(scope)).find((s) => item.decisions[s] != null) ?? null;
}

/** "This session's" etc., for sentences about a scope's decision. */
export const scopeOwner: Record<ToggleScope, string> = {
  session: "This session's",
  workspace: "This folder's",
  global: 'The host-wide',
};

/** The decision a scope holds (`null`: none). */
export const decisionAt = (item: CustomizationItem, scope: ToggleScope): boolean | null => item.decisions[scope];

/** Whether an item is in effect: its own switch and its folder's or plugin's. */
export const isActive = (item: CustomizationItem, container: CustomizationContainer | null): boolean =>
  item.enabled && (container?.item.enabled ?? true);

/** Badges under an item, as text (the UI renders them as text only). */
export interface Badge {
  key: 'readBy' | 'unused' | 'notPassed' | 'restart' | 'shadowed' | 'containerOff' | 'mcp';
  text: string;
  /** Longer explanation (the host's note), shown as a tooltip and read out. */
  title?: string;
  tone: 'info' | 'warn' | 'error';
}

/**
 * The item's badges for a session run by `provider` (its display name
 * `agentLabel`): the agent reads the file itself (with the host's note), or
 * does not use it at all; an MCP server not given to it (and why); a
 * restart is pending; another customization wins its name; its folder or
 * plugin is off; its MCP server's state.
 */
export function badges(
  item: CustomizationItem,
  container: CustomizationContainer | null,
  provider: string,
  agentLabel = provider,
): Badge[] {
  const out: Badge[] = [];
  if (item.readBy.includes(provider) || item.appliedBy === 'agent')
    out.push({ key: 'readBy', text: `read by ${agentLabel} itself`, title: item.note ?? undefined, tone: 'info' });
  else if (item.appliedBy === 'none')
    out.push({ key: 'unused', text: `not used by ${agentLabel}`, title: item.note ?? undefined, tone: 'info' });
  if (item.notPassed)
    out.push({ key: 'notPassed', text: `not given to ${agentLabel}: ${item.notPassed}`, tone: 'warn' });
  if (item.restartPending)
    out.push({
      key: 'restart',
      text: 'restart pending',
      title: 'Takes effect when the agent next starts',
      tone: 'warn',
    });
  if (item.shadowedBy)
    out.push({
      key: 'shadowed',
      text: `shadowed by ${item.shadowedBy.name}`,
      title: item.shadowedBy.uri ? pathOf(item.shadowedBy.uri) : undefined,
      tone: 'warn',
    });
  if (container && container.item.kind !== item.kind && !container.item.enabled && item.enabled)
    out.push({ key: 'containerOff', text: `off: ${container.item.name} is off`, tone: 'warn' });
  if (item.mcpStatus === 'error')
    out.push({ key: 'mcp', text: `failed: ${item.mcpMessage ?? 'no reason given'}`, tone: 'error' });
  else if (item.mcpStatus === 'ready' || item.mcpStatus === 'starting')
    out.push({ key: 'mcp', text: item.mcpStatus === 'ready' ? 'running' : 'starting', tone: 'info' });
  else if (item.mcpStatus === 'authRequired') out.push({ key: 'mcp', text: 'needs sign-in', tone: 'warn' });
  return out;
}

/** A container's load problem in words, if any. */
export function loadProblem(c: CustomizationContainer | null): string | null {
  if (!c?.load || c.load === 'loaded') return null;
  if (c.load === 'loading') return 'Loading…';
  const what = c.load === 'error' ? 'Could not be read' : 'Partly read';
  return c.loadMessage ? `${what}: ${c.loadMessage}` : what;
}

/** `customizations.toggle`'s arguments (`enabled: null` clears the scope's decision). */
export const toggleArgs = (
  host: string,
  session: string,
  id: string,
  scope: ToggleScope,
  enabled: boolean | null,
): CustomizationsToggleArgs => ({ host, session, id, scope, enabled });
