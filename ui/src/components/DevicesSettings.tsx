// Settings → Open from other devices: serve this app's UI to a paired
// browser (a phone), with every host the app knows. Off by default; on this
// computer only, or on the network (always over TLS, the certificate's
// fingerprint shown, and said to be new when the certificate was made
// again for changed addresses). Pair a device mints a 10-minute, single-use link shown
// as a QR code and as text with Copy; each paired device can be revoked,
// which signs its open pages out at once.
import { useEffect, useState } from 'preact/hooks';
import type { DevicesView } from '../gen/DevicesView';
import type { PairingLink } from '../gen/PairingLink';
import type { Settings } from '../gen/Settings';
import { call, errorText } from '../ipc';

/** How often Settings looks for the device a shown link pairs. */
const PAIRED_POLL_MS = 2000;

export function DevicesSettings({
  settings,
  save,
  onError,
}: {
  settings: Settings;
  /** Keep new settings (the listener follows them). */
  save: (next: Settings) => Promise<void>;
  onError: (message: string) => void;
}) {
  const access = settings.openFromDevices;
  const [view, setView] = useState<DevicesView | null>(null);
  const [link, setLink] = useState<PairingLink | null>(null);
  const [name, setName] = useState('phone');
  const [copied, setCopied] = useState(false);
  const refresh = () => call('devices.get', {}).then(setView, (e) => onError(errorText(e)));
  useEffect(() => {
    refresh();
  }, [access.enabled, access.onNetwork]);
  // While a link waits to be used, look every few seconds for its device;
  // once paired, the link is done (it works once) and goes away.
  const paired = !!link && !!view?.devices.some((d) => d.name === link.device);
  useEffect(() => {
    if (!link || paired) return;
    const timer = setInterval(refresh, PAIRED_POLL_MS);
    return () => clearInterval(timer);
  }, [link, paired]);

  const set = (next: Partial<Settings['openFromDevices']>) => {
    setLink(null);
    save({ ...settings, openFromDevices: { ...access, ...next } });
  };
  const pair = () =>
    call('devices.pair', { name }).then(
      (l) => {
        setLink(l);
        setCopied(false);
      },
      (e) => onError(errorText(e)),
    );
  const revoke = (device: string) =>
    call('devices.revoke', { name: device }).then(setView, (e) => onError(errorText(e)));
  const copy = (text: string) =>
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      (e) => onError(errorText(e)),
    );

  return (
    <div class="devices-settings" data-testid="devices-settings">
      <label>
        <input
          type="checkbox"
          checked={access.enabled}
          data-testid="devices-enabled"
          onChange={(e) => set({ enabled: (e.target as HTMLInputElement).checked })}
        />
        Open this app from other devices (a browser, a phone)
      </label>
      {access.enabled && (
        <div class="settings-choices column" role="radiogroup" aria-label="Where">
          <label>
            <input
              type="radio"
              name="devices-where"
              checked={!access.onNetwork}
              data-testid="devices-loopback"
              onChange={() => set({ onNetwork: false })}
            />
            On this computer only
          </label>
          <label>
            <input
              type="radio"
              name="devices-where"
              checked={access.onNetwork}
              data-testid="devices-network"
              onChange={() => set({ onNetwork: true })}
            />
            On my network (over TLS with a self-signed certificate)
          </label>
        </div>
      )}
      {access.enabled && view?.problem && (
        <p class="error" role="alert" data-testid="devices-problem">
          {view.problem}
        </p>
      )}
      {access.enabled && view?.url && view.fingerprint && view.certificateRenewed && (
        <p class="notice small" data-testid="devices-certificate-renewed">
          The certificate was made again for this computer's addresses ({view.certificateRenewed}): devices that trusted
          the old one will be warned, check that they show the fingerprint below.
        </p>
      )}
      {access.enabled && view?.url && (
        <div class="settings-grid">
          <span>Address</span>
          <code data-testid="devices-url">{view.url}</code>
          {view.fingerprint && (
            <>
              <span>Certificate</span>
              <code class="fingerprint" data-testid="devices-fingerprint">
                SHA-256 {view.fingerprint}
              </code>
            </>
          )}
          <label for="devices-name">Device name</label>
          <span class="settings-path">
            <input
              id="devices-name"
              type="text"
              value={name}
              data-testid="devices-name"
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
            <button type="button" data-testid="devices-pair" disabled={!name.trim()} onClick={pair}>
              Pair a device
            </button>
          </span>
        </div>
      )}
      {access.enabled && link && !paired && (
        <div class="pairing-link" data-testid="pairing-link">
          <img
            class="pairing-qr"
            alt={`QR code of the pairing link for ${link.device}`}
            data-testid="pairing-qr"
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(link.qrSvg)}`}
          />
          <p class="muted small">
            Scan it on {link.device}, or open the link there, before{' '}
            {new Date(link.expiresAt * 1000).toLocaleTimeString()}. It works once.
          </p>
          <span class="settings-path">
            <code data-testid="pairing-url">{link.url}</code>
            <button type="button" data-testid="pairing-copy" onClick={() => copy(link.url)}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </span>
        </div>
      )}
      {view && view.devices.length > 0 && (
        <>
          <h3>Paired devices</h3>
          <ul class="paired-devices" data-testid="paired-devices">
            {view.devices.map((d) => (
              <li key={d.name} data-testid="paired-device" data-name={d.name}>
                <span>{d.name}</span>
                <span class="muted small">paired {new Date(d.created).toLocaleString()}</span>
                <button type="button" data-testid="device-revoke" onClick={() => revoke(d.name)}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
