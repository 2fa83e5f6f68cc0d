// About Hangar (the app menu): the app's version, and for each host the
// software it runs and the AHP version negotiated with it.
import { useEffect, useState } from 'preact/hooks';
import type { AboutView } from '../gen/AboutView';
import { call, errorText } from '../ipc';

export function AboutDialog({ onClose }: { onClose: () => void }) {
  const [about, setAbout] = useState<AboutView | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    call('app.about', {}).then(setAbout, (e) => setError(errorText(e)));
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal about" role="dialog" aria-label="About Hangar" data-testid="about-dialog">
        <h2>Hangar</h2>
        <p>
          A home for coding agents. Version <b data-testid="about-version">{about?.version ?? '…'}</b>
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <table class="about-hosts">
          <thead>
            <tr>
              <th>Host</th>
              <th>Runs</th>
              <th>AHP</th>
            </tr>
          </thead>
          <tbody>
            {about?.hosts.map((h) => (
              <tr key={h.id} data-testid="about-host" data-host={h.id}>
                <td>{h.label}</td>
                <td data-testid="about-host-software">
                  {h.software ?? (h.connected ? 'not reported' : 'not connected')}
                </td>
                <td data-testid="about-host-protocol">{h.protocolVersion ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div class="modal-actions">
          <button type="button" class="primary" data-testid="about-close" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
