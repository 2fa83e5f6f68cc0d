// Keeping the reader's place when older turns are prepended above them.
// Chromium anchors scrolling by itself (`overflow-anchor`); WebKit — the
// app's webview — does not, so without this the view jumps to the oldest
// turn, lands near the top again and asks for yet another page.

export interface ScrollBox { scrollTop: number; scrollHeight: number }

/** What to remember before turns are prepended: the place and the first turn shown. */
export interface Anchor { scrollTop: number; scrollHeight: number; firstTurn: string | undefined }

export const anchorOf = (box: ScrollBox, firstTurn: string | undefined): Anchor =>
  ({ scrollTop: box.scrollTop, scrollHeight: box.scrollHeight, firstTurn });

/**
 * The scrollTop that keeps the same content in view, once the turns were
 * prepended (the first turn shown changed); null while they are not there yet.
 */
export function restoredScrollTop(anchor: Anchor, box: ScrollBox, firstTurn: string | undefined): number | null {
  if (firstTurn === anchor.firstTurn) return null;
  return anchor.scrollTop + (box.scrollHeight - anchor.scrollHeight);
}
