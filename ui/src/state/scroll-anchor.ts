// Keeping the reader's place when older turns are prepended above them.
// Chromium anchors scrolling by itself (`overflow-anchor`); WebKit — the
// app's webview — does not, so without this the view jumps to the oldest
// turn, lands near the top again and asks for yet another page. The anchor
// is the first turn shown: after the prepend, scrollTop moves by however far
// that turn moved (prepended turns' heights are estimates until rendered —
// `content-visibility: auto` — so the element is measured, not the heights).

/** The first turn shown before the prepend, and its top relative to the scroller's. */
export interface Anchor {
  turn: string | undefined;
  offset: number;
}

/** Top of turn `id` relative to the scroller's top, if it is mounted. */
export function turnOffset(scroller: HTMLElement, id: string | undefined): number | null {
  const el = id ? scroller.querySelector(`[data-turn="${id}"]`) : null;
  return el ? el.getBoundingClientRect().top - scroller.getBoundingClientRect().top : null;
}

export const anchorOf = (scroller: HTMLElement, firstTurn: string | undefined): Anchor => ({
  turn: firstTurn,
  offset: turnOffset(scroller, firstTurn) ?? 0,
});

/**
 * The scrollTop that puts the anchored turn back where it was, once turns
 * were prepended (the first turn shown is another one now); null before.
 */
export function restoredScrollTop(
  anchor: Anchor,
  scrollTop: number,
  firstShown: string | undefined,
  offsetNow: number | null,
): number | null {
  if (firstShown === anchor.turn || offsetNow == null) return null;
  return scrollTop + (offsetNow - anchor.offset);
}
