import { describe, expect, it } from 'vitest';
import { codeFromInput } from './device_token';

describe('codeFromInput', () => {
  it('takes the code from a pasted link or the code alone, nothing else', () => {
    expect(codeFromInput(' https://192.168.1.20:8765/#pair=ABCD23EFGH ')).toBe('ABCD23EFGH');
    expect(codeFromInput('abcd23efgh')).toBe('abcd23efgh');
    expect(codeFromInput('https://192.168.1.20:8765/')).toBeNull();
    expect(codeFromInput('')).toBeNull();
  });
});
