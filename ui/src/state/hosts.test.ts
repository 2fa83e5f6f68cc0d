import { describe, expect, it } from 'vitest';
import { addHostProblem, backText, connectionText, nextAttempt, plainRemote } from './hosts';

const now = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('host connection in words', () => {
  it('says every state, with a reason and what to do, never only a spinner', () => {
    const states = [
      connectionText({ state: 'connecting' }, now),
      connectionText({ state: 'reconnecting', attempt: 2, nextAttemptAt: now + 12_000, reason: 'refused' }, now),
      connectionText({ state: 'unreachable', attempt: 1, nextAttemptAt: null, reason: 'cannot reach' }, now),
      connectionText({ state: 'tokenRefused', status: 403, reason: 'refused the token' }, now),
      connectionText({ state: 'certificateChanged', expected: 'AA:BB', found: 'CC:DD' }, now),
      connectionText({ state: 'protocolUnsupported', reason: 'speaks 2.0.0' }, now),
      connectionText({ state: 'failed', reason: 'no OS keyring' }, now),
    ];
    for (const t of states) {
      expect(t.word, t.state).not.toBe('');
      expect(t.detail, t.state).not.toBe('');
    }
    expect(connectionText({ state: 'connected' }, now)).toMatchObject({ word: 'Connected', retry: false, tone: 'up' });
  });

  it('counts down to the next attempt and offers Retry now while trying', () => {
    const t = connectionText({ state: 'reconnecting', attempt: 2, nextAttemptAt: now + 12_000, reason: 'x' }, now);
    expect(t.next).toMatch(/^next attempt in 12 s \(/);
    expect(t.retry).toBe(true);
    expect(t.detail).toContain('Last attempt: x');
    expect(nextAttempt(now - 5, now)).toMatch(/^next attempt now/);
    const underWay = connectionText({ state: 'unreachable', attempt: 1, nextAttemptAt: null, reason: 'r' }, now);
    expect(underWay.next).toBe('attempt under way');
  });

  it('shows both fingerprints when the certificate changed', () => {
    const t = connectionText({ state: 'certificateChanged', expected: 'AA:BB', found: 'CC:DD' }, now);
    expect(t.detail).toContain('AA:BB');
    expect(t.detail).toContain('CC:DD');
    expect(t.tone).toBe('down');
  });
});

describe('add host checks', () => {
  it('asks for a name, a ws(s) URL without a token, and a token', () => {
    expect(addHostProblem('', 'wss://h:1/', 't')).toMatch(/name/);
    expect(addHostProblem('box', 'http://h/', 't')).toMatch(/ws:\/\//);
    expect(addHostProblem('box', 'ws://h:1/?tkn=abc', 't')).toMatch(/token out of the URL/);
    expect(addHostProblem('box', 'wss://h:1/', ' ')).toMatch(/token/);
    expect(addHostProblem('box', 'wss://h:1/', 't')).toBe('');
  });

  it('warns only for plain ws:// to another machine', () => {
    expect(plainRemote('ws://box.lan:8765/')).toBe(true);
    expect(plainRemote('ws://127.0.0.1:8765/')).toBe(false);
    expect(plainRemote('ws://localhost:1/')).toBe(false);
    expect(plainRemote('ws://[::1]:1/')).toBe(false);
    expect(plainRemote('wss://box.lan:8765/')).toBe(false);
  });
});

describe('a host return report', () => {
  it('says when, how many resumed, and who needs the person and why', () => {
    const t = backText({
      at: '2026-11-24T10:42:00Z',
      resumed: [{ uri: 's1', title: 'A', status: 'idle' }],
      needYou: [
        { uri: 's2', title: 'Fix the parser', status: 'error' },
        { uri: 's3', title: '', status: 'needs-input' },
      ],
    });
    expect(t.summary).toMatch(/^Back at .+ · 1 session resumed$/);
    expect(t.needYou).toEqual([
      { uri: 's2', title: 'Fix the parser', why: 'its last turn failed' },
      { uri: 's3', title: 'Untitled session', why: 'waits for you' },
    ]);
  });
});
