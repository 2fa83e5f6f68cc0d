// Entry: the app stream (hosts, sessions, inbox) and the layout.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { AddHostDialog } from './components/AddHostDialog';
import { AgentsPage } from './components/AgentsPage';
import { ChatPane } from './components/ChatPane';
import { HostCustomizations } from './components/HostCustomizations';
import { Inbox } from './components/Inbox';
import { NewSessionDialog } from './components/NewSessionDialog';
import { Sidebar } from './components/Sidebar';
import { errorText, stream } from './ipc';
import { type AppState, applyAppOp, emptyApp, rowKey } from './state/app-store';
import { connectionText } from './state/hosts';
import './styles.css';

/** A host page in the main pane. */
type HostPage = { kind: 'customizations' | 'agents'; host: string; label: string; firstRun?: boolean };

function App() {
  const [app, setApp] = useState<AppState>(emptyApp);
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [addingHost, setAddingHost] = useState(false);
  const [inboxOpen, setInboxOpen] = useState(false);
  const [showArchived, setShowArchived] = useState(false);
  const [error, setError] = useState('');
  /** A host page filling the main pane: its customizations or its agents. */
  const [hostPage, setHostPage] = useState<HostPage | null>(null);
  const firstRunShown = useRef(false);

  useEffect(() => {
    stream('app.watch', {}, (op) => setApp((s) => applyAppOp(s, op))).catch((e) => setError(errorText(e)));
  }, []);

  // First launch with no agent anywhere: the Agents page of this
  // computer's host, once.
  const local = app.hosts.find((h) => h.remote == null);
  const noAgentAnywhere = app.hosts.every((h) => h.agents.length === 0);
  useEffect(() => {
    if (firstRunShown.current || !local?.connected) return;
    firstRunShown.current = true;
    if (noAgentAnywhere && Object.keys(app.sessions).length === 0 && !hostPage) {
      setHostPage({ kind: 'agents', host: local.id, label: local.label, firstRun: true });
    }
  }, [local?.connected]);

  const row = selected ? app.sessions[selected] : undefined;
  const rowHost = row ? app.hosts.find((h) => h.id === row.host) : undefined;
  const agent = rowHost?.agents.find((a) => a.provider === row?.provider);
  const open = (host: string, uri: string) => {
    setSelected(rowKey(host, uri));
    setInboxOpen(false);
    setHostPage(null);
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
          setHostPage({ kind: 'customizations', host, label });
        }}
        onHostAgents={(host, label) => {
          setInboxOpen(false);
          setHostPage({ kind: 'agents', host, label });
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
        ) : hostPage?.kind === 'agents' ? (
          <AgentsPage
            key={hostPage.host}
            host={hostPage.host}
            label={hostPage.label}
            firstRun={hostPage.firstRun}
            onClose={() => setHostPage(null)}
          />
        ) : hostPage ? (
          <HostCustomizations
            key={hostPage.host}
            host={hostPage.host}
            label={hostPage.label}
            onClose={() => setHostPage(null)}
          />
        ) : row ? (
          <ChatPane key={selected ?? ''} row={row} agent={agent} onClosed={() => setSelected(null)} onOpen={open} />
        ) : (
          <div class="empty">
            <h1>Hangar</h1>
            {noAgentAnywhere && local ? (
              <>
                <p class="muted">No agent is set up yet. Install one to start a session.</p>
                <button
                  type="button"
                  class="primary"
                  data-testid="empty-install-agent"
                  onClick={() => setHostPage({ kind: 'agents', host: local.id, label: local.label })}
                >
                  Install an agent
                </button>
              </>
            ) : (
              <>
                <p class="muted">Pick a session on the left or start a new one.</p>
                <button type="button" class="primary" onClick={() => setCreating(true)}>
                  New session
                </button>
              </>
            )}
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
