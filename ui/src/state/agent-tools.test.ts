import { describe, expect, it } from 'vitest';
import { toolChoices } from './agent-tools';

describe('tool choices', () => {
  it('offers the agent’s built-in tools, then the ones it called, each once', () => {
    const got = toolChoices('claude', ['Bash', 'mcp__github__search']).map((c) => c.value);
    expect(got.slice(0, 3)).toEqual(['Read', 'Write', 'Edit']);
    expect(got.filter((t) => t === 'Bash')).toHaveLength(1);
    expect(got.at(-1)).toBe('mcp__github__search');
    expect(toolChoices('gemini', [])[0].value).toBe('read_file');
    expect(toolChoices('unknown-agent', [])[0].value).toBe('Read');
  });
});
