// The Usage page's date range: the last 7, 30 or 90 days, all time, or a
// custom from–to, as the `from` / `to` days `usage.get` passes to each
// host's `x-hangar/usage` (docs/host.md, "Usage"). Hosts count a turn on
// the UTC day it started, so "the last 7 days" are 7 UTC days ending today.
// No I/O here: `UsagePage.tsx` renders it.

export type RangeKind = '7' | '30' | '90' | 'all' | 'custom';

/** The choices, in the order the page offers them. */
export const RANGE_CHOICES: { kind: RangeKind; label: string }[] = [
  { kind: '7', label: 'Last 7 days' },
  { kind: '30', label: 'Last 30 days' },
  { kind: '90', label: 'Last 90 days' },
  { kind: 'all', label: 'All time' },
  { kind: 'custom', label: 'From – to…' },
];

export interface UsageRange {
  kind: RangeKind;
  /** A custom range's first day (`YYYY-MM-DD`), empty for open. */
  from: string;
  /** A custom range's last day, empty for open. */
  to: string;
}

/** A date's UTC day, `YYYY-MM-DD`. */
export function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/**
 * The `from` / `to` to ask for (null: open), or why a custom range cannot
 * be asked for (its first day after its last).
 */
export function rangeParams(
  range: UsageRange,
  now: Date,
): { from: string | null; to: string | null } | { error: string } {
  if (range.kind === 'all') return { from: null, to: null };
  if (range.kind === 'custom') {
    const from = range.from || null;
    const to = range.to || null;
    if (from && to && from > to) return { error: `The range starts (${from}) after it ends (${to}).` };
    return { from, to };
  }
  const first = new Date(now.getTime() - (Number(range.kind) - 1) * 86_400_000);
  return { from: utcDay(first), to: utcDay(now) };
}
