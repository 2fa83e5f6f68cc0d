// Sessions grouped by host (each with its connection in words and its
// menu) with live status, unread marker and title; "Add host". At the top,
// the search box (opens the search palette) and the filter by state and
// host, which says what it hides and clears in one click.
import { type AppState, folderName, groupSessions, rowKey, rowStatusText, statusLabel } from '../state/app-store';
import { countsText } from '../state/changes';
import {
  emptyGroupText,
  filterText,
  isFiltered,
  NO_FILTER,
  type SidebarFilter,
  STATE_FILTERS,
  type StateFilter,
} from '../state/sidebar-filter';
import { AppMenu } from './AppMenu';
import { HostHeader } from './HostHeader';

export function Sidebar(props: {
  app: AppState;
  selected: string | null;
  filter: SidebarFilter;
  onFilter: (f: SidebarFilter) => void;
  /** Open the search palette. */
  onSearch: (text: string) => void;
  inboxOpen: boolean;
  onSelect: (host: string, uri: string) => void;
  onNew: () => void;
  onAddHost: () => void;
  onInbox: () => void;
  /** Open a host's user-level customizations. */
  onHostCustomizations: (host: string, label: string) => void;
  /** Open a host's agents. */
  onHostAgents: (host: string, label: string) => void;
  /** Open a host's approval rules. */
  onHostRules: (host: string, label: string) => void;
  /** Open usage: one host's, or (`null`) every host's. */
  onUsage: (host: string | null, label: string) => void;
  onSettings: () => void;
  onAbout: () => void;
}) {
  const { filter, onFilter } = props;
  const groups = groupSessions(props.app, filter);
  const hostLabel = (id: string) => props.app.hosts.find((h) => h.id === id)?.label;
  const mac = /Mac/.test(navigator.platform);
  return (
    <nav class="sidebar" aria-label="Sessions">
      <div class="sidebar-head">
        <AppMenu
          onSettings={props.onSettings}
          onAbout={props.onAbout}
          onUsage={() => props.onUsage(null, 'all hosts')}
        />
        <button type="button" class="primary" data-testid="new-session" onClick={props.onNew}>
          New session
        </button>
      </div>
      <button
        type="button"
        class="sidebar-search"
        data-testid="sidebar-search"
        aria-label="Search every session"
        onClick={() => props.onSearch('')}
      >
        <span>Search sessions…</span>
        <kbd>{mac ? '⌘K' : 'Ctrl+K'}</kbd>
      </button>
      <div class="sidebar-filter" data-testid="sidebar-filter">
        <select
          aria-label="Show sessions"
          data-testid="filter-state"
          value={filter.state}
          onChange={(e) => onFilter({ ...filter, state: (e.target as HTMLSelectElement).value as StateFilter })}
        >
          {STATE_FILTERS.map((s) => (
            <option key={s.value} value={s.value}>
              {s.label}
            </option>
          ))}
        </select>
        <select
          aria-label="On host"
          data-testid="filter-host"
          value={filter.host ?? ''}
          onChange={(e) => onFilter({ ...filter, host: (e.target as HTMLSelectElement).value || null })}
        >
          <option value="">Every host</option>
          {props.app.hosts.map((h) => (
            <option key={h.id} value={h.id}>
              {h.label}
            </option>
          ))}
        </select>
      </div>
      {isFiltered(filter) && (
        <p class="filter-bar small" data-testid="filter-bar">
          <span>Showing: {filterText(filter, hostLabel)}</span>
          <button type="button" class="link" data-testid="filter-clear" onClick={() => onFilter(NO_FILTER)}>
            Clear
          </button>
        </p>
      )}
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
            <HostHeader
              host={g.host}
              onCustomizations={props.onHostCustomizations}
              onAgents={props.onHostAgents}
              onRules={props.onHostRules}
              onUsage={props.onUsage}
            />
            {g.rows.length === 0 && <p class="muted small">{emptyGroupText(filter)}</p>}
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
          checked={filter.state === 'archived'}
          onChange={() => onFilter({ ...filter, state: filter.state === 'archived' ? 'all' : 'archived' })}
        />{' '}
        Show archived
      </label>
      <button type="button" class="add-host-button" data-testid="add-host" onClick={props.onAddHost}>
        Add host…
      </button>
    </nav>
  );
}
