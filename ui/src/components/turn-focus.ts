// Opening a chat at a search result's turn: the turn is loaded (older pages
// fetched from the host with `chat.fetchOlder` until it is there), mounted
// (the transcript's window widened to it), scrolled to the middle of the
// view and highlighted: the turn gets a frame and the matched words a CSS
// highlight (`::highlight(search-match)`, ranges over the rendered text;
// the DOM is not changed, so the markdown's block diffing is untouched).
import { type MutableRef, useEffect, useState } from 'preact/hooks';
import { call } from '../ipc';
import type { TurnView } from '../state/chat-store';
import { matchRanges } from '../state/search';

/** Where a search result opened the chat. */
export interface TurnFocus {
  turnId: string;
  /** The words the snippet marked. */
  words: string[];
  /** Changes on every open, so opening the same result again scrolls again. */
  n: number;
}

/** The CSS highlight's name (styles.css: `::highlight(search-match)`). */
export const MATCH_HIGHLIGHT = 'search-match';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll `ok` every 40 ms until it holds or `ms` pass; whether it held. */
async function until(ok: () => boolean, ms: number, alive: () => boolean): Promise<boolean> {
  const end = Date.now() + ms;
  while (alive() && Date.now() < end) {
    if (ok()) return true;
    await sleep(40);
  }
  return ok();
}

/** Highlight `words` in `el`'s text with the CSS Custom Highlight API, where the engine has it. */
function highlightWords(el: Element, words: string[]) {
  const registry = (globalThis.CSS as { highlights?: Map<string, unknown> } | undefined)?.highlights;
  const HighlightCtor = (globalThis as { Highlight?: new (...r: Range[]) => unknown }).Highlight;
  if (!registry || !HighlightCtor) return;
  const ranges: Range[] = [];
  const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const [start, end] of matchRanges(node.textContent ?? '', words)) {
      const r = document.createRange();
      r.setStart(node, start);
      r.setEnd(node, end);
      ranges.push(r);
    }
  }
  registry.set(MATCH_HIGHLIGHT, new HighlightCtor(...ranges));
}

function clearHighlight() {
  (globalThis.CSS as { highlights?: Map<string, unknown> } | undefined)?.highlights?.delete(MATCH_HIGHLIGHT);
}

/**
 * Bring `focus`'s turn into the transcript and into view. Returns the id of
 * the turn to frame (null until it is there). `onMissing` is told when the
 * host has no such turn any more.
 */
export function useTurnFocus(p: {
  focus: TurnFocus | null;
  host: string;
  chat: string;
  /** The chat's snapshot has arrived. */
  loaded: boolean;
  turns: MutableRef<TurnView[]>;
  scroller: MutableRef<HTMLDivElement | null>;
  /** Follow-the-bottom, turned off while a turn is focused. */
  stick: MutableRef<boolean>;
  /** Held while pages are fetched here, so scrolling does not fetch too. */
  loadingOlder: MutableRef<boolean>;
  /** Apply the ops that arrived (a fetched page) now. */
  flush: () => void;
  setLimit: (f: (l: number) => number) => void;
  onMissing: (text: string) => void;
}): string | null {
  const { focus, host, chat, loaded } = p;
  const [target, setTarget] = useState<TurnFocus | null>(null);

  // Load: page older turns in until the turn is there.
  useEffect(() => {
    if (!focus || !chat || !loaded) return;
    let alive = true;
    const find = () => p.turns.current.findIndex((t) => t.id === focus.turnId);
    (async () => {
      let idx = find();
      while (alive && idx < 0) {
        const before = p.turns.current.length;
        p.loadingOlder.current = true;
        let more = false;
        try {
          more = (await call('chat.fetchOlder', { host, chat })).more;
        } catch {
          more = false;
        } finally {
          p.loadingOlder.current = false;
        }
        p.flush();
        // A page from the host arrives on the stream after the answer.
        const grew = await until(
          () => p.turns.current.length > before,
          more ? 15000 : 1000,
          () => alive,
        );
        idx = find();
        if (!grew) break;
      }
      if (!alive) return;
      if (idx < 0) {
        p.onMissing('The turn that matched is no longer in this session.');
        return;
      }
      p.stick.current = false;
      p.setLimit((l) => Math.max(l, p.turns.current.length - idx));
      setTarget(focus);
    })();
    return () => {
      alive = false;
    };
  }, [focus, chat, loaded, host]);

  // Scroll: once the turn is mounted, put it in the middle of the view
  // until it stays put (turns around it replace estimated heights as they
  // render), then highlight the matched words.
  useEffect(() => {
    if (!target) return;
    let alive = true;
    let frames = 0;
    let still = 0;
    let last = Number.NaN;
    const step = () => {
      if (!alive) return;
      const el = p.scroller.current?.querySelector(`[data-turn="${CSS.escape(target.turnId)}"]`);
      if (el) {
        p.stick.current = false;
        el.scrollIntoView({ block: 'center' });
        const top = el.getBoundingClientRect().top;
        still = Math.abs(top - last) < 1 ? still + 1 : 0;
        last = top;
        if (still >= 2) {
          highlightWords(el, target.words);
          return;
        }
      }
      if (++frames < 120) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
    return () => {
      alive = false;
      clearHighlight();
    };
  }, [target]);

  return target?.turnId ?? null;
}
