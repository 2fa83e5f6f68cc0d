import { describe, expect, it } from 'vitest';
import type { KnownAgentView } from '../gen/KnownAgentView';
import { agentRow, fromForm, installFraction, quoteWord, splitWords, toForm } from './agents';

const qwen: KnownAgentView = {
  id: 'qwen',
  name: 'Qwen Code',
  package: '@qwen-code/qwen-code',
  pinned: '0.15.10',
  location: 'missing',
  program: null,
  version: null,
  install: null,
};
const view = { npm: true, registered: [] as string[] };

describe('a well-known agent row', () => {
  it('offers Install when missing, and says npm is needed when it is not there', () => {
    expect(agentRow(qwen, view).actions).toEqual(['install']);
    const noNpm = agentRow(qwen, { npm: false, registered: [] });
    expect(noNpm.actions).toEqual([]);
    expect(noNpm.status).toContain('needs npm');
  });

  it('offers Update only for an older copy Hangar installed, and Remove for it', () => {
    const mine = {
      ...qwen,
      location: 'hangar' as const,
      version: '0.14.0',
      program: '/d/agents/node_modules/.bin/qwen',
    };
    const row = agentRow(mine, { npm: true, registered: ['qwen'] });
    expect(row.actions).toEqual(['update', 'remove']);
    expect(row.tone).toBe('ready');
    expect(agentRow({ ...mine, version: '0.15.10' }, { npm: true, registered: ['qwen'] }).actions).toEqual(['remove']);
    const elsewhere = agentRow({ ...mine, location: 'elsewhere', program: '/usr/bin/qwen' }, view);
    expect(elsewhere.actions).toEqual([]);
    expect(elsewhere.status).toContain('/usr/bin/qwen');
  });

  it('shows an install in steps, with a bar that only grows, and a failure with Try again', () => {
    const at = (phase: 'resolving' | 'downloading' | 'linking', done = 0, total = 0) => ({
      ...qwen,
      install: { version: '0.15.10', phase, done, total, line: '', error: null },
    });
    const steps = [
      at('resolving'),
      at('downloading', 0, 5),
      at('downloading', 3, 5),
      at('downloading', 5, 5),
      at('linking'),
    ];
    const fractions = steps.map((s) => installFraction(s.install) ?? -1);
    expect([...fractions].sort((a, b) => a - b)).toEqual(fractions);
    expect(fractions.every((f) => f > 0 && f < 1)).toBe(true);
    expect(agentRow(steps[2], view).status).toBe('Installing 0.15.10: fetched 3 of 5 packages');
    expect(agentRow(steps[2], view).actions).toEqual([]);
    const failed = {
      ...qwen,
      install: { version: '0.15.10', phase: 'failed' as const, done: 0, total: 0, line: '', error: 'npm could not' },
    };
    expect(agentRow(failed, view)).toMatchObject({ tone: 'failed', actions: ['retry'] });
  });
});

describe('a custom agent form', () => {
  it('splits arguments as a shell would and quotes them back', () => {
    expect(splitWords(`--acp "a b" 'c "d"' e\\ f`)).toEqual(['--acp', 'a b', 'c "d"', 'e f']);
    expect(splitWords(`"open`)).toBeNull();
    expect(splitWords('  ')).toEqual([]);
    const words = ['--model', "it's", 'a b', ''];
    expect(splitWords(words.map(quoteWord).join(' '))).toEqual(words);
  });

  it('turns the form into the host shape and back, refusing what the host would', () => {
    const agent = { id: 'mine', name: 'Mine', command: '/opt/mine', args: ['--acp', 'two words'], env: { LOG: '1' } };
    const form = toForm(agent);
    expect(fromForm(form)).toEqual({ agent });
    expect(fromForm({ ...form, id: 'a b' })).toHaveProperty('problem');
    expect(fromForm({ ...form, command: ' ' })).toHaveProperty('problem');
    expect(fromForm({ ...form, args: '"x' })).toHaveProperty('problem');
    expect(fromForm({ ...form, env: [{ key: '1X', value: 'v' }] })).toHaveProperty('problem');
    expect(fromForm({ ...form, env: [{ key: '', value: '' }] })).toEqual({ agent: { ...agent, env: {} } });
  });
});
