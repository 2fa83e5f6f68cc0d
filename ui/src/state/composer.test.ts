import { describe, expect, it } from 'vitest';
import {
  acceptsShortcut,
  applyCompletion,
  confirmationOptions,
  mentionAt,
  moveInOrder,
  optionForKey,
  shortcutKeys,
} from './composer';

describe('composer', () => {
  it('finds the @mention at the caret', () => {
    expect(mentionAt('look at @mai', 12)).toEqual({ start: 8, query: 'mai' });
    expect(mentionAt('mail@example.com', 16)).toBeNull();
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
  });

  it('finds a /command only as the first word', () => {
    expect(mentionAt('/rev', 4)).toEqual({ start: 0, query: 'rev' });
    expect(mentionAt('  /', 3)).toEqual({ start: 2, query: '' });
    expect(mentionAt('see /rev', 8)).toBeNull();
    expect(mentionAt('a/b', 3)).toBeNull();
    expect(applyCompletion('/rev', 4, { insertText: '/review ' })).toEqual({ text: '/review ', caret: 8 });
  });

  it('inserts a completion over the mention', () => {
    expect(applyCompletion('look at @mai now', 12, { insertText: '@src/main.rs' })).toEqual({
      text: 'look at @src/main.rs  now',
      caret: 21,
    });
    expect(applyCompletion('x @a', 4, { insertText: '@b', rangeStart: 2, rangeEnd: 4 })).toEqual({
      text: 'x @b ',
      caret: 5,
    });
    // An item whose range was computed for an older text (`Read @n`) replaces
    // the whole word typed since, not only its first letters.
    expect(applyCompletion('Read @not', 9, { insertText: '@notes.md', rangeStart: 5, rangeEnd: 7 })).toEqual({
      text: 'Read @notes.md ',
      caret: 15,
    });
    // No word at the caret: the item's range.
    expect(applyCompletion('see x', 5, { insertText: '@a.md', rangeStart: 4, rangeEnd: 5 })).toEqual({
      text: 'see @a.md ',
      caret: 10,
    });
  });

  it('maps confirmation shortcuts to the host options', () => {
    const opts = confirmationOptions({
      options: [
        { id: 'allow', label: 'Allow', kind: 'approve' },
        { id: 'always', label: 'Always', kind: 'approve' },
        { id: 'no', label: 'Reject', kind: 'deny' },
      ],
    });
    expect(optionForKey('y', opts)?.id).toBe('allow');
    expect(optionForKey('2', opts)?.id).toBe('always');
    expect(optionForKey('n', opts)?.id).toBe('no');
    expect(optionForKey('9', opts)).toBeNull();
    expect(optionForKey('x', opts)).toBeNull();
    // Enter and Escape belong to the focused control or dialog, never to a confirmation.
    expect(optionForKey('Enter', opts)).toBeNull();
    expect(optionForKey('Escape', opts)).toBeNull();
    expect(shortcutKeys(opts)).toEqual([['1', 'y'], ['2'], ['3', 'n']]);
    expect(confirmationOptions({ options: [] }).map((o) => o.kind)).toEqual(['approve', 'deny']);
  });

  it('takes shortcuts only from the page, never from fields, buttons or dialogs', () => {
    const el = (tagName: string, inside: string[] = []) => ({
      tagName,
      closest: (sel: string) => sel.split(',').some((s) => inside.includes(s.trim())) || null,
    });
    expect(acceptsShortcut({ target: el('BODY') }, false)).toBe(true);
    expect(acceptsShortcut({ target: el('DIV') }, false)).toBe(true);
    expect(acceptsShortcut({ target: null }, false)).toBe(true);
    expect(acceptsShortcut({ target: el('BODY') }, true)).toBe(false);
    for (const tag of ['INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'A'])
      expect(acceptsShortcut({ target: el(tag) }, false)).toBe(false);
    expect(acceptsShortcut({ target: el('KBD', ['button']) }, false)).toBe(false);
    expect(acceptsShortcut({ target: el('DIV', ['[role=dialog]']) }, false)).toBe(false);
    expect(acceptsShortcut({ target: { tagName: 'DIV', isContentEditable: true } }, false)).toBe(false);
    expect(acceptsShortcut({ target: el('BODY'), ctrlKey: true }, false)).toBe(false);
    expect(acceptsShortcut({ target: el('BODY'), repeat: true }, false)).toBe(false);
  });

  it('reorders queued messages', () => {
    expect(moveInOrder(['a', 'b', 'c'], 'c', -1)).toEqual(['a', 'c', 'b']);
    expect(moveInOrder(['a', 'b'], 'a', -1)).toEqual(['a', 'b']);
  });
});
