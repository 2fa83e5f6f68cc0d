// Composer logic: `@` mention detection, completion insertion, and the
// keyboard shortcuts for confirmations.

import type { ConfirmOptionView } from '../gen/ConfirmOptionView';
import type { ToolCallView } from '../gen/ToolCallView';

/** The `@word` being typed at `caret`, if any. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  // `@file` anywhere; `/command` only as the message's first word.
  const m = /(^|\s)@([^\s@]*)$/.exec(before) ?? /^(\s*)\/([^\s/]*)$/.exec(before);
  if (!m) return null;
  return { start: caret - m[2].length - 1, query: m[2] };
}

/**
 * Insert a completion over the `@word` at the caret; without one, over the
 * item's [rangeStart, rangeEnd) (else at the caret). The word at the caret
 * wins because an item's range was computed for the text of its request,
 * which may be older than what is in the box now.
 */
export function applyCompletion(
  text: string,
  caret: number,
  item: { insertText: string; rangeStart?: number | null; rangeEnd?: number | null },
): { text: string; caret: number } {
  const m = mentionAt(text, caret);
  const start = m ? m.start : (item.rangeStart ?? caret);
  const end = m ? caret : (item.rangeEnd ?? caret);
  const insert = item.insertText.endsWith(' ') ? item.insertText : `${item.insertText} `;
  return { text: text.slice(0, start) + insert + text.slice(end), caret: start + insert.length };
}

/** A confirmation option (`kind`: approve, deny, or a newer protocol's). */
export type OptionView = ConfirmOptionView;

/**
 * Confirmation shortcuts: `1`–`9` pick the Nth option, `y` the first
 * approve option, `n` the first deny option. Enter and Escape are not
 * shortcuts: they belong to whatever has focus (a button, a dialog).
 */
export function optionForKey(key: string, options: OptionView[]): OptionView | null {
  if (/^[1-9]$/.test(key)) return options[Number(key) - 1] ?? null;
  if (key === 'y') return options.find((o) => o.kind === 'approve') ?? null;
  if (key === 'n') return options.find((o) => o.kind === 'deny') ?? null;
  return null;
}

/** The keys that pick each option (shown on its button). */
export function shortcutKeys(options: OptionView[]): string[][] {
  const approve = options.findIndex((o) => o.kind === 'approve');
  const deny = options.findIndex((o) => o.kind === 'deny');
  return options.map((_, i) => [
    ...(i < 9 ? [String(i + 1)] : []),
    ...(i === approve ? ['y'] : []),
    ...(i === deny ? ['n'] : []),
  ]);
}

/** What a key event came from, as far as the shortcuts care. */
export interface KeyOrigin {
  target: { tagName?: string; isContentEditable?: boolean; closest?: (selector: string) => unknown } | null;
  ctrlKey?: boolean;
  altKey?: boolean;
  metaKey?: boolean;
  repeat?: boolean;
}

/**
 * Whether a window-level key press may answer a confirmation: not while a
 * dialog is open, not from a field, a button or anything inside a dialog,
 * not with a modifier held and not an auto-repeat.
 */
export function acceptsShortcut(e: KeyOrigin, dialogOpen: boolean): boolean {
  if (dialogOpen || e.ctrlKey || e.altKey || e.metaKey || e.repeat) return false;
  const t = e.target;
  if (!t) return true;
  if (t.isContentEditable) return false;
  if (['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'A', 'SUMMARY', 'OPTION'].includes((t.tagName ?? '').toUpperCase()))
    return false;
  return !t.closest?.('button, a, [role=dialog], .modal, .modal-backdrop, [contenteditable=true]');
}

/** Options the host sent, or approve/deny when it sent none. */
export function confirmationOptions(tc: Pick<ToolCallView, 'options'>): OptionView[] {
  if (tc.options.length) return tc.options;
  return [
    { id: '', label: 'Approve', kind: 'approve' },
    { id: '', label: 'Deny', kind: 'deny' },
  ];
}

/** Move a queued message one place up (-1) or down (+1). */
export function moveInOrder(ids: string[], id: string, delta: number): string[] {
  const i = ids.indexOf(id);
  const j = i + delta;
  if (i < 0 || j < 0 || j >= ids.length) return ids;
  const out = ids.slice();
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}
