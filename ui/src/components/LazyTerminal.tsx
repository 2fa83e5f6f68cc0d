// TerminalOutput (xterm.js and its CSS), loaded the first time a terminal
// is shown: a chunk of its own, so a window that shows no terminal never
// parses xterm.js. Until it has loaded, an empty box stands in its place.
import type { ComponentProps } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { TerminalOutput as Terminal } from './TerminalOutput';

type Component = typeof Terminal;
let loading: Promise<Component> | null = null;
let loaded: Component | null = null;

const load = () => {
  loading ??= import('./TerminalOutput').then(({ TerminalOutput }) => {
    loaded = TerminalOutput;
    return TerminalOutput;
  });
  return loading;
};

/** `TerminalOutput`, once its chunk has loaded. */
export function LazyTerminal(props: ComponentProps<Component>) {
  const [Shown, setShown] = useState<Component | null>(() => loaded);
  useEffect(() => {
    if (!Shown) void load().then((c) => setShown(() => c));
  }, [Shown]);
  return Shown ? <Shown {...props} /> : <div class="terminal" data-testid="terminal-loading" />;
}
