// The Usage page's stacked bars, as numbers: one bar per day, one segment
// per agent (tokens, input plus output, or cost), every agent in a fixed
// order and colour, the scale from the tallest day. Plain SVG draws it
// (components/UsagePage.tsx); no chart library is needed for rectangles.

import type { UsageDayView } from '../gen/UsageDayView';

export type Measure = 'tokens' | 'cost';

export interface Segment {
  agent: string;
  value: number;
  /** Where the segment starts, from the bar's foot. */
  base: number;
}

export interface Bar {
  day: string;
  total: number;
  segments: Segment[];
}

export interface Chart {
  agents: string[];
  bars: Bar[];
  max: number;
}

const value = (d: UsageDayView, m: Measure) =>
  m === 'tokens' ? d.inputTokens + d.outputTokens : (d.cost?.amount ?? 0);

/** Bars by day, segments by agent (agents in name order). */
export function chartOf(days: UsageDayView[], measure: Measure): Chart {
  const agents = [...new Set(days.map((d) => d.agent))].sort();
  const byDay = new Map<string, Map<string, number>>();
  for (const d of days) {
    const v = value(d, measure);
    if (v <= 0) continue;
    const row = byDay.get(d.day) ?? new Map<string, number>();
    row.set(d.agent, (row.get(d.agent) ?? 0) + v);
    byDay.set(d.day, row);
  }
  const bars = [...byDay.keys()].sort().map((day) => {
    const row = byDay.get(day) ?? new Map<string, number>();
    let base = 0;
    const segments: Segment[] = [];
    for (const agent of agents) {
      const v = row.get(agent);
      if (!v) continue;
      segments.push({ agent, value: v, base });
      base += v;
    }
    return { day, total: base, segments };
  });
  return { agents, bars, max: Math.max(0, ...bars.map((b) => b.total)) };
}

/** The currency the costs are in, when they are all in one. */
export function currencyOf(days: UsageDayView[]): string | null {
  const all = new Set(days.flatMap((d) => (d.cost ? [d.cost.currency] : [])));
  return all.size === 1 ? [...all][0] : null;
}

/** An agent's colour (the same agent the same colour on every page). */
export function agentColor(agents: string[], agent: string): string {
  const palette = ['#2d6cdf', '#d97706', '#16a34a', '#9333ea', '#dc2626', '#0891b2', '#ca8a04', '#db2777'];
  return palette[agents.indexOf(agent) % palette.length];
}
