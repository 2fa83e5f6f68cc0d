// Pieces shared by the streaming benchmarks: ./bench.mjs (headless Chromium
// against hangar-desktop-bridge) and ../window/bench.mjs (the real window).

/**
 * The fake agent's script for the streaming figure: one turn of `deltas`
 * chunks 4 ms apart (~200 deltas/s), a paragraph break every 40th and a
 * code block every 200th, then `end_turn`.
 */
export function streamScript(deltas) {
  const steps = [];
  for (let i = 0; i < deltas; i++) {
    steps.push({
      chunk: i % 40 === 39 ? `word${i}\n\n` : i % 200 === 100 ? '\n```rust\nfn f() {}\n```\n' : `word${i} `,
    });
    steps.push({ sleep: 4 });
  }
  steps.push({ end: 'end_turn' });
  return { turns: [steps] };
}

/** The p-quantile of `values` (the value below which a fraction p of them fall). */
export function quantile(values, p) {
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
}

/** Frame gaps (ms) as a line: how many, p50, p95, p99, max, and how many over 50 ms. */
export function frameLine(gaps) {
  const ms = (p) => `${quantile(gaps, p).toFixed(1)} ms`;
  return `frames ${gaps.length}: p50 ${ms(0.5)}, p95 ${ms(0.95)}, p99 ${ms(0.99)}, max ${ms(1)}, >50 ms: ${gaps.filter((g) => g > 50).length}`;
}
