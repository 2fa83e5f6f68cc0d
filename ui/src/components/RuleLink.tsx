// "Allowed by rule `npm test`" (or denied) on a tool call a host's rule
// answered, the pattern a link to the rule on the Rules page. The pattern
// is read once per host and rule from `rules.list`; until then (or if the
// rule is gone) the link says "a rule".
import { useEffect, useState } from 'preact/hooks';
import { call } from '../ipc';
import { ruleVerdictText } from '../state/rules';

/** Each host's rule patterns by id, as last read. */
const patterns = new Map<string, Map<string, string>>();

/** Keep a host's rule patterns as just read (the Rules page's list). */
export function rememberPatterns(host: string, rules: { id: string; pattern: string }[]) {
  patterns.set(host, new Map(rules.map((r) => [r.id, r.pattern])));
}

function known(host: string, id: string): string | undefined {
  return patterns.get(host)?.get(id);
}

export function RuleLink({
  host,
  rule,
  status,
  onOpen,
}: {
  host: string;
  rule: string;
  status: string;
  onOpen?: (rule: string) => void;
}) {
  const [pattern, setPattern] = useState(known(host, rule));
  useEffect(() => {
    if (pattern) return;
    let alive = true;
    call('rules.list', { host, folder: null })
      .then((v) => {
        rememberPatterns(host, v.rules);
        if (alive) setPattern(known(host, rule));
      })
      .catch(() => {});
    return () => {
      alive = false;
    };
  }, [host, rule]);
  const name = pattern ? <code>{pattern}</code> : 'a rule';
  return (
    <p class={`rule-verdict small ${status === 'cancelled' ? 'denied' : 'allowed'}`} data-testid="rule-verdict">
      {ruleVerdictText(status)}{' '}
      {onOpen ? (
        <button type="button" class="link-button" data-testid="rule-link" onClick={() => onOpen(rule)}>
          {name}
        </button>
      ) : (
        name
      )}
    </p>
  );
}
