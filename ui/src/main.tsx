// Entry: the app stream (hosts, sessions, inbox) and the layout.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AddHostDialog } from './components/AddHostDialog';
import { ChatPane } from './components/ChatPane';
import { HostCustomizations } from './components/HostCustomizations';
import { Inbox } from './components/Inbox';
import { NewSessionDialog } from './components/NewSessionDialog';
import { Sidebar } from './components/Sidebar';
import { errorText, stream } from './ipc';
import { type AppState, applyAppOp, emptyApp, rowKey } from './state/app-store';
import { connectionText } from './state/hosts';
import './styles.css';

function App() {
  const [app, setApp] = useState<AppState>(emptyApp);
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [addingHost, setAddingHost] = useState(false);
  const [inboxOpen, setInboxOpen] = useState(false);
  const [showArchived, setShowArchived] = useState(false);
  const [error, setError] = useState('');
  /** A host whose user-level customizations fill the main pane. */
  const [hostCust, setHostCust] = useState<{ host: string; label: string } | null>(null);

  useEffect(() => {
    stream('app.watch', {}, (op) => setApp((s) => applyAppOp(s, op))).catch((e) => setError(errorText(e)));
  }, []);

  const row = selected ? app.sessions[selected] : undefined;
  const rowHost = row ? app.hosts.find((h) => h.id === row.host) : undefined;
  const agent = rowHost?.agents.find((a) => a.provider === row?.provider);
  const open = (host: string, uri: string) => {
    setSelected(rowKey(host, uri));
    setInboxOpen(false);
    setHostCust(null);
  };
  return (
    <div class="layout">
      <Sidebar
        app={app}
        selected={selected}
        showArchived={showArchived}
        inboxOpen={inboxOpen}
        onSelect={open}
        onNew={() => setCreating(true)}
        onAddHost={() => setAddingHost(true)}
        onInbox={() => setInboxOpen((v) => !v)}
        onToggleArchived={() => setShowArchived((v) => !v)}
        onHostCustomizations={(host, label) => {
          setInboxOpen(false);
          setHostCust({ host, label });
        }}
      />
      <main>
        {error && (
          <p class="error banner" role="alert">
            {error}
          </p>
        )}
        {app.notices.length > 0 && <p class="notice small">{app.notices[app.notices.length - 1]}</p>}
        {row && rowHost && !rowHost.connected && !inboxOpen && (
          <p class="notice small" data-testid="host-offline">
            {rowHost.label}: {connectionText(rowHost.connection, Date.now()).word.toLowerCase()}. This is the last state
            received; it is brought up to date when the host is back.
          </p>
        )}
        {inboxOpen ? (
          <Inbox app={app} onOpen={open} />
        ) : hostCust ? (
          <HostCustomizations
            key={hostCust.host}
            host={hostCust.host}
            label={hostCust.label}
            onClose={() => setHostCust(null)}
          />
        ) : row ? (
          <ChatPane key={selected ?? ''} row={row} agent={agent} onClosed={() => setSelected(null)} onOpen={open} />
        ) : (
          <div class="empty">
            <h1>Hangar</h1>
            <p class="muted">Pick a session on the left or start a new one.</p>
            <button type="button" class="primary" onClick={() => setCreating(true)}>
              New session
            </button>
          </div>
        )}
      </main>
      {addingHost && <AddHostDialog onClose={() => setAddingHost(false)} onAdded={() => setAddingHost(false)} />}
      {creating && (
        <NewSessionDialog
          app={app}
          onClose={() => setCreating(false)}
          onCreated={(h, u) => {
            setCreating(false);
            open(h, u);
          }}
        />
      )}
    </div>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
