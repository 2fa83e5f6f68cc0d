// The app menu (the "Hangar" button at the top of the sidebar): Usage (every
// host), Settings… (also Ctrl+,) and About Hangar.
import { useEffect, useState } from 'preact/hooks';

export function AppMenu({
  onSettings,
  onAbout,
  onUsage,
}: {
  onSettings: () => void;
  onAbout: () => void;
  onUsage: () => void;
}) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  const item = (id: string, label: string, keys: string, act: () => void) => (
    <button
      type="button"
      role="menuitem"
      data-testid={`app-menu-${id}`}
      onClick={() => {
        setOpen(false);
        act();
      }}
    >
      <span>{label}</span>
      {keys && <kbd>{keys}</kbd>}
    </button>
  );
  return (
    <div class="app-menu-wrap">
      <button
        type="button"
        class="brand app-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        data-testid="app-menu"
        onClick={() => setOpen((v) => !v)}
      >
        Hangar <span class="muted">▾</span>
      </button>
      {open && (
        <div class="host-menu app-menu" role="menu" data-testid="app-menu-items">
          {item('usage', 'Usage…', '', onUsage)}
          {item('settings', 'Settings…', 'Ctrl+,', onSettings)}
          {item('about', 'About Hangar', '', onAbout)}
        </div>
      )}
    </div>
  );
}
