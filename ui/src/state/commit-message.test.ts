import { describe, expect, it } from 'vitest';
import { unfence } from './commit-message';

describe('unfence', () => {
  it('takes the message out of a fence around all of it', () => {
    expect(unfence('```text\nFix the notes\n\nLine 2 was wrong.\n```\n')).toBe('Fix the notes\n\nLine 2 was wrong.');
  });
  it('leaves a message with a fence inside it as it is', () => {
    const m = 'Fix the notes\n\n```\ncode\n```';
    expect(unfence(m)).toBe(m);
  });
});
