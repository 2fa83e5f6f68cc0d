import { describe, expect, it } from 'vitest';
import type { NewSessionDefaults } from '../gen/NewSessionDefaults';
import { startsInWorktree, withWorktreeFolder } from './worktree-folders';

const none: NewSessionDefaults = { host: null, agent: null, folder: null, worktreeFolders: [] };

describe('worktree folders', () => {
  it('a folder is in the list on its own host only', () => {
    const d = withWorktreeFolder(none, 'local', 'file:///w', true);
    expect(startsInWorktree(d, 'local', 'file:///w')).toBe(true);
    expect(startsInWorktree(d, 'box', 'file:///w')).toBe(false);
    expect(startsInWorktree(d, 'local', 'file:///w/sub')).toBe(false);
    expect(startsInWorktree(d, 'local', undefined)).toBe(false);
  });
  it('adding twice keeps one entry, and taking it out removes it', () => {
    const twice = withWorktreeFolder(withWorktreeFolder(none, 'local', 'file:///w', true), 'local', 'file:///w', true);
    expect(twice.worktreeFolders).toEqual([{ host: 'local', folder: 'file:///w' }]);
    expect(withWorktreeFolder(twice, 'local', 'file:///w', false).worktreeFolders).toEqual([]);
  });
});
