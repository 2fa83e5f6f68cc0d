// A host's header in the sidebar: its name, its connection in words (what
// happened, what to do, the next attempt counting down), "Retry now", and
// the host menu: agents, customizations, rename, reconnect, remove (saved remote hosts); after the
// host came back from a lost connection, what resumed and what needs the
// person, until dismissed.
import { useEffect, useState } from 'preact/hooks';
import { call, errorText } from '../ipc';
import type { HostView } from '../state/app-store';
import { backText, connectionText } from '../state/hosts';
import { ConfirmDialog } from './ConfirmDialog';
import { MoreIcon } from './icons';

/** `Date.now()`, re-read every second while `ticking`. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [ticking]);
  return now;
}

export function HostHeader({
  host,
  onCustomizations,
  onAgents,
  onRules,
  onUsage,
}: {
  host: HostView;
  /** Open the host's user-level customizations. */
  onCustomizations?: (host: string, label: string) => void;
  /** Open the host's agents (install, update, custom agents). */
  onAgents?: (host: string, label: string) => void;
  /** Open the host's approval rules. */
  onRules?: (host: string, label: string) => void;
  /** Open the host's usage. */
  onUsage?: (host: string, label: string) => void;
}) {
  const c = host.connection;
  const ticking = (c.state === 'reconnecting' || c.state === 'unreachable') && c.nextAttemptAt != null;
  const text = connectionText(c, useNow(ticking));
  const [menu, setMenu] = useState(false);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [removing, setRemoving] = useState(false);
  const [error, setError] = useState('');
  const run = (p: Promise<unknown>) => {
    setError('');
    p.catch((e) => setError(errorText(e)));
  };
  const reconnect = () => run(call('host.reconnect', { host: host.id }));
  /** A host-menu entry: closes the menu, then `act`. */
  const item = (id: string, label: string, act: () => void) => (
    <button
      type="button"
      role="menuitem"
      data-testid={`host-menu-${id}`}
      onClick={() => {
        setMenu(false);
        act();
      }}
    >
      {label}
    </button>
  );
  const rename = () => {
    const name = renaming?.trim();
    setRenaming(null);
    if (name && name !== host.label) run(call('host.rename', { host: host.id, name }));
  };

  return (
    <div class={`host-head tone-${text.tone}`} data-testid="host-header" data-host={host.id} data-state={text.state}>
      <div class="host-title">
        <span class={`conn ${text.tone}`} aria-hidden="true" />
        {renaming !== null ? (
          <input
            type="text"
            class="host-rename"
            data-testid="host-rename-input"
            value={renaming}
            ref={(el) => el?.focus()}
            onInput={(e) => setRenaming((e.target as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') rename();
              if (e.key === 'Escape') setRenaming(null);
            }}
            onBlur={rename}
          />
        ) : (
          <h2 title={host.remote?.url ?? 'The host inside this app'}>{host.label}</h2>
        )}
        <span class="host-word" data-testid="host-state">
          {text.word}
        </span>
        <button
          type="button"
          class="icon-button host-menu-button"
          aria-label={`${host.label}: host menu`}
          aria-expanded={menu}
          data-testid="host-menu"
          onClick={() => setMenu((v) => !v)}
        >
          <MoreIcon />
        </button>
      </div>
      {menu && (
        <div class="host-menu" role="menu" data-testid="host-menu-items">
          {host.connected && onAgents && item('agents', 'Agents…', () => onAgents(host.id, host.label))}
          {host.connected &&
            onCustomizations &&
            item('customizations', 'Customizations…', () => onCustomizations(host.id, host.label))}
          {onRules && item('rules', 'Rules…', () => onRules(host.id, host.label))}
          {onUsage && item('usage', 'Usage…', () => onUsage(host.id, host.label))}
          {item('reconnect', 'Reconnect', reconnect)}
          {host.remote && item('rename', 'Rename…', () => setRenaming(host.label))}
          {host.remote && item('remove', 'Remove…', () => setRemoving(true))}
        </div>
      )}
      {(text.detail || text.next) && text.state !== 'connected' && (
        <div class="host-detail small" data-testid="host-detail" role="status">
          {text.detail && <p>{text.detail}</p>}
          {(text.next || text.retry) && (
            <p class="host-next">
              {text.next && <span data-testid="host-next">{text.next}</span>}
              {text.retry && (
                <button type="button" class="link-button" data-testid="host-retry" onClick={reconnect}>
                  Retry now
                </button>
              )}
            </p>
          )}
        </div>
      )}
      {host.back && text.state === 'connected' && (
        <div class="host-back small" data-testid="host-back" data-host-back-for={host.label} role="status">
          <p>
            <span data-testid="host-back-summary">{backText(host.back).summary}</span>
            <button
              type="button"
              class="link-button"
              data-testid="host-back-dismiss"
              onClick={() => run(call('host.dismissReport', { host: host.id }))}
            >
              Dismiss
            </button>
          </p>
          {backText(host.back).needYou.length > 0 && (
            <ul data-testid="host-back-need-you">
              {backText(host.back).needYou.map((s) => (
                <li key={s.uri}>
                  Needs you: <strong>{s.title}</strong> — {s.why}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
      {removing && (
        <ConfirmDialog
          title={`Remove ${host.label}?`}
          message={
            'The app forgets this host and deletes its token from the keyring. Its sessions stay on the host; ' +
            'add it again to see them.'
          }
          confirmLabel="Remove host"
          testid="remove-host-dialog"
          onCancel={() => setRemoving(false)}
          onConfirm={() => {
            setRemoving(false);
            run(call('host.remove', { host: host.id }));
          }}
        />
      )}
    </div>
  );
}
