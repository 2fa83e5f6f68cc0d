import { describe, expect, it } from 'vitest';
import { inputQueue, MAX_CHUNK } from './input-queue';

/** A `send` whose calls resolve only when the test says so. */
function controlled() {
  const calls: string[] = [];
  const resolvers: Array<() => void> = [];
  let inFlight = 0;
  let most = 0;
  const send = (data: string) => {
    calls.push(data);
    inFlight++;
    most = Math.max(most, inFlight);
    return new Promise<void>((resolve) => {
      resolvers.push(() => {
        inFlight--;
        resolve();
      });
    });
  };
  const settle = async () => {
    while (resolvers.length) {
      resolvers.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    }
  };
  return { calls, send, settle, most: () => most };
}

describe('inputQueue', () => {
  it('sends one command at a time and keeps the order of what was typed', async () => {
    const c = controlled();
    const type = inputQueue(c.send, () => {});
    for (const ch of 'fake-user\r') type(ch);
    await c.settle();
    expect(c.most()).toBe(1);
    expect(c.calls.join('')).toBe('fake-user\r');
    // The first key goes at once; the rest, typed while it was in flight, go together.
    expect(c.calls).toEqual(['f', 'ake-user\r']);
  });

  it('splits a long paste into chunks the core takes', async () => {
    const c = controlled();
    const type = inputQueue(c.send, () => {});
    type('x'.repeat(MAX_CHUNK * 2 + 5));
    await c.settle();
    expect(c.calls.map((s) => s.length)).toEqual([MAX_CHUNK, MAX_CHUNK, 5]);
  });

  it('reports a refused chunk and drops what was typed after it', async () => {
    const errors: unknown[] = [];
    const sent: string[] = [];
    let refuse = true;
    const type = inputQueue(
      (data) => {
        sent.push(data);
        return refuse ? Promise.reject(new Error('not yours')) : Promise.resolve();
      },
      (e) => errors.push(e),
    );
    type('a');
    type('b');
    await new Promise((r) => setTimeout(r, 0));
    expect(errors).toHaveLength(1);
    refuse = false;
    type('c');
    await new Promise((r) => setTimeout(r, 0));
    expect(sent).toEqual(['a', 'c']);
  });
});
