// Sessions grouped by host (each with its connection in words and its
// menu) with live status, unread marker and title; "Add host".
import { type AppState, folderName, groupSessions, rowKey, rowStatusText, statusLabel } from '../state/app-store';
import { countsText } from '../state/changes';
import { AppMenu } from './AppMenu';
import { HostHeader } from './HostHeader';

export function Sidebar(props: {
  app: AppState;
  selected: string | null;
  showArchived: boolean;
  inboxOpen: boolean;
  onSelect: (host: string, uri: string) => void;
  onNew: () => void;
  onAddHost: () => void;
  onInbox: () => void;
  onToggleArchived: () => void;
  /** Open a host's user-level customizations. */
  onHostCustomizations: (host: string, label: string) => void;
  /** Open a host's agents. */
  onHostAgents: (host: string, label: string) => void;
  onSettings: () => void;
  onAbout: () => void;
}) {
  const groups = groupSessions(props.app, props.showArchived);
  return (
    <nav class="sidebar" aria-label="Sessions">
      <div class="sidebar-head">
        <AppMenu onSettings={props.onSettings} onAbout={props.onAbout} />
        <button type="button" class="primary" data-testid="new-session" onClick={props.onNew}>
          New session
        </button>
      </div>
      <button
        type="button"
        class={`inbox-button ${props.inboxOpen ? 'on' : ''}`}
        data-testid="inbox-button"
        onClick={props.onInbox}
      >
        Approvals <span class={`count ${props.app.inbox.length ? 'hot' : ''}`}>{props.app.inbox.length}</span>
      </button>
      <div class="groups">
        {groups.map((g) => (
          <section class="host-group" key={g.host.id} data-testid="host-group" data-host={g.host.id}>
            <HostHeader host={g.host} onCustomizations={props.onHostCustomizations} onAgents={props.onHostAgents} />
            {g.rows.length === 0 && (
              <p class="muted small">{props.showArchived ? 'No archived sessions' : 'No sessions yet'}</p>
            )}
            <ul>
              {g.rows.map((r) => {
                const k = rowKey(r.host, r.uri);
                return (
                  <li key={k}>
                    <button
                      type="button"
                      class={`session-row ${props.selected === k ? 'selected' : ''}`}
                      data-testid="session-row"
                      data-status={r.status}
                      data-uri={r.uri}
                      data-host={r.host}
                      data-unread={r.unread ? 'true' : 'false'}
                      onClick={() => props.onSelect(r.host, r.uri)}
                    >
                      <span class="status-dot" title={statusLabel[r.status]} aria-label={statusLabel[r.status]} />
                      <span class="row-main">
                        <span class={`row-title ${r.unread ? 'unread' : ''}`}>{r.title || 'Untitled session'}</span>
                        <span class="row-sub">
                          <span class="status-word">{rowStatusText(r)}</span> · {folderName(r.folder)} · {r.provider}
                          {countsText(r.changes) && (
                            <span class="row-changes" data-testid="row-changes">
                              {' '}
                              · {countsText(r.changes)}
                            </span>
                          )}
                        </span>
                      </span>
                      {r.unread && <span class="unread-dot" aria-label="unread" />}
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        ))}
      </div>
      <label class="archived-toggle small">
        <input
          type="checkbox"
          data-testid="show-archived"
          checked={props.showArchived}
          onChange={props.onToggleArchived}
        />{' '}
        Show archived
      </label>
      <button type="button" class="add-host-button" data-testid="add-host" onClick={props.onAddHost}>
        Add host…
      </button>
    </nav>
  );
}
