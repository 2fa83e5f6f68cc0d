// Keystrokes for a terminal, sent in order. Each `terminal.input` is its own
// command, and the core runs commands concurrently: sent one per keystroke
// without waiting, two could reach the terminal swapped (a login read
// "fake-usre" on a loaded machine). The queue sends one command at a time;
// what is typed meanwhile waits and goes in the next one, joined.

/** How many characters one command carries at most (the core takes 64 KiB). */
export const MAX_CHUNK = 16 * 1024;

/** Sends `data` in the order it was typed, one `send` at a time. */
export function inputQueue(send: (data: string) => Promise<unknown>, onError: (e: unknown) => void) {
  let waiting = '';
  let sending = false;
  const drain = async () => {
    sending = true;
    while (waiting) {
      const chunk = waiting.slice(0, MAX_CHUNK);
      waiting = waiting.slice(chunk.length);
      try {
        await send(chunk);
      } catch (e) {
        // What was typed after a refused chunk would arrive out of context.
        waiting = '';
        onError(e);
      }
    }
    sending = false;
  };
  return (data: string) => {
    waiting += data;
    if (!sending) void drain();
  };
}
