// Entry: the app stream (hosts, sessions, inbox) and the layout.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { AboutDialog } from './components/AboutDialog';
import { AddHostDialog } from './components/AddHostDialog';
import { AgentsPage } from './components/AgentsPage';
import { ChatPane } from './components/ChatPane';
import { HostCustomizations } from './components/HostCustomizations';
import { Inbox } from './components/Inbox';
import { NewSessionDialog } from './components/NewSessionDialog';
import { Notice } from './components/Notice';
import { RulesPage } from './components/RulesPage';
import { SearchPalette } from './components/SearchPalette';
import { SettingsPage } from './components/SettingsPage';
import { Sidebar } from './components/Sidebar';
import { UsagePage } from './components/UsagePage';
import type { SettingsView } from './gen/SettingsView';
import { call, errorText, LINK_LOST, stream } from './ipc';
import { type AppState, applyAppOp, dismissNotice, emptyApp, rowKey } from './state/app-store';
import { useInboxNotifications } from './state/browser-notify';
import { useLink } from './state/connection';
import { connectionText } from './state/hosts';
import { flushOutbox } from './state/outbox-flush';
import { usePhone } from './state/phone';
import { isSearchKey, markedWords, type SearchHit } from './state/search';
import { isSettingsKey } from './state/shortcuts';
import { loadFilter, type SidebarFilter, saveFilter } from './state/sidebar-filter';
import { applyTheme } from './theme-apply';
import { WebGate } from './web/pairing';
import './styles.css';

/** How long a notice not about one item stays (it also has a close button). */
const NOTICE_MS = 10000;

applyTheme('system');

/** A host page in the main pane. */
type HostPage = {
  kind: 'customizations' | 'agents' | 'rules' | 'usage';
  /** The host; for `usage`, empty means every host. */
  host: string;
  label: string;
  firstRun?: boolean;
  /** The rule the Rules page shows first. */
  rule?: string;
  /** The folder whose agents' project rules the Rules page lists too. */
  folder?: string | null;
};

function App() {
  const [app, setApp] = useState<AppState>(emptyApp);
  const [selected, setSelected] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [addingHost, setAddingHost] = useState(false);
  const [inboxOpen, setInboxOpen] = useState(false);
  /** The sidebar's filter, kept across restarts. */
  const [filter, setFilterState] = useState<SidebarFilter>(loadFilter);
  const setFilter = (f: SidebarFilter) => {
    saveFilter(f);
    setFilterState(f);
  };
  /** The search palette, open with this text; null when closed. */
  const [searching, setSearching] = useState<string | null>(null);
  /** The turn a search result opened the chat at, and the words to highlight. */
  const [focus, setFocus] = useState<{ turnId: string; words: string[]; n: number } | null>(null);
  const [error, setError] = useState('');
  /** A host page filling the main pane: its customizations or its agents. */
  const [hostPage, setHostPage] = useState<HostPage | null>(null);
  const firstRunShown = useRef(false);
  /** The settings (and where the data and log are), once the core answers. */
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [aboutOpen, setAboutOpen] = useState(false);
  const openRules = (host: string, label: string, rule?: string, folder?: string | null) => {
    setInboxOpen(false);
    setSettingsOpen(false);
    setHostPage({ kind: 'rules', host, label, rule, folder });
  };
  const openSettings = () => {
    setInboxOpen(false);
    setHostPage(null);
    setSettingsOpen(true);
  };

  const link = useLink();
  const phone = usePhone();
  /** The link epoch whose app snapshot has arrived: until then the page shows the last state, marked. */
  const [synced, setSynced] = useState(0);
  /** A failure that is not the link's (the reconnecting note says that one). */
  const fail = (e: unknown) => errorText(e) !== LINK_LOST && setError(errorText(e));
  // On load and each time the link comes back: watch the app again (its
  // first op, a snapshot, replaces what is shown) and send the outbox.
  useEffect(() => {
    const epoch = link.epoch;
    stream('app.watch', {}, (op) => {
      if (op.op === 'snapshot') setSynced(epoch);
      setApp((s) => applyAppOp(s, op));
    }).catch(fail);
    call('settings.get', {}).then(setSettings, fail);
    flushOutbox();
  }, [link.epoch]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isSettingsKey(e)) {
        e.preventDefault();
        openSettings();
      } else if (isSearchKey(e)) {
        e.preventDefault();
        setSearching((q) => q ?? '');
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => applyTheme(settings?.settings.theme ?? 'system'), [settings?.settings.theme]);

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
    setFocus(null);
    setSelected(rowKey(host, uri));
    setInboxOpen(false);
    setHostPage(null);
    setSettingsOpen(false);
  };
  const openHit = (hit: SearchHit) => {
    setSearching(null);
    open(hit.host, hit.session);
    if (hit.turnId)
      setFocus((f) => ({ turnId: hit.turnId ?? '', words: markedWords(hit.snippet), n: (f?.n ?? 0) + 1 }));
  };
  useInboxNotifications(app.inbox, open);
  /** On a phone one pane shows at a time: the list, or what was opened from it (with a back control). */
  const paneOpen = inboxOpen || settingsOpen || !!hostPage || !!row;
  const back = () => {
    setSelected(null);
    setInboxOpen(false);
    setSettingsOpen(false);
    setHostPage(null);
  };
  const reconnecting = (!link.up || synced < link.epoch) && (
    <p class="notice small reconnecting" role="status" data-testid="reconnecting">
      {link.up ? 'Reconnected; bringing the view up to date…' : 'Reconnecting…'} This is the last state received;
      messages sent now wait in this browser and go once the connection is back.
    </p>
  );
  return (
    <div class={`layout ${phone ? `phone ${paneOpen ? 'pane-open' : 'list-open'}` : ''}`}>
      {phone && !paneOpen && reconnecting}
      {phone && !paneOpen && app.inbox.length > 0 && <Inbox app={app} onOpen={open} />}
      <Sidebar
        app={app}
        selected={selected}
        filter={filter}
        onFilter={setFilter}
        onSearch={(text) => setSearching(text)}
        inboxOpen={inboxOpen}
        onSelect={open}
        onNew={() => setCreating(true)}
        onAddHost={() => setAddingHost(true)}
        onInbox={() => {
          setSettingsOpen(false);
          setInboxOpen((v) => !v);
        }}
        onSettings={openSettings}
        onAbout={() => setAboutOpen(true)}
        onHostCustomizations={(host, label) => {
          setInboxOpen(false);
          setSettingsOpen(false);
          setHostPage({ kind: 'customizations', host, label });
        }}
        onHostAgents={(host, label) => {
          setInboxOpen(false);
          setSettingsOpen(false);
          setHostPage({ kind: 'agents', host, label });
        }}
        onHostRules={(host, label) => openRules(host, label)}
        onUsage={(host, label) => {
          setInboxOpen(false);
          setSettingsOpen(false);
          setHostPage({ kind: 'usage', host: host ?? '', label });
        }}
      />
      <main>
        {phone && paneOpen && (
          <button type="button" class="phone-back" data-testid="phone-back" onClick={back}>
            ‹ Sessions
          </button>
        )}
        {(!phone || paneOpen) && reconnecting}
        {error && <Notice error text={error} onClose={() => setError('')} testid="app-error" />}
        {app.notices.map((n) => (
          <Notice
            key={n.id}
            text={n.text}
            timeoutMs={NOTICE_MS}
            onClose={() => setApp((s) => dismissNotice(s, n.id))}
            testid="app-notice"
          />
        ))}
        {row && rowHost && !rowHost.connected && !inboxOpen && (
          <p class="notice small" data-testid="host-offline">
            {rowHost.label}: {connectionText(rowHost.connection, Date.now()).word.toLowerCase()}. This is the last state
            received; it is brought up to date when the host is back.
          </p>
        )}
        {inboxOpen ? (
          <Inbox app={app} onOpen={open} />
        ) : settingsOpen && settings ? (
          <SettingsPage
            app={app}
            view={settings}
            onSaved={setSettings}
            onClose={() => setSettingsOpen(false)}
            onRules={(host, label) => openRules(host, label)}
          />
        ) : hostPage?.kind === 'rules' ? (
          <RulesPage
            key={hostPage.host}
            host={hostPage.host}
            label={hostPage.label}
            connected={app.hosts.find((h) => h.id === hostPage.host)?.connected ?? false}
            rule={hostPage.rule}
            folder={hostPage.folder}
            onClose={() => setHostPage(null)}
          />
        ) : hostPage?.kind === 'usage' ? (
          <UsagePage
            key={hostPage.host}
            host={hostPage.host || null}
            label={hostPage.label}
            onOpen={open}
            onClose={() => setHostPage(null)}
          />
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
          <ChatPane
            key={selected ?? ''}
            row={row}
            agent={agent}
            focus={focus}
            onClosed={() => setSelected(null)}
            onOpen={open}
            onOpenRule={(host, rule) =>
              openRules(host, app.hosts.find((h) => h.id === host)?.label ?? host, rule, row.folder)
            }
          />
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
      {searching != null && <SearchPalette initial={searching} onOpen={openHit} onClose={() => setSearching(null)} />}
      {aboutOpen && <AboutDialog onClose={() => setAboutOpen(false)} />}
      {addingHost && <AddHostDialog onClose={() => setAddingHost(false)} onAdded={() => setAddingHost(false)} />}
      {creating && (
        <NewSessionDialog
          app={app}
          defaults={settings?.settings.newSession}
          onSettings={setSettings}
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
const inApp = '__TAURI__' in globalThis;
if (root)
  render(
    <WebGate inApp={inApp}>
      <App />
    </WebGate>,
    root,
  );
