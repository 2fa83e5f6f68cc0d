// Apply a stream's events once per animation frame. A streaming turn sends
// a `part` op per delta (hundreds a second); rendering each one separately
// costs a Preact render and a layout per op. Collected here, the ops of one
// frame are applied together and rendered once.

export type Schedule = (run: () => void) => void;

const nextFrame: Schedule = (run) => {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => run());
  else setTimeout(run, 16);
};

/** A sink that queues items and hands them to `apply`, in order, once per frame. */
export function perFrame<T>(apply: (items: T[]) => void, schedule: Schedule = nextFrame): (item: T) => void {
  let queue: T[] = [];
  let scheduled = false;
  return (item: T) => {
    queue.push(item);
    if (scheduled) return;
    scheduled = true;
    schedule(() => {
      scheduled = false;
      const items = queue;
      queue = [];
      apply(items);
    });
  };
}
