import { describe, expect, it } from 'vitest';
import type { Settings } from '../gen/Settings';
import { lastMergeMode, modeArg, withMergeMode } from './merge-modes';

const settings = { mergeModes: [] } as unknown as Settings;

describe('merge modes per folder', () => {
  it('is merge until a folder has a choice, then that folder’s choice only', () => {
    expect(lastMergeMode(settings, 'local', '/r')).toBe('merge');
    const kept = withMergeMode(settings, 'local', '/r', 'squash');
    expect(lastMergeMode(kept, 'local', '/r')).toBe('squash');
    expect(lastMergeMode(kept, 'local', '/other')).toBe('merge');
    expect(lastMergeMode(kept, 'remote', '/r')).toBe('merge');
    const again = withMergeMode(kept, 'local', '/r', 'rebase');
    expect(again.mergeModes).toEqual([{ host: 'local', folder: '/r', mode: 'rebase' }]);
  });

  it('ignores a mode it does not know and sends none for a merge commit', () => {
    const odd = { mergeModes: [{ host: 'local', folder: '/r', mode: 'octopus' }] } as unknown as Settings;
    expect(lastMergeMode(odd, 'local', '/r')).toBe('merge');
    expect([modeArg('merge'), modeArg('squash'), modeArg('rebase')]).toEqual([null, 'squash', 'rebase']);
  });
});
