// The Usage page (the app menu's "Usage…" for every host, a host menu's
// for that host): tokens or cost split by agent as a plain SVG stacked bar
// chart, a bar a day, week or month by the range's length
// (`state/usage-buckets.ts`), the range's total beside it, and the
// costliest sessions (a click opens one). Only
// what agents reported is shown; a host that did not answer is named with
// why, never left out silently. The days shown: the last 7 / 30 / 90, all
// time, or a custom from–to (`state/usage-range.ts`), asked of the hosts.
import { useEffect, useState } from 'preact/hooks';
import type { UsageReport } from '../gen/UsageReport';
import { call, errorText } from '../ipc';
import { costText, tokensText } from '../state/chat-store';
import { type BucketSize, bucketLabel, bucketTitle, LABEL_WIDTH } from '../state/usage-buckets';
import { agentColor, chartOf, currencyOf, type Measure, type Span, totalOf } from '../state/usage-chart';
import { RANGE_CHOICES, type RangeKind, rangeParams, type UsageRange, utcDay } from '../state/usage-range';
import { Notice } from './Notice';

const WIDTH = 720;
const HEIGHT = 220;
const FOOT = 24;
/** Room above the tallest bar for its total (it was cut at the top). */
const HEAD = 20;
/** Room either side for the first and last bar's label (the last was cut), at least. */
const EDGE = 16;
/** At most this many labels under the bars (every bucket has a bar). */
const BAR_LABELS = 12;
/** What one bar stands for, said beside the chart. */
const BAR_OF: Record<BucketSize, string> = {
  day: 'A bar a day',
  week: 'A bar a week (Monday first)',
  month: 'A bar a month',
};
/** A bar's total is written above it when its slot is this wide (else in its tooltip). */
const TOTAL_LABEL_SLOT = 40;

export function UsagePage({
  host,
  label,
  onOpen,
  onClose,
}: {
  /** One host, or null for all of them. */
  host: string | null;
  label: string;
  onOpen: (host: string, session: string) => void;
  onClose: () => void;
}) {
  const [report, setReport] = useState<UsageReport | null>(null);
  // The days `report` was asked for: the bars are drawn for them, not for
  // a range whose answer has not come yet (its days bucketed the new way
  // would not add up to the total).
  const [span, setSpan] = useState<Span>({ from: null, to: null });
  const [measure, setMeasure] = useState<Measure>('tokens');
  const [error, setError] = useState('');
  const [range, setRange] = useState<UsageRange>({ kind: '30', from: '', to: '' });
  const params = rangeParams(range, new Date());
  const rangeError = 'error' in params ? params.error : '';
  const from = 'error' in params ? null : params.from;
  const to = 'error' in params ? null : params.to;
  useEffect(() => {
    if (rangeError) return;
    let alive = true;
    call('usage.get', { host, from, to }).then(
      (r) => {
        if (!alive) return;
        setReport(r);
        setSpan({ from, to });
        setError('');
      },
      (e) => alive && setError(errorText(e)),
    );
    return () => {
      alive = false;
    };
  }, [host, from, to, rangeError]);
  const day = (key: 'from' | 'to') => (e: Event) => setRange({ ...range, [key]: (e.target as HTMLInputElement).value });
  const chart = report ? chartOf(report.days, measure, span, utcDay(new Date())) : null;
  const currency = report ? currencyOf(report.days) : null;
  const total = report ? totalOf(report.days, measure) : 0;
  const amount = (v: number) => (measure === 'tokens' ? tokensText(v) : costText(v, currency ?? ''));
  const slot = chart && chart.bars.length > 0 ? WIDTH / chart.bars.length : WIDTH;
  // At least a pixel wide, however many days (a custom range of years).
  const barWidth = Math.max(1, Math.min(48, slot * 0.7));
  const bars = chart?.bars.length ?? 0;
  // As many labels as fit, from the last bar back, so the newest always has one.
  const labels = Math.min(BAR_LABELS, Math.floor(WIDTH / LABEL_WIDTH[chart?.size ?? 'day']));
  const labelEvery = Math.ceil(bars / labels);
  // Half a label sticks out past the last bar's middle ("week of Nov 23" was cut).
  const edge = Math.max(EDGE, LABEL_WIDTH[chart?.size ?? 'day'] / 2 - slot / 2);
  const dayLabelled = (i: number) => (bars - 1 - i) % labelEvery === 0;
  const totalShown = (total: number) => total > 0 && (slot >= TOTAL_LABEL_SLOT || total === chart?.max);
  const scale = (v: number) => (chart && chart.max > 0 ? (v / chart.max) * (HEIGHT - FOOT - HEAD) : 0);
  return (
    <section class="usage-page" data-testid="usage-page" aria-label={`Usage on ${label}`}>
      <header class="agents-head">
        <h1>
          Usage <span class="muted agents-host">· {label}</span>
        </h1>
        <button type="button" class="link-button" data-testid="usage-close" onClick={onClose}>
          Close
        </button>
      </header>
      <div class="usage-controls usage-range">
        <label>
          Days{' '}
          <select
            data-testid="usage-range"
            value={range.kind}
            onChange={(e) => setRange({ ...range, kind: (e.target as HTMLSelectElement).value as RangeKind })}
          >
            {RANGE_CHOICES.map((c) => (
              <option key={c.kind} value={c.kind}>
                {c.label}
              </option>
            ))}
          </select>
        </label>
        {range.kind === 'custom' && (
          <>
            <label>
              From <input type="date" data-testid="usage-from" value={range.from} onInput={day('from')} />
            </label>
            <label>
              to <input type="date" data-testid="usage-to" value={range.to} onInput={day('to')} />
            </label>
          </>
        )}
        {!rangeError && (from || to) && (
          <span class="muted small" data-testid="usage-range-text">
            {from ?? 'the first day'} – {to ?? 'today'} (UTC)
          </span>
        )}
      </div>
      {rangeError && (
        <p class="error small" role="alert" data-testid="usage-range-error">
          {rangeError}
        </p>
      )}
      {error && <Notice error text={error} onClose={() => setError('')} />}
      {report?.hosts
        .filter((h) => !h.answered)
        .map((h) => (
          <p class="notice small" data-testid="usage-host-missing" key={h.host}>
            {h.label} is not counted: {h.detail}
          </p>
        ))}
      {report && (
        <>
          <div class="usage-controls">
            <button
              type="button"
              aria-pressed={measure === 'tokens'}
              data-testid="usage-tokens"
              onClick={() => setMeasure('tokens')}
            >
              Tokens
            </button>
            <button
              type="button"
              aria-pressed={measure === 'cost'}
              data-testid="usage-cost"
              onClick={() => setMeasure('cost')}
            >
              Cost{currency ? ` (${currency})` : ''}
            </button>
            <span class="muted small" data-testid="usage-total" data-total={total}>
              Total {amount(total)}
            </span>
            {chart && chart.bars.length > 0 && (
              <span class="muted small" data-testid="usage-bucket">
                {BAR_OF[chart.size]}
              </span>
            )}
            <span class="usage-legend">
              {chart?.agents.map((a) => (
                <span key={a} class="small" data-testid="usage-legend-agent">
                  <span class="usage-swatch" style={{ background: agentColor(chart.agents, a) }} /> {a}
                </span>
              ))}
            </span>
          </div>
          {chart && chart.bars.length > 0 ? (
            <svg
              class="usage-chart"
              data-testid="usage-chart"
              viewBox={`${-edge} 0 ${WIDTH + 2 * edge} ${HEIGHT}`}
              role="img"
              aria-label={`${measure === 'tokens' ? 'Tokens' : 'Cost'} per ${chart.size} by agent`}
              data-bucket={chart.size}
            >
              <line class="usage-axis" x1={0} x2={WIDTH} y1={HEIGHT - FOOT} y2={HEIGHT - FOOT} />
              {chart.bars.map((b, i) => {
                const x = i * slot + (slot - barWidth) / 2;
                return (
                  <g key={b.day} data-testid="usage-bar" data-day={b.day} data-total={b.total}>
                    {b.segments.map((s) => (
                      <rect
                        key={s.agent}
                        data-testid="usage-segment"
                        data-agent={s.agent}
                        x={x}
                        width={barWidth}
                        y={HEIGHT - FOOT - scale(s.base + s.value)}
                        height={Math.max(1, scale(s.value))}
                        fill={agentColor(chart.agents, s.agent)}
                      >
                        <title>{`${bucketTitle(b.day, chart.size)} · ${s.agent}: ${amount(s.value)}`}</title>
                      </rect>
                    ))}
                    {dayLabelled(i) && (
                      <text x={x + barWidth / 2} y={HEIGHT - 8} text-anchor="middle" class="usage-day">
                        {bucketLabel(b.day, chart.size)}
                      </text>
                    )}
                    {totalShown(b.total) && (
                      <text
                        x={x + barWidth / 2}
                        y={HEIGHT - FOOT - scale(b.total) - 3}
                        text-anchor="middle"
                        class="usage-day"
                      >
                        {amount(b.total)}
                      </text>
                    )}
                  </g>
                );
              })}
            </svg>
          ) : (
            <p class="muted" data-testid="usage-empty">
              {measure === 'tokens' ? 'No agent reported tokens' : 'No agent reported a cost'}
              {from || to ? ' in these days.' : ' yet.'}
            </p>
          )}
          <h2>Costliest sessions</h2>
          {report.sessions.length === 0 ? (
            <p class="muted small">None with reported usage.</p>
          ) : (
            <table class="rules-table" data-testid="usage-sessions">
              <thead>
                <tr>
                  <th>Session</th>
                  <th>Agent</th>
                  {host === null && <th>Host</th>}
                  <th>Tokens</th>
                  <th>Cost</th>
                </tr>
              </thead>
              <tbody>
                {report.sessions.map((s) => (
                  <tr key={`${s.host} ${s.session}`} data-testid="usage-session">
                    <td>
                      <button type="button" class="link" onClick={() => onOpen(s.host, s.session)}>
                        {s.title || 'Untitled session'}
                      </button>
                    </td>
                    <td>{s.agent}</td>
                    {host === null && <td>{s.hostLabel}</td>}
                    <td>{tokensText(s.tokens)}</td>
                    <td>{s.cost ? costText(s.cost.amount, s.cost.currency) : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
