// The Usage page's stacked bars, as numbers: one bar for every day of the
// range asked for (a day without usage is a bar of zero, so a gap reads as
// a gap), one segment per agent (tokens, input plus output, or cost), every agent in a fixed
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

/** The days a chart spans: `from` / `to` as asked (null: open). */
export interface Span {
  from: string | null;
  to: string | null;
}

const DAY_MS = 86_400_000;

/** Every UTC day (`YYYY-MM-DD`) from `first` to `last`, both included. */
export function daysBetween(first: string, last: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${last}T00:00:00Z`);
  for (let t = Date.parse(`${first}T00:00:00Z`); t <= end; t += DAY_MS) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/**
 * Bars for every day of `span` (an open start: the first day with usage;
 * an open end: `today`), segments by agent (agents in name order). No
 * bars at all when nothing was reported in the span.
 */
export function chartOf(days: UsageDayView[], measure: Measure, span: Span, today: string): Chart {
  const agents = [...new Set(days.map((d) => d.agent))].sort();
  const byDay = new Map<string, Map<string, number>>();
  for (const d of days) {
    const v = value(d, measure);
    if (v <= 0) continue;
    const row = byDay.get(d.day) ?? new Map<string, number>();
    row.set(d.agent, (row.get(d.agent) ?? 0) + v);
    byDay.set(d.day, row);
  }
  const reported = [...byDay.keys()].sort();
  if (reported.length === 0) return { agents, bars: [], max: 0 };
  const first = span.from ?? reported[0];
  const last = span.to ?? (today > reported[reported.length - 1] ? today : reported[reported.length - 1]);
  const bars = daysBetween(first, last).map((day) => {
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
