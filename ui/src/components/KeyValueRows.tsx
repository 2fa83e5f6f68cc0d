// Name/value rows (an MCP server's environment or headers) with values
// masked until the person asks to see one: they are often API keys. A
// `${VAR}` reference names a secret without holding it, so it is shown.
import { useState } from 'preact/hooks';
import type { Pair } from '../state/mcp-entry';

export function KeyValueRows({
  label,
  rows,
  keyPlaceholder,
  testid,
  onChange,
}: {
  label: string;
  rows: Pair[];
  keyPlaceholder: string;
  testid: string;
  onChange: (rows: Pair[]) => void;
}) {
  const [shown, setShown] = useState<Set<number>>(new Set());
  const set = (i: number, p: Partial<Pair>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...p } : r)));
  const toggle = (i: number) => {
    const next = new Set(shown);
    next.has(i) ? next.delete(i) : next.add(i);
    setShown(next);
  };
  return (
    <fieldset class="cust-kv" data-testid={testid}>
      <legend>{label}</legend>
      {rows.map((r, i) => {
        const reference = /^\$\{[A-Za-z_][A-Za-z0-9_:-]*\}$/.test(r.value);
        const visible = reference || shown.has(i);
        return (
          <div class="cust-kv-row" data-testid="cust-kv-row">
            <input
              type="text"
              value={r.key}
              placeholder={keyPlaceholder}
              aria-label={`${label}: name ${i + 1}`}
              onInput={(e) => set(i, { key: (e.target as HTMLInputElement).value })}
            />
            <input
              type={visible ? 'text' : 'password'}
              value={r.value}
              placeholder="value, or ${VAR}"
              aria-label={`${label}: value of ${r.key || `row ${i + 1}`}`}
              data-testid="cust-kv-value"
              autoComplete="off"
              onInput={(e) => set(i, { value: (e.target as HTMLInputElement).value })}
            />
            {!reference && (
              <button
                type="button"
                class="link small"
                aria-pressed={visible}
                data-testid="cust-kv-reveal"
                onClick={() => toggle(i)}
              >
                {visible ? 'Hide' : 'Show'}
              </button>
            )}
            <button
              type="button"
              class="link small"
              aria-label={`Remove ${r.key || `row ${i + 1}`}`}
              onClick={() => onChange(rows.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </div>
        );
      })}
      <button
        type="button"
        class="link small"
        data-testid={`${testid}-add`}
        onClick={() => onChange([...rows, { key: '', value: '' }])}
      >
        Add
      </button>
    </fieldset>
  );
}
