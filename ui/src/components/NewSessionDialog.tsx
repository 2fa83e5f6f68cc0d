// New session: pick a host, an agent and a folder (folder picker backed by
// resourceList on that host).
import { useEffect, useState } from 'preact/hooks';
import { call } from '../ipc';
import type { AppState } from '../state/app-store';

interface Listing {
  uri: string;
  parent: string | null;
  entries: { name: string; dir: boolean; uri: string }[];
}

export function NewSessionDialog({
  app,
  onClose,
  onCreated,
}: {
  app: AppState;
  onClose: () => void;
  onCreated: (host: string, uri: string) => void;
}) {
  const hosts = app.hosts.filter((h) => h.connected);
  const [host, setHost] = useState(hosts[0]?.id ?? '');
  const agents = app.hosts.find((h) => h.id === host)?.agents ?? [];
  const [agent, setAgent] = useState(agents[0]?.provider ?? '');
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const open = (uri?: string) => {
    setError('');
    call('folder.list', { host, uri }).then(setListing, (e) => setError(String(e.message ?? e)));
  };
  useEffect(() => {
    if (host) open();
  }, [host]);
  useEffect(() => {
    if (!agents.some((a) => a.provider === agent)) setAgent(agents[0]?.provider ?? '');
  }, [host, agents.length]);

  const create = async () => {
    if (!listing) return;
    setBusy(true);
    try {
      const r = await call('session.create', { host, agent: agent || null, folder: listing.uri });
      onCreated(host, r.session);
    } catch (e: any) {
      setError(String(e.message ?? e));
    } finally {
      setBusy(false);
    }
  };

  const path = listing ? decodeURIComponent(listing.uri.replace(/^file:\/\//, '')) : '';
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal" role="dialog" aria-label="New session" data-testid="new-session-dialog">
        <h2>New session</h2>
        <div class="form-row">
          <label>
            Host
            <select value={host} onChange={(e) => setHost((e.target as HTMLSelectElement).value)}>
              {hosts.map((h) => (
                <option value={h.id}>{h.label}</option>
              ))}
            </select>
          </label>
          <label>
            Agent
            <select
              value={agent}
              data-testid="agent-select"
              onChange={(e) => setAgent((e.target as HTMLSelectElement).value)}
            >
              {agents.length === 0 && <option value="">(no agents on this host)</option>}
              {agents.map((a) => (
                <option value={a.provider}>{a.displayName || a.provider}</option>
              ))}
            </select>
          </label>
        </div>
        <div class="picker" data-testid="folder-picker">
          <div class="picker-path">
            <button
              disabled={!listing?.parent}
              onClick={() => listing?.parent && open(listing.parent)}
              title="Up one folder"
              data-testid="folder-up"
            >
              ↑
            </button>
            <code data-testid="folder-path">{path}</code>
          </div>
          <ul class="picker-list">
            {listing?.entries
              .filter((e) => e.dir)
              .map((e) => (
                <li key={e.uri}>
                  <button class="folder" data-testid="folder-entry" onClick={() => open(e.uri)}>
                    📁 {e.name}
                  </button>
                </li>
              ))}
            {listing && !listing.entries.some((e) => e.dir) && <li class="muted small">No folders here</li>}
          </ul>
        </div>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <div class="modal-actions">
          <button onClick={onClose}>Cancel</button>
          <button class="primary" data-testid="create-session" disabled={!listing || busy} onClick={create}>
            Start session in this folder
          </button>
        </div>
      </div>
    </div>
  );
}
