// A tool call's terminal as the desktop follows it: read from the host
// while the command runs (only the output not shown yet), and in words.
import type { TerminalLinkView } from '../gen/TerminalLinkView';
import type { TerminalRead } from '../gen/TerminalRead';

/** Where a terminal's command is, as the card shows it. */
export type TerminalStatus =
  | { kind: 'running' }
  | { kind: 'ended'; exitCode: number | null }
  /** The channel is gone (e.g. the host restarted): the tool call's kept output. */
  | { kind: 'kept'; exitCode: number | null; truncated: boolean }
  /** The channel is gone and nothing was kept. */
  | { kind: 'gone' };

/** The status in words: "running…", "exit 0", "ended by a signal", … */
export function statusText(s: TerminalStatus): string {
  switch (s.kind) {
    case 'running':
      return 'running…';
    case 'gone':
      return 'output no longer available';
    default: {
      const exit = s.exitCode === null ? 'ended by a signal' : `exit ${s.exitCode}`;
      return s.kind === 'kept' ? `${exit} · last ${s.truncated ? 'part of the ' : ''}output kept` : exit;
    }
  }
}

/** Whether the status says the command failed (a non-zero exit or a signal). */
export function failed(s: TerminalStatus): boolean {
  return (s.kind === 'ended' || s.kind === 'kept') && s.exitCode !== 0;
}

/** The status a tool call's link shows before anything is read. */
export function initialStatus(link: TerminalLinkView): TerminalStatus {
  return link.ended ? { kind: 'ended', exitCode: link.exitCode } : { kind: 'running' };
}

export interface TerminalSink {
  write: (text: string) => void;
  status: (s: TerminalStatus) => void;
  /** Told after each read whether this app may type in the terminal. */
  input?: (writable: boolean) => void;
}

/**
 * Follow `link`'s terminal: read its output (from the first byte not
 * shown) every `intervalMs` until the command ends. When the channel cannot
 * be read, the tool call's kept output is shown instead. Returns a stop.
 */
export function followTerminal(
  link: TerminalLinkView,
  read: (from: number) => Promise<TerminalRead>,
  sink: TerminalSink,
  intervalMs = 400,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): () => void {
  let stopped = false;
  let from = 0;
  void (async () => {
    while (!stopped) {
      let r: TerminalRead;
      try {
        r = await read(from);
      } catch {
        if (stopped) return;
        if (from === 0 && link.preview !== null) {
          sink.write(link.preview);
          sink.status({ kind: 'kept', exitCode: link.exitCode, truncated: link.truncated });
        } else if (from === 0) {
          sink.status({ kind: 'gone' });
        }
        return;
      }
      if (stopped) return;
      if (r.text) sink.write(r.text);
      from = r.length;
      sink.input?.(r.input && !r.ended);
      if (r.ended) {
        sink.status({ kind: 'ended', exitCode: r.exitCode });
        return;
      }
      sink.status({ kind: 'running' });
      await sleep(intervalMs);
    }
  })();
  return () => {
    stopped = true;
  };
}
