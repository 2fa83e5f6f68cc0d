import { describe, expect, it } from 'vitest';
import { applyCompletion, confirmationOptions, mentionAt, moveInOrder, optionForKey } from './composer';

describe('composer', () => {
  it('finds the @mention at the caret', () => {
    expect(mentionAt('look at @mai', 12)).toEqual({ start: 8, query: 'mai' });
    expect(mentionAt('mail@example.com', 16)).toBeNull();
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
  });

  it('inserts a completion over the mention', () => {
    expect(applyCompletion('look at @mai now', 12, { insertText: '@src/main.rs' })).toEqual({ text: 'look at @src/main.rs  now', caret: 21 });
    expect(applyCompletion('x @a', 4, { insertText: '@b', rangeStart: 2, rangeEnd: 4 })).toEqual({ text: 'x @b ', caret: 5 });
  });

  it('maps confirmation shortcuts to the host options', () => {
    const opts = confirmationOptions({ options: [{ id: 'allow', label: 'Allow', kind: 'approve' }, { id: 'always', label: 'Always', kind: 'approve' }, { id: 'no', label: 'Reject', kind: 'deny' }] });
    expect(optionForKey('y', opts)?.id).toBe('allow');
    expect(optionForKey('2', opts)?.id).toBe('always');
    expect(optionForKey('n', opts)?.id).toBe('no');
    expect(optionForKey('9', opts)).toBeNull();
    expect(optionForKey('x', opts)).toBeNull();
    expect(confirmationOptions({}).map((o) => o.kind)).toEqual(['approve', 'deny']);
  });

  it('reorders queued messages', () => {
    expect(moveInOrder(['a', 'b', 'c'], 'c', -1)).toEqual(['a', 'c', 'b']);
    expect(moveInOrder(['a', 'b'], 'a', -1)).toEqual(['a', 'b']);
  });
});
