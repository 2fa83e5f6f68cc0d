import { describe, expect, it } from 'vitest';
import {
  allTurns,
  applyChatOp,
  chatStatus,
  emptyChat,
  isStarting,
  plain,
  retryPartIndex,
  startFailed,
  toolInputText,
  usageText,
  visibleTurns,
} from './chat-store';

const turn = (id: string, extra: any = {}) => ({
  id,
  active: false,
  message: { text: id },
  parts: [],
  state: 'complete',
  ...extra,
});
const meta = { resource: 'c', title: '', status: 1, queued: [] };

describe('chat store', () => {
  it('streams parts into the active turn without touching finished turns', () => {
    let s = applyChatOp(emptyChat(), { op: 'snapshot', meta, turns: [turn('t1')], active: null });
    const finished = s.turns;
    s = applyChatOp(s, { op: 'batch', ops: [{ op: 'active', turn: { ...turn('t2'), active: true, state: null } }] });
    s = applyChatOp(s, { op: 'part', turnId: 't2', index: 0, part: { kind: 'markdown', id: 'p', html: '<p>He</p>' } });
    s = applyChatOp(s, {
      op: 'part',
      turnId: 't2',
      index: 0,
      part: { kind: 'markdown', id: 'p', html: '<p>Hello</p>' },
    });
    expect(s.turns).toBe(finished);
    expect(s.active?.parts[0].html).toBe('<p>Hello</p>');
    s = applyChatOp(s, { op: 'part', turnId: 'other', index: 0, part: {} });
    expect(s.active?.parts).toHaveLength(1);
    s = applyChatOp(s, {
      op: 'batch',
      ops: [
        { op: 'turnDone', turn: turn('t2', { parts: [{ kind: 'markdown', html: 'x' }] }) },
        { op: 'active', turn: null },
      ],
    });
    expect(s.active).toBeNull();
    expect(s.turns.map((t) => t.id)).toEqual(['t1', 't2']);
  });

  it('follows the session start: creating with held messages, then ready or failed', () => {
    let s = applyChatOp(emptyChat(), {
      op: 'snapshot',
      meta,
      turns: [],
      active: null,
      start: { lifecycle: 'creating', provider: 'fake', held: [] },
    });
    expect(isStarting(s)).toBe(true);
    s = applyChatOp(s, {
      op: 'batch',
      ops: [{ op: 'start', start: { lifecycle: 'creating', provider: 'fake', held: [{ id: 'h', text: 'hi' }] } }],
    });
    expect(s.start?.held.map((m) => m.text)).toEqual(['hi']);
    s = applyChatOp(s, { op: 'start', start: { lifecycle: 'ready', provider: 'fake', held: [] } });
    expect(isStarting(s)).toBe(false);
    expect(startFailed(s)).toBe(false);
    s = applyChatOp(s, { op: 'start', start: { lifecycle: 'failed', provider: 'fake', error: 'no key', held: [] } });
    expect(startFailed(s)).toBe(true);
    expect(isStarting(applyChatOp(emptyChat(), { op: 'snapshot', meta, turns: [], active: null }))).toBe(false);
  });

  it('prepends older turns and windows the transcript', () => {
    let s = applyChatOp(emptyChat(), {
      op: 'snapshot',
      meta,
      turns: [turn('t3')],
      active: turn('t4', { active: true }),
    });
    s = applyChatOp(s, { op: 'older', turns: [turn('t1'), turn('t2')] });
    expect(allTurns(s).map((t) => t.id)).toEqual(['t1', 't2', 't3', 't4']);
    const { hidden, shown } = visibleTurns(allTurns(s), 2);
    expect(hidden).toBe(2);
    expect(shown.map((t) => t.id)).toEqual(['t3', 't4']);
  });

  it('turnDone for a turn already listed replaces it', () => {
    let s = applyChatOp(emptyChat(), { op: 'snapshot', meta, turns: [turn('t1')], active: null });
    s = applyChatOp(s, { op: 'turnDone', turn: turn('t1', { state: 'error' }) });
    expect(s.turns).toHaveLength(1);
    expect(s.turns[0].state).toBe('error');
  });

  it('formats tool input, results and usage', () => {
    expect(toolInputText({ input: '{"command":"ls -la"}' })).toContain('"command": "ls -la"');
    expect(toolInputText({ input: 'rm -rf build' })).toBe('rm -rf build');
    expect(toolInputText({ inputUri: 'ahp-content:/x' })).toBe('(input at ahp-content:/x)');
    expect(usageText({ inputTokens: 10, outputTokens: 2, model: 'm' })).toBe('10 in · 2 out · m');
    expect(plain({ markdown: '**x**' })).toBe('**x**');
  });

  it('offers Retry only on the latest turn, on its last error part, when resumable', () => {
    const err = (resumable: boolean) => ({ kind: 'error', error: { message: 'x' }, resumable });
    const t = turn('t', {
      parts: [{ kind: 'markdown', html: 'a' }, err(true), { kind: 'markdown', html: 'b' }, err(true)],
      state: 'error',
    });
    expect(retryPartIndex(t, true)).toBe(3);
    expect(retryPartIndex(t, false)).toBe(-1);
    expect(retryPartIndex({ ...t, parts: [err(true), err(false)] }, true)).toBe(-1);
    expect(retryPartIndex({ ...t, parts: [err(true), { kind: 'markdown', html: 'c' }] }, true)).toBe(0);
    expect(retryPartIndex({ ...t, parts: [err(false)] }, true)).toBe(-1);
    expect(retryPartIndex({ ...t, active: true }, true)).toBe(-1);
    expect(retryPartIndex(turn('ok'), true)).toBe(-1);
  });

  it('says Starting / Failed to start in the header while the agent is not ready', () => {
    expect(chatStatus('idle', { lifecycle: 'creating', held: [] })).toEqual({ key: 'working', label: 'Starting' });
    expect(chatStatus('idle', { lifecycle: 'failed', held: [] })).toEqual({ key: 'error', label: 'Failed to start' });
    expect(chatStatus('needs-input', { lifecycle: 'ready', held: [] })).toEqual({
      key: 'needs-input',
      label: 'Needs input',
    });
    expect(chatStatus('idle', null)).toEqual({ key: 'idle', label: 'Idle' });
  });
});
