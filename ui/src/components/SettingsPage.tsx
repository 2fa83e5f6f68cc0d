// Settings (the app menu, or Ctrl+,): the theme, which notifications are
// shown, what New session starts with, where the data and the log are
// (each with Open), and the keyboard shortcuts. A change is saved at once
// (settings.save writes settings.json), as VS Code's and Zed's settings are.
import { useEffect, useState } from 'preact/hooks';
import type { NotifySettings } from '../gen/NotifySettings';
import type { Place } from '../gen/Place';
import type { Settings } from '../gen/Settings';
import type { SettingsView } from '../gen/SettingsView';
import { call, errorText } from '../ipc';
import type { AppState } from '../state/app-store';
import { folderPath, folderUri } from '../state/settings';
import { SHORTCUTS } from '../state/shortcuts';
import type { Theme } from '../state/theme';
import { deviceToken } from '../web/device_token';
import { DevicesSettings } from './DevicesSettings';
import { Notice } from './Notice';
import { WorktreeFolders } from './WorktreeFolders';

const THEMES: [Theme, string][] = [
  ['system', 'System'],
  ['light', 'Light'],
  ['dark', 'Dark'],
];

const NOTIFY: [keyof NotifySettings, string][] = [
  ['approvals', 'A tool call waits for approval'],
  ['questions', 'The agent asks a question'],
  ['finishedTurns', 'A turn finished'],
  ['failures', 'A turn failed'],
];

export function SettingsPage({
  app,
  view,
  onSaved,
  onClose,
  onRules,
}: {
  app: AppState;
  view: SettingsView;
  onSaved: (v: SettingsView) => void;
  onClose: () => void;
  /** Open a host's approval rules. */
  onRules?: (host: string, label: string) => void;
}) {
  const [error, setError] = useState('');
  const s = view.settings;
  const [folder, setFolder] = useState(folderPath(s.newSession.folder));
  useEffect(() => setFolder(folderPath(s.newSession.folder)), [s.newSession.folder]);
  useEffect(() => {
    // Escape closes the page, unless it is closing a dialog or menu on top of it.
    const onKey = (e: KeyboardEvent) =>
      e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('.modal-backdrop, [role=menu]') && onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);

  const save = (next: Settings) =>
    call('settings.save', next).then(
      (v) => {
        onSaved(v);
        setError('');
      },
      (e) => setError(errorText(e)),
    );
  const open = (place: Place) => call('settings.open', { place }).catch((e) => setError(errorText(e)));
  const defaults = s.newSession;
  const hostId = defaults.host ?? '';
  const host = app.hosts.find((h) => h.id === hostId);
  const setDefaults = (d: Partial<Settings['newSession']>) => save({ ...s, newSession: { ...defaults, ...d } });

  return (
    <section class="settings-page" data-testid="settings-page" aria-label="Settings">
      <header class="agents-head">
        <h1>Settings</h1>
        <button type="button" class="link-button" data-testid="settings-close" onClick={onClose}>
          Close
        </button>
      </header>
      {view.problem && (
        <p class="error" role="alert" data-testid="settings-problem">
          {view.problem}
        </p>
      )}
      {error && <Notice error text={error} onClose={() => setError('')} />}

      <h2>Appearance</h2>
      <div class="settings-grid">
        <span id="settings-theme-label">Theme</span>
        <div
          class="settings-choices"
          role="radiogroup"
          aria-labelledby="settings-theme-label"
          data-testid="settings-theme"
        >
          {THEMES.map(([value, label]) => (
            <label key={value}>
              <input
                type="radio"
                name="theme"
                value={value}
                checked={s.theme === value}
                data-testid={`theme-${value}`}
                onChange={() => save({ ...s, theme: value })}
              />
              {label}
            </label>
          ))}
        </div>
      </div>

      <h2>Notifications</h2>
      <p class="muted small">Shown only while the Hangar window is not focused.</p>
      <div class="settings-choices column">
        {NOTIFY.map(([key, label]) => (
          <label key={key}>
            <input
              type="checkbox"
              checked={s.notify[key]}
              data-testid={`notify-${key}`}
              onChange={(e) => save({ ...s, notify: { ...s.notify, [key]: (e.target as HTMLInputElement).checked } })}
            />
            {label}
          </label>
        ))}
      </div>

      <h2>New session</h2>
      <p class="muted small">What the New session dialog starts with; you can still change it there.</p>
      <div class="settings-grid">
        <label for="settings-host">Host</label>
        <select
          id="settings-host"
          value={hostId}
          data-testid="settings-default-host"
          onChange={(e) => setDefaults({ host: (e.target as HTMLSelectElement).value || null, agent: null })}
        >
          <option value="">The first connected host</option>
          {app.hosts.map((h) => (
            <option key={h.id} value={h.id}>
              {h.label}
            </option>
          ))}
          {hostId && !host && <option value={hostId}>{hostId} (not connected)</option>}
        </select>
        <label for="settings-agent">Agent</label>
        <select
          id="settings-agent"
          value={defaults.agent ?? ''}
          data-testid="settings-default-agent"
          onChange={(e) => setDefaults({ agent: (e.target as HTMLSelectElement).value || null })}
        >
          <option value="">The host’s first agent</option>
          {(host ?? app.hosts.find((h) => h.connected))?.agents.map((a) => (
            <option key={a.provider} value={a.provider}>
              {a.displayName || a.provider}
            </option>
          ))}
        </select>
        <label for="settings-folder">Folder</label>
        <input
          id="settings-folder"
          type="text"
          placeholder="The host’s home folder"
          value={folder}
          data-testid="settings-default-folder"
          onInput={(e) => setFolder((e.target as HTMLInputElement).value)}
          onBlur={() => folderUri(folder) !== defaults.folder && setDefaults({ folder: folderUri(folder) })}
          onKeyDown={(e) => e.key === 'Enter' && (e.target as HTMLInputElement).blur()}
        />
      </div>
      <WorktreeFolders
        defaults={defaults}
        host={hostId || app.hosts.find((h) => h.connected)?.id || ''}
        onChange={(newSession) => save({ ...s, newSession })}
      />

      {onRules && (
        <>
          <h2>Approval rules</h2>
          <p class="muted small">
            Each host answers confirmations by its own rules, for every agent (made with <em>Always allow…</em> in a
            chat).
          </p>
          <div class="settings-rules">
            {app.hosts.map((h) => (
              <button type="button" key={h.id} data-testid="settings-rules" onClick={() => onRules(h.id, h.label)}>
                Rules of {h.label}…
              </button>
            ))}
          </div>
        </>
      )}

      {/* A paired browser does not pair others: only the app itself does. */}
      {deviceToken() === null && (
        <>
          <h2>Open from other devices</h2>
          <DevicesSettings settings={s} save={save} onError={setError} />
        </>
      )}

      <h2>Files</h2>
      <div class="settings-grid">
        <span>Data</span>
        <span class="settings-path">
          <code data-testid="settings-data-dir">{view.dataDir}</code>
          <button type="button" data-testid="open-data-dir" onClick={() => open('dataDir')}>
            Open
          </button>
        </span>
        <span>Log</span>
        <span class="settings-path">
          <code data-testid="settings-log-file">{view.logFile}</code>
          <button type="button" data-testid="open-log-file" onClick={() => open('logFile')}>
            Open
          </button>
        </span>
      </div>

      <h2>Keyboard shortcuts</h2>
      <table class="shortcuts" data-testid="settings-shortcuts">
        <tbody>
          {SHORTCUTS.map((k) => (
            <tr key={k.keys}>
              <td>
                <kbd>{k.keys}</kbd>
              </td>
              <td>{k.what}</td>
              <td class="muted">{k.where}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
