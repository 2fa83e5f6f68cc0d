import { describe, expect, it } from 'vitest';
import type { TerminalLinkView } from '../gen/TerminalLinkView';
import type { TerminalRead } from '../gen/TerminalRead';
import { failed, followTerminal, statusText, type TerminalStatus } from './terminal';

const link = (over: Partial<TerminalLinkView> = {}): TerminalLinkView => ({
  uri: 'ahp-session:/s/terminals/t',
  title: 'make',
  ended: false,
  exitCode: null,
  preview: null,
  truncated: false,
  ...over,
});

/** Runs a follow to its end over scripted reads; what was written and the statuses. */
async function follow(l: TerminalLinkView, reads: (TerminalRead | Error)[]) {
  const written: string[] = [];
  const typing: boolean[] = [];
  const statuses: TerminalStatus[] = [];
  const froms: number[] = [];
  let done: () => void = () => {};
  const finished = new Promise<void>((r) => {
    done = r;
  });
  const read = async (from: number) => {
    froms.push(from);
    const next = reads.shift();
    if (reads.length === 0) setTimeout(done, 0);
    if (next === undefined || next instanceof Error) throw next ?? new Error('no more');
    return next;
  };
  const sink = { write: (t: string) => written.push(t), status: (s: TerminalStatus) => statuses.push(s) };
  followTerminal(l, read, { ...sink, input: (on) => typing.push(on) }, 0, async () => {});
  await finished;
  await new Promise((r) => setTimeout(r, 0));
  return { written, statuses, froms, typing };
}

const r = (
  text: string,
  length: number,
  ended = false,
  exitCode: number | null = null,
  input = false,
): TerminalRead => ({
  title: 'make',
  text,
  length,
  ended,
  exitCode,
  input,
});

describe('followTerminal', () => {
  it('reads only what is new until the command ends', async () => {
    const { written, statuses, froms } = await follow(link(), [r('a\n', 2), r('', 2), r('b\n', 4, true, 3)]);
    expect(written).toEqual(['a\n', 'b\n']);
    expect(froms).toEqual([0, 2, 2]);
    expect(statuses.at(-1)).toEqual({ kind: 'ended', exitCode: 3 });
  });

  it('takes keystrokes only while the host says this app may type', async () => {
    const reads = [r('Account: ', 9, false, null, true), r('fake-user\r\n', 20, false, null, true), r('', 20, true, 0)];
    const { typing } = await follow(link(), reads);
    expect(typing).toEqual([true, true, false]);
    const { typing: readOnly } = await follow(link(), [r('make\n', 5), r('', 5, true, 0)]);
    expect(readOnly).toEqual([false, false]);
  });

  it('shows the kept output when the channel is gone', async () => {
    const kept = link({ ended: true, exitCode: 0, preview: 'tail\n', truncated: true });
    const { written, statuses } = await follow(kept, [new Error('not a terminal')]);
    expect(written).toEqual(['tail\n']);
    expect(statuses).toEqual([{ kind: 'kept', exitCode: 0, truncated: true }]);
  });

  it('says so when nothing was kept', async () => {
    const { written, statuses } = await follow(link(), [new Error('gone')]);
    expect(written).toEqual([]);
    expect(statuses).toEqual([{ kind: 'gone' }]);
  });
});

describe('statusText', () => {
  it('puts the exit in words', () => {
    expect(statusText({ kind: 'running' })).toBe('running…');
    expect(statusText({ kind: 'ended', exitCode: 0 })).toBe('exit 0');
    expect(statusText({ kind: 'ended', exitCode: null })).toBe('ended by a signal');
    expect(statusText({ kind: 'kept', exitCode: 2, truncated: true })).toBe('exit 2 · last part of the output kept');
    expect(failed({ kind: 'ended', exitCode: 0 })).toBe(false);
    expect(failed({ kind: 'ended', exitCode: 1 })).toBe(true);
    expect(failed({ kind: 'running' })).toBe(false);
  });
});
