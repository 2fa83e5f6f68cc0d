// A host's user-level customizations, with no session open (the host
// menu's "Customizations…"): per agent, what it reads under home on that
// host and the MCP servers the host gives every agent
// (`host.customizations`, from `RootState.agents[].customizations`), each
// with Edit and New as in a session's panel. Reads and writes go to the
// host itself (`ahp-root://`), so a remote host's home is edited the same
// way. The list is asked for again every 3 s while open: the host's
// watcher republishes it when a file under home changes.
import { lazy, Suspense } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import type { HostCustomizations as Listing } from '../gen/HostCustomizations';
import { call, errorText } from '../ipc';
import type { EditTarget } from './CustomizationEditor';
import { CustomizationsPanel } from './CustomizationsPanel';
import { Notice } from './Notice';

const CustomizationEditor = lazy(() =>
  import('./CustomizationEditor').then((m) => ({ default: m.CustomizationEditor })),
);

/** The host itself, for reads and writes that belong to no session. */
const ROOT = 'ahp-root://';

export function HostCustomizations({ host, label, onClose }: { host: string; label: string; onClose: () => void }) {
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState('');
  const [agent, setAgent] = useState<string | null>(null);
  const [editing, setEditing] = useState<EditTarget | null>(null);
  useEffect(() => {
    const load = () =>
      call('host.customizations', { host }).then(
        (l) => {
          setListing(l);
          setError('');
        },
        (e) => setError(errorText(e)),
      );
    load();
    const timer = setInterval(load, 3000);
    return () => clearInterval(timer);
  }, [host]);
  const shown = listing?.agents.find((a) => a.agent === agent) ?? listing?.agents[0] ?? null;
  return (
    <section class="host-cust" data-testid="host-customizations" aria-label={`Customizations on ${label}`}>
      <header class="host-cust-head">
        <h1>Customizations on {label}</h1>
        {listing && listing.agents.length > 0 && (
          <label class="small">
            Agent{' '}
            <select
              value={shown?.agent}
              data-testid="host-cust-agent"
              onChange={(e) => setAgent((e.target as HTMLSelectElement).value)}
            >
              {listing.agents.map((a) => (
                <option value={a.agent}>{a.label}</option>
              ))}
            </select>
          </label>
        )}
      </header>
      {error && <Notice error text={error} onClose={() => setError('')} />}
      {listing && listing.agents.length === 0 && <p class="muted">This host offers no agents.</p>}
      {shown && (
        <CustomizationsPanel
          key={shown.agent}
          host={host}
          session={ROOT}
          view={shown.view}
          provider={shown.agent}
          agentLabel={shown.label}
          onClose={onClose}
          onEdit={setEditing}
          hostOnly
        />
      )}
      {editing && (
        <Suspense fallback={null}>
          <CustomizationEditor
            key={editing.uri}
            host={host}
            session={ROOT}
            target={editing}
            workspace={null}
            onClose={() => setEditing(null)}
            onOpen={setEditing}
          />
        </Suspense>
      )}
    </section>
  );
}
