// The form of one approval rule: its scope, tool, pattern and decision.
// Inline under a confirmation (*Always allow…* / *Never allow…*, the
// pattern prefilled from the host's suggestion) and on the Rules page (add,
// edit). It only edits a draft; the caller saves it, and a refusal from the
// host (its reason) is shown in the form, the draft kept.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { RuleDraft } from '../gen/RuleDraft';
import type { RuleScope } from '../gen/RuleScope';
import type { RuleScopeKind } from '../gen/RuleScopeKind';
import type { RuleTool } from '../gen/RuleTool';
import { errorText } from '../ipc';
import { RULE_TOOLS, type RuleContext, scopeIn, scopeText, TOOL_TEXT } from '../state/rules';

const SCOPE_KINDS: RuleScopeKind[] = ['session', 'folder', 'host'];

export function RuleForm({
  initial,
  context,
  saveLabel,
  onSave,
  onCancel,
  decisionEditable,
}: {
  initial: RuleDraft;
  /** The session the rule is made from; none on the Rules page (scope kept or host-wide). */
  context?: RuleContext;
  saveLabel: string;
  /** Save the draft; a rejection's text is shown in the form. */
  onSave: (draft: RuleDraft) => Promise<unknown>;
  onCancel: () => void;
  /** Show allow / deny as a choice (the Rules page). */
  decisionEditable?: boolean;
}) {
  const [draft, setDraft] = useState<RuleDraft>(initial);
  const [error, setError] = useState('');
  const [saving, setSaving] = useState(false);
  // Opened under a confirmation at the foot of the transcript, the form
  // grows below the fold, and focusing its pattern only scrolls that field
  // in: the Save button stayed cut off under the composer (and
  // WebKitWebDriver's click on it missed). Brought wholly into view once.
  const form = useRef<HTMLFormElement>(null);
  useLayoutEffect(() => form.current?.scrollIntoView({ block: 'nearest' }), []);
  const scopes: { kind: RuleScopeKind; scope: RuleScope | null }[] = SCOPE_KINDS.map((kind) => ({
    kind,
    scope: context
      ? scopeIn(kind, context)
      : kind === initial.scope.kind
        ? initial.scope
        : kind === 'host'
          ? { kind }
          : null,
  }));
  const submit = (e: Event) => {
    e.preventDefault();
    setSaving(true);
    onSave(draft).then(
      () => setSaving(false),
      (err) => {
        setSaving(false);
        setError(errorText(err));
      },
    );
  };
  const text = TOOL_TEXT[draft.tool];
  return (
    <form ref={form} class={`rule-form ${draft.decision}`} data-testid="rule-form" onSubmit={submit}>
      <fieldset class="rule-scope">
        <legend>Applies to</legend>
        {scopes.map(
          ({ kind, scope }) =>
            scope && (
              <label key={kind}>
                <input
                  type="radio"
                  name="rule-scope"
                  data-testid={`rule-scope-${kind}`}
                  checked={draft.scope.kind === kind}
                  onChange={() => setDraft({ ...draft, scope })}
                />{' '}
                {scopeText(scope, !context)}
              </label>
            ),
        )}
      </fieldset>
      <div class="rule-fields">
        <label>
          Tool
          <select
            data-testid="rule-tool"
            value={draft.tool}
            onChange={(e) => setDraft({ ...draft, tool: (e.target as HTMLSelectElement).value as RuleTool })}
          >
            {RULE_TOOLS.map((t) => (
              <option value={t}>{TOOL_TEXT[t].label}</option>
            ))}
          </select>
        </label>
        <label class="rule-pattern">
          {text.pattern}
          <input
            type="text"
            data-testid="rule-pattern"
            value={draft.pattern}
            placeholder={text.example}
            spellcheck={false}
            onInput={(e) => setDraft({ ...draft, pattern: (e.target as HTMLInputElement).value })}
          />
        </label>
        {decisionEditable && (
          <label>
            Decision
            <select
              data-testid="rule-decision"
              value={draft.decision}
              onChange={(e) =>
                setDraft({ ...draft, decision: (e.target as HTMLSelectElement).value as RuleDraft['decision'] })
              }
            >
              <option value="allow">Allow</option>
              <option value="deny">Deny</option>
            </select>
          </label>
        )}
      </div>
      {error && (
        <p class="error small" role="alert" data-testid="rule-error">
          {error}
        </p>
      )}
      <div class="rule-actions">
        <button
          type="submit"
          class={draft.decision === 'allow' ? 'primary' : 'danger'}
          data-testid="rule-save"
          disabled={saving || !draft.pattern.trim()}
        >
          {saveLabel}
        </button>
        <button type="button" data-testid="rule-cancel" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
