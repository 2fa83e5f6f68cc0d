import { describe, expect, it } from 'vitest';
import { agentName, answeringOption, draftFrom, type RuleContext, ruleVerdictText, scopeIn, scopeText } from './rules';

const ctx: RuleContext = { host: 'local', session: 'ahp-session:/s1', folder: 'file:///home/me/proj' };

describe('rules', () => {
  it('names the agents whose own rules are listed, and keeps an unknown id', () => {
    expect(['claude', 'codex', 'gemini', 'qwen', 'opencode'].map(agentName)).toEqual([
      'Claude Code',
      'Codex',
      'Gemini CLI',
      'Qwen Code',
      'opencode',
    ]);
  });
  it('drafts a rule from the suggestion, for the folder when there is one', () => {
    expect(draftFrom({ tool: 'shell', pattern: 'npm test' }, 'allow', ctx)).toEqual({
      scope: { kind: 'folder', uri: 'file:///home/me/proj' },
      tool: 'shell',
      pattern: 'npm test',
      decision: 'allow',
    });
    const noFolder = draftFrom(null, 'deny', { ...ctx, folder: null });
    expect(noFolder.scope).toEqual({ kind: 'session', uri: 'ahp-session:/s1' });
    expect(noFolder.pattern).toBe('');
  });

  it('offers only the scopes the session has', () => {
    expect(scopeIn('host', ctx)).toEqual({ kind: 'host' });
    expect(scopeIn('folder', { ...ctx, folder: null })).toBeNull();
    expect(scopeText({ kind: 'folder', uri: 'file:///home/me/proj' })).toBe('This folder (proj)');
    expect(scopeText({ kind: 'folder', uri: 'file:///home/me/proj' }, true)).toBe('Folder /home/me/proj');
  });

  it("answers with the agent's allow option for allow, its reject option for deny", () => {
    const options = [
      { id: 'once', label: 'Allow', kind: 'approve' },
      { id: 'no', label: 'Reject', kind: 'deny' },
    ];
    expect(answeringOption(options, 'allow')?.id).toBe('once');
    expect(answeringOption(options, 'deny')?.id).toBe('no');
    expect(ruleVerdictText('cancelled')).toBe('Denied by rule');
    expect(ruleVerdictText('completed')).toBe('Allowed by rule');
  });
});
