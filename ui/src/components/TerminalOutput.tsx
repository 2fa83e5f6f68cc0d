// A command a tool call ran in a terminal on the host: its output in a
// read-only xterm.js, live while it runs, with its exit status. A finished
// command shows the output its tool call kept (no request); "Full output"
// reads the whole terminal when that was cut. A login this app's client
// claims takes keystrokes (`type`) while the host says it may.
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TerminalLinkView } from '../gen/TerminalLinkView';
import type { TerminalRead } from '../gen/TerminalRead';
import { failed, followTerminal, initialStatus, statusText, type TerminalStatus } from '../state/terminal';

/** Rows the terminal grows to before it scrolls. */
const MAX_ROWS = 16;
/** The end of the output kept as text beside the screen. */
const MAX_SHOWN_TEXT = 256 * 1024;

export type ReadTerminal = (uri: string, from: number) => Promise<TerminalRead>;

export function TerminalOutput({
  link,
  read,
  onStatus,
  type,
}: {
  link: TerminalLinkView;
  read?: ReadTerminal;
  /** Told each status the terminal shows (e.g. a login's exit). */
  onStatus?: (status: TerminalStatus) => void;
  /** Sends keystrokes to the terminal (a login it claims); read-only without. */
  type?: (data: string) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<TerminalStatus>(initialStatus(link));
  useEffect(() => onStatus?.(status), [status, onStatus]);
  // A finished command shows what its tool call kept; the person may ask
  // for the whole output when that was cut.
  const [follow, setFollow] = useState(!link.ended || (link.preview === null && read !== undefined));
  // The output as text too (screen readers, find-in-page, tests).
  const [shown, setShown] = useState('');
  const [typing, setTyping] = useState(false);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const style = getComputedStyle(document.documentElement);
    const term = new Terminal({
      disableStdin: true,
      convertEol: true,
      cursorBlink: false,
      cursorInactiveStyle: 'none',
      rows: 2,
      scrollback: 10_000,
      fontSize: 12,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      theme: {
        background: style.getPropertyValue('--code-bg').trim() || '#f3f4f7',
        foreground: style.getPropertyValue('--fg').trim() || '#1d2330',
        cursor: 'transparent',
      },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    // Rows: one per line. A trailing newline is held back until more
    // output comes, so the cursor's empty line takes no row.
    let newlines = 0;
    let held = false;
    setShown('');
    const grow = () => {
      const cols = fit.proposeDimensions()?.cols ?? 80;
      term.resize(Math.max(cols, 20), Math.min(newlines + 1, MAX_ROWS));
    };
    const write = (t: string) => {
      if (!t) return;
      let out = (held ? '\n' : '') + t;
      held = out.endsWith('\n');
      if (held) out = out.slice(0, -1);
      newlines += out.split('\n').length - 1;
      term.write(out);
      setShown((before) => (before + t).slice(-MAX_SHOWN_TEXT));
      grow();
    };
    let writable = false;
    const keys = term.onData((data) => {
      if (writable && type) type(data);
    });
    const input = (on: boolean) => {
      writable = on && type !== undefined;
      term.options.disableStdin = !writable;
      setTyping(writable);
    };
    let stop = () => {};
    if (follow && read) {
      stop = followTerminal(link, (from) => read(link.uri, from), { write, status: setStatus, input });
    } else {
      write(link.preview ?? '');
      if (link.ended) setStatus(initialStatus(link));
    }
    const resized = new ResizeObserver(grow);
    resized.observe(el);
    return () => {
      stop();
      keys.dispose();
      resized.disconnect();
      term.dispose();
    };
    // Followed once per terminal (the tool call's updates do not restart it).
  }, [link.uri, follow, read, type]);

  const cut = !follow && link.truncated && read !== undefined;
  return (
    <div
      class={`terminal ${failed(status) ? 'failed' : ''}`}
      data-testid="terminal"
      data-state={status.kind}
      data-exit-code={'exitCode' in status && status.exitCode !== null ? status.exitCode : ''}
      data-typing={typing ? 'yes' : 'no'}
    >
      <div class="terminal-head">
        <code class="terminal-title" title={link.title}>
          $ {link.title}
        </code>
        <span class={`badge ${failed(status) ? 'failed' : status.kind === 'running' ? 'running' : ''}`}>
          {statusText(status)}
        </span>
        {typing && <span class="small muted">type your answers here</span>}
        {cut && (
          <button type="button" class="small" data-testid="terminal-full" onClick={() => setFollow(true)}>
            Full output
          </button>
        )}
      </div>
      <div class="terminal-screen" ref={box} data-testid="terminal-screen" />
      <pre class="sr-only" data-testid="terminal-text">
        {shown}
      </pre>
    </div>
  );
}
