import { describe, expect, it } from 'vitest';
import {
  addToOutbox,
  alreadyDelivered,
  dropFromOutbox,
  type KeyStore,
  type OutboxEntry,
  outboxSessions,
  readOutbox,
  updateInOutbox,
} from './outbox';

/** A Map-backed Storage (the browser's localStorage in the UI tests). */
function memoryStore(): KeyStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
    key: (i) => [...map.keys()][i] ?? null,
    get length() {
      return map.size;
    },
  };
}

const entry = (id: string, text: string, session = 'hangar://s1'): OutboxEntry => ({
  id,
  host: 'local',
  session,
  text,
  kind: 'send',
  afterTurn: 't1',
  tried: false,
});

describe('the browser outbox', () => {
  it('keeps entries per session, in order, and forgets a session once empty', () => {
    const s = memoryStore();
    addToOutbox(s, entry('a', 'first'));
    addToOutbox(s, entry('b', 'second'));
    addToOutbox(s, entry('c', 'elsewhere', 'hangar://s2'));
    expect(readOutbox(s, 'local', 'hangar://s1').map((e) => e.text)).toEqual(['first', 'second']);
    expect(outboxSessions(s)).toEqual([
      ['local', 'hangar://s1'],
      ['local', 'hangar://s2'],
    ]);
    updateInOutbox(s, 'local', 'hangar://s1', 'a', { tried: true });
    expect(readOutbox(s, 'local', 'hangar://s1')[0].tried).toBe(true);
    dropFromOutbox(s, 'local', 'hangar://s1', 'a');
    dropFromOutbox(s, 'local', 'hangar://s1', 'b');
    expect(readOutbox(s, 'local', 'hangar://s1')).toEqual([]);
    expect(s.map.size).toBe(1);
  });

  it('reads a value that does not parse as empty, without throwing', () => {
    const s = memoryStore();
    s.setItem('hangar.outbox:local hangar://s1', '{not json');
    expect(readOutbox(s, 'local', 'hangar://s1')).toEqual([]);
  });

  it('recognises a delivery only after the turn it was typed after, or in the queue', () => {
    const e = entry('a', 'deploy it');
    const turn = (id: string, text: string) => ({ id, message: { text } });
    // The same words in an older turn are not this message.
    expect(alreadyDelivered(e, [turn('t0', 'deploy it'), turn('t1', 'hi')], [])).toBe(false);
    expect(alreadyDelivered(e, [turn('t1', 'hi'), turn('t2', 'deploy it')], [])).toBe(true);
    expect(alreadyDelivered(e, [turn('t1', 'hi')], [{ text: 'deploy it' }])).toBe(true);
    expect(alreadyDelivered({ ...e, afterTurn: null }, [turn('t9', 'deploy it')], [])).toBe(true);
  });
});
