// The Usage chart's buckets: how many days one bar stands for, by the
// range's length, as GitHub Insights, Grafana and cloud billing pages do:
// a bar a day up to ~3 months, a bar an ISO week (Monday first) up to ~2
// years, a bar a month beyond. A bucket is named by its first day
// (`YYYY-MM-DD`, UTC); its label and title say what it spans ("week of
// Mar 3, 2025", "March 2026"). No I/O: `usage-chart.ts` sums days into
// them. The dates are UTC days, as the hosts count them (docs/host.md,
// "Usage"); `Intl.DateTimeFormat` writes the month names.

export type BucketSize = 'day' | 'week' | 'month';

/** The longest range drawn a bar a day (the "Last 90 days" choice fits). */
export const MAX_DAY_BUCKETS = 92;
/** The longest range drawn a bar a week (two years, a leap day included). */
export const MAX_WEEK_BUCKET_DAYS = 731;

const DAY_MS = 86_400_000;

const dateOf = (day: string) => new Date(`${day}T00:00:00Z`);
const dayOf = (d: Date) => d.toISOString().slice(0, 10);

/** Days from `first` to `last`, both included (0 when `first` is after `last`). */
export function daysIn(first: string, last: string): number {
  return Math.max(0, Math.round((dateOf(last).getTime() - dateOf(first).getTime()) / DAY_MS) + 1);
}

/** The bucket size for a range from `first` to `last`. */
export function bucketSizeOf(first: string, last: string): BucketSize {
  const n = daysIn(first, last);
  if (n <= MAX_DAY_BUCKETS) return 'day';
  return n <= MAX_WEEK_BUCKET_DAYS ? 'week' : 'month';
}

/** The first day of the bucket of `size` that `day` is in (a week's Monday, a month's 1st). */
export function bucketOf(day: string, size: BucketSize): string {
  if (size === 'day') return day;
  if (size === 'month') return `${day.slice(0, 7)}-01`;
  const d = dateOf(day);
  // getUTCDay: Sunday 0 … Saturday 6; days back to Monday.
  const back = (d.getUTCDay() + 6) % 7;
  return dayOf(new Date(d.getTime() - back * DAY_MS));
}

/** The first day of the bucket after the one starting on `start`. */
function nextBucket(start: string, size: BucketSize): string {
  const d = dateOf(start);
  if (size === 'month') return dayOf(new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)));
  return dayOf(new Date(d.getTime() + (size === 'week' ? 7 : 1) * DAY_MS));
}

/** Every bucket of `size` that has a day from `first` to `last`, in order (none when `first` is after `last`). */
export function bucketsBetween(first: string, last: string, size: BucketSize): string[] {
  const out: string[] = [];
  if (first > last) return out;
  for (let b = bucketOf(first, size); b <= last; b = nextBucket(b, size)) out.push(b);
  return out;
}

const format = (options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', ...options });
const monthDay = format({ month: 'short', day: 'numeric' });
const monthDayYear = format({ month: 'short', day: 'numeric', year: 'numeric' });
const monthShortYear = format({ month: 'short', year: 'numeric' });
const monthLongYear = format({ month: 'long', year: 'numeric' });

/** A bucket's label under its bar: "Mar 3", "week of Mar 3", "Mar 2026". */
export function bucketLabel(start: string, size: BucketSize): string {
  const d = dateOf(start);
  if (size === 'day') return monthDay.format(d);
  if (size === 'week') return `week of ${monthDay.format(d)}`;
  return monthShortYear.format(d);
}

/** Room a label of `size` takes under the bars, in the chart's units (11 px text). */
export const LABEL_WIDTH: Record<BucketSize, number> = { day: 44, week: 84, month: 60 };

/** A bucket in full, for its tooltip: "Mar 3, 2026", "week of Mar 3, 2025", "March 2026". */
export function bucketTitle(start: string, size: BucketSize): string {
  const d = dateOf(start);
  if (size === 'day') return monthDayYear.format(d);
  if (size === 'week') return `week of ${monthDayYear.format(d)}`;
  return monthLongYear.format(d);
}
