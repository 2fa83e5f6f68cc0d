// The new-session dialog's choices, derived from the app view as it
// arrives (the dialog can open before the host has answered), and the
// folder picker's list (folders only; dot-folders hidden unless asked for,
// after the visible ones). Pure: no DOM, testable in node.
import type { FolderEntry } from '../gen/FolderEntry';
import type { AgentInfo, AppState, HostView } from './app-store';

export interface DialogHost {
  /** The chosen host's id, '' while no host is known. */
  id: string;
  /** The chosen host's view, if known. */
  view: HostView | undefined;
  /** Whether the host has answered (agents and folders can be listed). */
  ready: boolean;
  /** Hosts the user can pick: the connected ones, plus the chosen one. */
  choices: HostView[];
  /** The agents of the chosen host ([] while it is not ready). */
  agents: AgentInfo[];
  /** The agent to start: the picked one while the host lists it, else its first. */
  agent: string;
}

/**
 * The dialog's host and agent from the current app view. `pickedHost` and
 * `pickedAgent` are what the user chose ('' for nothing yet); until then the
 * first connected host (else the first known) and its first agent are used,
 * so the dialog fills in when the host's state arrives.
 */
export function dialogHost(app: AppState, pickedHost: string, pickedAgent: string): DialogHost {
  const view =
    app.hosts.find((h) => h.id === pickedHost) ?? app.hosts.find((h) => h.connected) ?? app.hosts[0] ?? undefined;
  const ready = !!view?.connected;
  const agents = ready ? (view?.agents ?? []) : [];
  const agent = agents.some((a) => a.provider === pickedAgent) ? pickedAgent : (agents[0]?.provider ?? '');
  const choices = app.hosts.filter((h) => h.connected || h.id === view?.id);
  return { id: view?.id ?? '', view, ready, choices, agents, agent };
}

/** What the dialog says about a host that has not answered ('' once it has). */
export function hostWaiting(host: DialogHost): string {
  if (host.ready) return '';
  if (!host.view) return 'Connecting to the host…';
  if (host.view.error) return `Connecting to ${host.view.label}… (last attempt: ${host.view.error})`;
  return `Connecting to ${host.view.label}…`;
}

/** A dot-folder (`.cache`, `.local`): hidden unless asked for, as file choosers do. */
export const isHidden = (name: string) => name.startsWith('.');

/**
 * The folders the picker lists: visible ones by name, then (when
 * `showHidden`) the hidden ones by name; and how many are hidden.
 */
export function pickerFolders(entries: FolderEntry[], showHidden: boolean): { shown: FolderEntry[]; hidden: number } {
  const byName = (a: FolderEntry, b: FolderEntry) =>
    a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });
  const dirs = entries.filter((e) => e.dir);
  const visible = dirs.filter((e) => !isHidden(e.name)).sort(byName);
  const hidden = dirs.filter((e) => isHidden(e.name)).sort(byName);
  return { shown: showHidden ? [...visible, ...hidden] : visible, hidden: hidden.length };
}
