import { describe, expect, it } from 'vitest';
import { bucketLabel, bucketOf, bucketSizeOf, bucketsBetween, bucketTitle, daysIn } from './usage-buckets';

describe('usage buckets', () => {
  it('a bar a day up to ~3 months, a week up to 2 years, a month beyond', () => {
    expect(bucketSizeOf('2026-03-01', '2026-03-01')).toBe('day');
    expect(bucketSizeOf('2025-12-11', '2026-03-10')).toBe('day'); // the last 90 days
    expect(bucketSizeOf('2025-12-01', '2026-03-10')).toBe('week');
    // Two years with a leap day are 731 days: still weeks; a day more, months.
    expect(daysIn('2024-01-01', '2025-12-31')).toBe(731);
    expect(bucketSizeOf('2024-01-01', '2025-12-31')).toBe('week');
    expect(bucketSizeOf('2024-01-01', '2026-01-01')).toBe('month');
  });

  it('counts days across a leap year, a month and a year end', () => {
    expect(daysIn('2024-02-28', '2024-03-01')).toBe(3);
    expect(daysIn('2023-02-28', '2023-03-01')).toBe(2);
    expect(daysIn('2026-03-02', '2026-03-01')).toBe(0);
    expect(bucketsBetween('2025-12-30', '2026-01-02', 'day')).toEqual([
      '2025-12-30',
      '2025-12-31',
      '2026-01-01',
      '2026-01-02',
    ]);
    expect(bucketsBetween('2024-02-27', '2024-03-01', 'day')).toEqual([
      '2024-02-27',
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
    ]);
  });

  it('an ISO week starts on Monday, a range starting mid-week in the week of its Monday', () => {
    expect(bucketOf('2026-03-04', 'week')).toBe('2026-03-02'); // Wednesday
    expect(bucketOf('2026-03-08', 'week')).toBe('2026-03-02'); // Sunday
    expect(bucketOf('2026-03-09', 'week')).toBe('2026-03-09'); // Monday
    expect(bucketOf('2026-01-01', 'week')).toBe('2025-12-29'); // across a year end
    expect(bucketOf('2024-03-01', 'week')).toBe('2024-02-26'); // across a leap day
    expect(bucketsBetween('2026-03-04', '2026-03-23', 'week')).toEqual([
      '2026-03-02',
      '2026-03-09',
      '2026-03-16',
      '2026-03-23',
    ]);
  });

  it('a month runs from its 1st, across a year end and a leap February', () => {
    expect(bucketOf('2024-02-29', 'month')).toBe('2024-02-01');
    expect(bucketsBetween('2023-12-31', '2024-03-01', 'month')).toEqual([
      '2023-12-01',
      '2024-01-01',
      '2024-02-01',
      '2024-03-01',
    ]);
    expect(bucketsBetween('2023-11-29', '2026-11-28', 'month')).toHaveLength(37);
  });

  it('an empty range has no buckets', () => {
    expect(bucketsBetween('2026-03-02', '2026-03-01', 'day')).toEqual([]);
    expect(bucketsBetween('2026-03-09', '2026-03-08', 'week')).toEqual([]);
    expect(bucketsBetween('2026-04-01', '2026-03-31', 'month')).toEqual([]);
  });

  it('says what a bar stands for', () => {
    expect(bucketLabel('2026-03-02', 'day')).toBe('Mar 2');
    expect(bucketLabel('2026-03-02', 'week')).toBe('week of Mar 2');
    expect(bucketLabel('2026-03-01', 'month')).toBe('Mar 2026');
    expect(bucketTitle('2026-03-02', 'day')).toBe('Mar 2, 2026');
    expect(bucketTitle('2025-03-03', 'week')).toBe('week of Mar 3, 2025');
    expect(bucketTitle('2026-03-01', 'month')).toBe('March 2026');
  });
});
