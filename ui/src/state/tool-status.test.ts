import { describe, expect, it } from 'vitest';
import type { ToolCallStatus } from '../gen/ToolCallStatus';
import { toolStatusWords } from './tool-status';

describe('toolStatusWords', () => {
  it('says every status in words, never the raw token', () => {
    const all: ToolCallStatus[] = [
      'streaming',
      'pending-confirmation',
      'running',
      'auth-required',
      'pending-result-confirmation',
      'completed',
      'cancelled',
      'unknown',
    ];
    for (const s of all) expect(toolStatusWords(s, true)).not.toBe(s.includes('-') ? s : '');
    expect(toolStatusWords('pending-confirmation', true)).toBe('waiting for you');
    expect(toolStatusWords('completed', true)).toBe('done');
    expect(toolStatusWords('completed', false)).toBe('failed');
  });
});
