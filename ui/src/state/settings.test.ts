import { describe, expect, it } from 'vitest';
import { folderPath, folderUri } from './settings';

describe('default folder', () => {
  it('is typed as a path and kept as a file URI', () => {
    expect(folderUri('/home/me/my proj')).toBe('file:///home/me/my%20proj');
    expect(folderPath('file:///home/me/my%20proj')).toBe('/home/me/my proj');
    expect(folderUri('  ')).toBe(null);
    expect(folderPath(null)).toBe('');
    expect(folderUri('file:///x')).toBe('file:///x');
  });
});
