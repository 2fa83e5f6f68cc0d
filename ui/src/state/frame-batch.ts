// Render a stream's state once per frame. A streaming turn sends a `part`
// op per delta (hundreds a second), each carrying the whole part's HTML;
// rendering each one costs a Preact render and a layout. Each op is folded
// into the pending state as it arrives (memory stays the size of the view,
// not of the ops since the last frame) and the state is rendered once per
// frame. A hidden window runs no animation frames, so then a timer renders.

export type Schedule = (run: () => void) => void;

/** The next animation frame; a timer while the document is hidden (no rAF runs). */
export const nextFrame: Schedule = (run) => {
  const hidden = typeof document !== 'undefined' && document.hidden;
  if (!hidden && typeof requestAnimationFrame === 'function') requestAnimationFrame(() => run());
  else setTimeout(run, 16);
};

/** A sink folding items into a state, rendered at most once per frame. */
export interface FrameFold<S, T> {
  push(item: T): void;
  /** The state with every item pushed so far (rendered or not). */
  state(): S;
  /** Render the pending state now, without waiting for the frame. */
  flush(): void;
}

/** Fold each pushed item into `initial` with `fold`; `render` the result once per frame. */
export function perFrame<S, T>(
  initial: S,
  fold: (state: S, item: T) => S,
  render: (state: S) => void,
  schedule: Schedule = nextFrame,
): FrameFold<S, T> {
  let state = initial;
  let dirty = false;
  let scheduled = false;
  const flush = () => {
    if (!dirty) return;
    dirty = false;
    render(state);
  };
  return {
    push(item) {
      state = fold(state, item);
      dirty = true;
      if (scheduled) return;
      scheduled = true;
      schedule(() => {
        scheduled = false;
        flush();
      });
    },
    state: () => state,
    flush,
  };
}
