// The keyboard shortcuts, as Settings lists them. Each is handled where it
// applies (main.tsx, Composer, ChatPane, ChangesPanel, the editors).

export interface Shortcut {
  keys: string;
  what: string;
  where: string;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: 'Ctrl+,', what: 'Open Settings', where: 'Anywhere' },
  { keys: 'Ctrl+K', what: 'Search every session on every host', where: 'Anywhere' },
  { keys: '↑ / ↓, Enter', what: 'Move through results, open one at its turn', where: 'Search' },
  { keys: 'Escape', what: 'Close a dialog, panel or menu', where: 'Anywhere' },
  { keys: 'Enter', what: 'Send the message (queued while a turn runs)', where: 'Composer' },
  { keys: 'Shift+Enter', what: 'New line', where: 'Composer' },
  { keys: '@', what: 'Mention a file', where: 'Composer' },
  { keys: '1 – 9', what: 'Pick a confirmation’s option', where: 'Chat, a tool call waiting' },
  { keys: 'y / n', what: 'Approve / deny a confirmation', where: 'Chat, a tool call waiting' },
  { keys: 'j / k', what: 'Next / previous file', where: 'Changes' },
  { keys: 'n / p', what: 'Next / previous change', where: 'Changes' },
  { keys: 'a / u', what: 'Keep / undo the change', where: 'Changes' },
  { keys: 'Ctrl+S', what: 'Save the file', where: 'Customization editor' },
];

/** Whether a key event is Ctrl+, (Cmd+, on a Mac), the Settings shortcut. */
export const isSettingsKey = (e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }) =>
  e.key === ',' && (e.ctrlKey || e.metaKey) && !e.altKey;
