// New session: pick a host, an agent and a folder (folder picker backed by
// resourceList on that host). The dialog may open before the host has
// answered: it says the host is connecting and fills in as the host's state
// arrives (hosts, agents, then the default folder's listing). It starts
// with Settings' defaults (host, agent, folder) when they are offered.
// "In a new worktree" asks the host to make a git worktree of the folder's
// repository on a new branch for the session (the host refuses, with the
// reason shown here, a folder that is not in a repository); it starts
// checked for the folders Settings lists as starting in a new worktree,
// and the choice made for a folder is remembered there. Below, the
// agent's own earlier sessions in the folder can be continued (PastSessions).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { FolderListing } from '../gen/FolderListing';
import type { NewSessionDefaults } from '../gen/NewSessionDefaults';
import type { SettingsView } from '../gen/SettingsView';
import { call, errorText } from '../ipc';
import type { AppState } from '../state/app-store';
import { dialogHost, hostWaiting } from '../state/new-session';
import { startsInWorktree, withWorktreeFolder } from '../state/worktree-folders';
import { FolderPicker } from './FolderPicker';
import { PastSessions } from './PastSessions';

export function NewSessionDialog({
  app,
  defaults,
  onSettings,
  onClose,
  onCreated,
}: {
  app: AppState;
  /** Settings' defaults for a new session. */
  defaults?: NewSessionDefaults;
  /** The settings changed (a folder's worktree choice remembered). */
  onSettings?: (view: SettingsView) => void;
  onClose: () => void;
  onCreated: (host: string, uri: string) => void;
}) {
  const [pickedHost, setPickedHost] = useState(defaults?.host ?? '');
  const [pickedAgent, setPickedAgent] = useState(defaults?.agent ?? '');
  const target = dialogHost(app, pickedHost, pickedAgent);
  const host = target.id;
  const waiting = hostWaiting(target);
  const [listing, setListing] = useState<FolderListing | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // The person's "In a new worktree" choice, and the folder default it was made against.
  const [picked, setPicked] = useState<{ against: boolean; on: boolean } | null>(null);
  // Only the newest folder.list answer is shown (answers can cross).
  const asked = useRef(0);

  /** List `uri` (the host's default folder without one); `fallback`: if it cannot be listed, list that instead. */
  const open = (uri?: string, fallback?: () => void) => {
    const n = ++asked.current;
    setError('');
    call('folder.list', { host, uri }).then(
      (l) => n === asked.current && setListing(l),
      (e) => n === asked.current && (fallback ? fallback() : setError(errorText(e))),
    );
  };
  // Settings' default folder on its host, else (or if it is gone) the
  // host's default folder, once the host can list it (again after a switch).
  useEffect(() => {
    asked.current++;
    setListing(null);
    const folder = defaults?.folder && (!defaults.host || defaults.host === host) ? defaults.folder : undefined;
    if (host && target.ready) open(folder, folder ? () => open() : undefined);
  }, [host, target.ready]);

  // "In a new worktree" as Settings says for the folder shown, unless the
  // person chose otherwise against that same default. Derived in render, not
  // set by an effect: the box is right in the first frame that shows the folder.
  const inWorktree = startsInWorktree(defaults, host, listing?.uri);
  const worktree = picked && picked.against === inWorktree ? picked.on : inWorktree;
  /** Remember the worktree choice made for `folder` when it is not the folder's default. */
  const remember = async (folder: string, on: boolean) => {
    if (on === inWorktree) return;
    const view = await call('settings.get', {});
    const newSession = withWorktreeFolder(view.settings.newSession, host, folder, on);
    onSettings?.(await call('settings.save', { ...view.settings, newSession }));
  };

  /** Start the session; `agentSession`: continue that one of the agent's own (listed as `title`). */
  const create = async (agentSession?: string, title?: string | null) => {
    if (!listing) return;
    setBusy(true);
    try {
      const r = await call('session.create', {
        host,
        agent: target.agent || null,
        folder: listing.uri,
        worktree: agentSession ? false : worktree,
        agentSession: agentSession ?? null,
        agentSessionTitle: title ?? null,
      });
      if (!agentSession) await remember(listing.uri, worktree).catch(() => {});
      onCreated(host, r.session);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal" role="dialog" aria-label="New session" data-testid="new-session-dialog">
        <h2>New session</h2>
        {waiting && (
          <p class="muted small" role="status" data-testid="host-waiting">
            {waiting}
          </p>
        )}
        <div class="form-row">
          <label>
            Host
            <select
              value={host}
              data-testid="host-select"
              disabled={target.choices.length === 0}
              onChange={(e) => setPickedHost((e.target as HTMLSelectElement).value)}
            >
              {target.choices.length === 0 && <option value="">(connecting…)</option>}
              {target.choices.map((h) => (
                <option value={h.id}>{h.connected ? h.label : `${h.label} (connecting…)`}</option>
              ))}
            </select>
          </label>
          <label>
            Agent
            <select
              value={target.agent}
              data-testid="agent-select"
              disabled={!target.ready}
              onChange={(e) => setPickedAgent((e.target as HTMLSelectElement).value)}
            >
              {!target.ready && <option value="">(waiting for the host)</option>}
              {target.ready && target.agents.length === 0 && <option value="">(no agents on this host)</option>}
              {target.agents.map((a) => (
                <option value={a.provider}>{a.displayName || a.provider}</option>
              ))}
            </select>
          </label>
        </div>
        {target.ready && target.agents.length === 0 && (
          <p class="muted small" data-testid="no-agents-hint">
            This host has no agent yet: install one from its menu (⋯ beside its name), <b>Agents…</b>
          </p>
        )}
        <FolderPicker listing={listing} waiting={!target.ready} onOpen={open} />
        <label class="small new-session-worktree">
          <input
            type="checkbox"
            data-testid="new-session-worktree"
            checked={worktree}
            onChange={(e) => setPicked({ against: inWorktree, on: (e.target as HTMLInputElement).checked })}
          />{' '}
          In a new worktree (a branch of its own for a folder in a git repository)
        </label>
        {listing && target.agent && (
          <PastSessions
            host={host}
            agent={target.agent}
            agentName={target.agents.find((a) => a.provider === target.agent)?.displayName || target.agent}
            folder={listing.uri}
            busy={busy}
            onContinue={(id, title) => create(id, title)}
            onOpenExisting={(session) => onCreated(host, session)}
          />
        )}
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="modal-actions">
          <button type="button" data-testid="new-session-cancel" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            class="primary"
            data-testid="create-session"
            disabled={!listing || busy}
            onClick={() => create()}
          >
            Start session in this folder
          </button>
        </div>
      </div>
    </div>
  );
}
