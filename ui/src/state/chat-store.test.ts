import { describe, expect, it } from 'vitest';
import {
  allTurns,
  applyChatOp,
  chatStatus,
  contextUse,
  emptyChat,
  isStarting,
  type PartView,
  retryPartIndex,
  startFailed,
  type TurnView,
  tokensText,
  toolInputText,
  type UsageView,
  usageText,
  visibleTurns,
} from './chat-store';
import { chatMeta, htmlOf, markdownPart, startView, turnView } from './test-views';

const turn = turnView;
const meta = chatMeta();
const md = markdownPart;
const start = startView;

describe('chat store', () => {
  it('streams parts into the active turn without touching finished turns', () => {
    let s = applyChatOp(emptyChat(), {
      op: 'snapshot',
      meta,
      turns: [turn('t1')],
      active: null,
      start: null,
      customizations: null,
    });
    const finished = s.turns;
    s = applyChatOp(s, { op: 'batch', ops: [{ op: 'active', turn: { ...turn('t2'), active: true, state: null } }] });
    s = applyChatOp(s, { op: 'part', turnId: 't2', index: 0, part: md('p', '<p>He</p>') });
    s = applyChatOp(s, {
      op: 'part',
      turnId: 't2',
      index: 0,
      part: md('p', '<p>Hello</p>'),
    });
    expect(s.turns).toBe(finished);
    expect(s.active?.parts[0]).toEqual(md('p', '<p>Hello</p>'));
    s = applyChatOp(s, { op: 'part', turnId: 'other', index: 0, part: { kind: 'unknown' } });
    expect(s.active?.parts).toHaveLength(1);
    s = applyChatOp(s, {
      op: 'batch',
      ops: [
        { op: 'turnDone', turn: turn('t2', { parts: [md('p', 'x')] }) },
        { op: 'active', turn: null },
      ],
    });
    expect(s.active).toBeNull();
    expect(s.turns.map((t) => t.id)).toEqual(['t1', 't2']);
  });

  it('appends to a streaming markdown part: keeps its first blocks, replaces the rest', () => {
    const active = turn('t2', { active: true, state: null, parts: [md('p', '<h1>T</h1>', '<p>A</p>')] });
    let s = applyChatOp(emptyChat(), { op: 'snapshot', meta, turns: [], active, start: null, customizations: null });
    const heading = s.active?.parts[0].kind === 'markdown' ? s.active.parts[0].blocks[0] : undefined;
    s = applyChatOp(s, { op: 'partAppend', turnId: 't2', index: 0, keep: 1, blocks: ['<p>AB</p>', '<pre>c</pre>'] });
    s = applyChatOp(s, { op: 'partAppend', turnId: 't2', index: 0, keep: 2, blocks: ['<pre>cd</pre>'] });
    expect(s.active?.parts[0]).toEqual(md('p', '<h1>T</h1>', '<p>AB</p>', '<pre>cd</pre>'));
    expect(s.active?.parts[0].kind === 'markdown' && s.active.parts[0].blocks[0]).toBe(heading);
    // Another turn's op, or a part that is not markdown, is left alone.
    s = applyChatOp(s, { op: 'partAppend', turnId: 'other', index: 0, keep: 1, blocks: ['<p>x</p>'] });
    s = applyChatOp(s, { op: 'partAppend', turnId: 't2', index: 5, keep: 1, blocks: ['<p>x</p>'] });
    expect(htmlOf(s.active?.parts[0])).toBe('<h1>T</h1><p>AB</p><pre>cd</pre>');
    expect(s.active?.parts).toHaveLength(1);
  });

  it('follows the session start: creating with held messages, then ready or failed', () => {
    let s = applyChatOp(emptyChat(), {
      op: 'snapshot',
      meta,
      turns: [],
      active: null,
      start: start('creating'),
      customizations: null,
    });
    expect(isStarting(s)).toBe(true);
    s = applyChatOp(s, {
      op: 'batch',
      ops: [{ op: 'start', start: start('creating', { held: [{ id: 'h', text: 'hi' }] }) }],
    });
    expect(s.start?.held.map((m) => m.text)).toEqual(['hi']);
    s = applyChatOp(s, { op: 'start', start: start('ready') });
    expect(isStarting(s)).toBe(false);
    expect(startFailed(s)).toBe(false);
    s = applyChatOp(s, { op: 'start', start: start('failed', { error: 'no key' }) });
    expect(startFailed(s)).toBe(true);
    const none = applyChatOp(emptyChat(), {
      op: 'snapshot',
      meta,
      turns: [],
      active: null,
      start: null,
      customizations: null,
    });
    expect(isStarting(none)).toBe(false);
  });

  it('prepends older turns and windows the transcript', () => {
    let s = applyChatOp(emptyChat(), {
      op: 'snapshot',
      meta,
      turns: [turn('t3')],
      active: turn('t4', { active: true }),
      start: null,
      customizations: null,
    });
    s = applyChatOp(s, { op: 'older', turns: [turn('t1'), turn('t2')], more: false });
    expect(allTurns(s).map((t) => t.id)).toEqual(['t1', 't2', 't3', 't4']);
    const { hidden, shown } = visibleTurns(allTurns(s), 2);
    expect(hidden).toBe(2);
    expect(shown.map((t) => t.id)).toEqual(['t3', 't4']);
  });

  it('turnDone for a turn already listed replaces it', () => {
    let s = applyChatOp(emptyChat(), {
      op: 'snapshot',
      meta,
      turns: [turn('t1')],
      active: null,
      start: null,
      customizations: null,
    });
    s = applyChatOp(s, { op: 'turnDone', turn: turn('t1', { state: 'error' }) });
    expect(s.turns).toHaveLength(1);
    expect(s.turns[0].state).toBe('error');
  });

  it('formats tool input, results and usage', () => {
    expect(toolInputText({ input: '{"command":"ls -la"}', inputUri: null })).toContain('"command": "ls -la"');
    expect(toolInputText({ input: 'rm -rf build', inputUri: null })).toBe('rm -rf build');
    expect(toolInputText({ input: null, inputUri: 'ahp-content:/x' })).toBe('(input at ahp-content:/x)');
    const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: null, model: 'm' };
    const none = { contextUsed: null, contextSize: null, cost: null };
    expect(usageText({ ...usage, ...none })).toBe('10 in · 2 out · m');
    const cost = { amount: 0.0018, currency: 'USD' };
    expect(usageText({ ...usage, ...none, cost })).toBe('10 in · 2 out · $0.0018 so far · m');
  });

  it('shows the newest context use, and none when never reported', () => {
    const turn = (id: string, usage: UsageView | null) =>
      ({ id, message: null, parts: [], usage, state: 'complete', active: false }) as unknown as TurnView;
    const u = (used: number | null) => ({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      model: null,
      contextUsed: used,
      contextSize: used === null ? null : 200000,
      cost: null,
    });
    const view = { ...emptyChat(), turns: [turn('a', u(42000)), turn('b', u(null))] };
    expect(contextUse(view)).toEqual({ used: 42000, size: 200000 });
    expect(contextUse({ ...view, active: turn('c', u(50000)) })).toEqual({ used: 50000, size: 200000 });
    expect(contextUse({ ...emptyChat(), turns: [turn('a', null)] })).toBeNull();
    expect(tokensText(42000)).toBe('42k');
  });

  it('offers Retry only on the latest turn, on its last error part, when resumable', () => {
    const err = (resumable: boolean): PartView => ({
      kind: 'error',
      error: { errorType: 'e', message: 'x' },
      resumable,
      signIn: null,
    });
    const t = turn('t', {
      parts: [md('a', 'a'), err(true), md('b', 'b'), err(true)],
      state: 'error',
    });
    expect(retryPartIndex(t, true)).toBe(3);
    expect(retryPartIndex(t, false)).toBe(-1);
    expect(retryPartIndex({ ...t, parts: [err(true), err(false)] }, true)).toBe(-1);
    expect(retryPartIndex({ ...t, parts: [err(true), md('c', 'c')] }, true)).toBe(0);
    expect(retryPartIndex({ ...t, parts: [err(false)] }, true)).toBe(-1);
    expect(retryPartIndex({ ...t, active: true }, true)).toBe(-1);
    expect(retryPartIndex(turn('ok'), true)).toBe(-1);
  });

  it('says Starting / Failed to start in the header while the agent is not ready', () => {
    expect(chatStatus('idle', start('creating'))).toEqual({ key: 'working', label: 'Starting' });
    expect(chatStatus('idle', start('failed'))).toEqual({ key: 'error', label: 'Failed to start' });
    const signIn = { provider: 'codex', methods: [] };
    expect(chatStatus('idle', start('failed', { signIn }))).toEqual({ key: 'needs-input', label: 'Sign-in needed' });
    expect(chatStatus('needs-input', start('ready'))).toEqual({
      key: 'needs-input',
      label: 'Needs input',
    });
    expect(chatStatus('idle', null)).toEqual({ key: 'idle', label: 'Idle' });
  });
});
