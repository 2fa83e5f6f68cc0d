// A tool call: status, the full input, file-edit diffs, the commands it ran
// in terminals (TerminalOutput), the result, and
// the inline confirmation card with the options the host sent and, on a
// host with approval rules, *Always allow…* / *Never allow…* (a rule made
// from the confirmation, which then answers it). A tool call a rule
// answered says so. The agent's plan (a tool call named `plan`) is a
// checklist that updates in place.

import { useState } from 'preact/hooks';
import type { DiffView } from '../gen/DiffView';
import type { RuleDecision } from '../gen/RuleDecision';
import type { RuleDraft } from '../gen/RuleDraft';
import type { ToolCallPart } from '../gen/ToolCallPart';
import { call } from '../ipc';
import { type ToolCallView, toolInputText } from '../state/chat-store';
import { confirmationOptions, type OptionView, shortcutKeys } from '../state/composer';
import { planItems, planProgress } from '../state/plan';
import { answeringOption, draftFrom, type RuleContext } from '../state/rules';
import { toolStatusWords } from '../state/tool-status';
import { LazyTerminal } from './LazyTerminal';
import { RuleForm } from './RuleForm';
import { RuleLink } from './RuleLink';
import type { ReadTerminal } from './TerminalOutput';

const PLAN_MARK = { done: '✓', doing: '◐', todo: '○' } as const;
const PLAN_STATE = { done: 'done', doing: 'in progress', todo: 'to do' } as const;

/** The agent's plan: its entries with their states, and the progress. */
function Plan({ text, running }: { text: string; running: boolean }) {
  const items = planItems(text);
  return (
    <div class="tool-call plan" data-testid="plan">
      <div class="tool-head">
        <span class="tool-name">Plan</span>
        <span class="badge" data-testid="plan-progress">
          {planProgress(items)}
        </span>
        {running && <span class="muted small">updating</span>}
      </div>
      <ul class="plan-items">
        {items.map((i) => (
          <li class={`plan-item ${i.state}`} data-state={i.state} title={PLAN_STATE[i.state]}>
            <span class="plan-mark" aria-label={PLAN_STATE[i.state]}>
              {PLAN_MARK[i.state]}
            </span>{' '}
            <span class="plan-text">{i.text}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Diff({ d }: { d: DiffView }) {
  return (
    <div class="diff" data-testid="diff">
      <div class="diff-head">
        <code>{decodeURIComponent(String(d.path).replace(/^file:\/\//, ''))}</code>
        <span class="add">+{d.added ?? 0}</span> <span class="del">−{d.removed ?? 0}</span>
      </div>
      <pre>
        {d.lines.map((l) => (
          <div class={`dl ${l[0] === '+' ? 'add' : l[0] === '-' ? 'del' : ''}`}>
            {l[0]} {l[1]}
          </div>
        ))}
      </pre>
      {d.truncated && <p class="muted small">Diff cut at 2,000 lines.</p>}
    </div>
  );
}

/** What a tool call needs for approval rules: its session, and the Rules page. */
export interface ToolCallRules {
  context: RuleContext;
  /** Open the Rules page at this rule. */
  openRule: (rule: string) => void;
}

export function ToolCall({
  part,
  onConfirm,
  readTerminal,
  rules,
}: {
  part: ToolCallPart;
  onConfirm?: (tc: ToolCallView, o: OptionView) => void;
  /** Reads a terminal the tool call shows (its output follows live). */
  readTerminal?: ReadTerminal;
  rules?: ToolCallRules;
}) {
  /** The rule being made from this confirmation: allow or deny. */
  const [making, setMaking] = useState<RuleDecision | null>(null);
  const tc = part.toolCall;
  const status = tc.status;
  const input = toolInputText(tc);
  const result = tc.result;
  const pending = status === 'pending-confirmation';
  const name = tc.displayName || tc.toolName;
  const distinct = (t: string) => (t && t !== name ? t : '');
  const message = distinct(tc.invocationMessage || tc.intention || '');
  const confirmTitle = distinct(tc.confirmationTitle ?? '');
  const past = distinct(tc.pastTenseMessage ?? '');
  const options = confirmationOptions(tc);
  const keys = shortcutKeys(options);
  if (tc.toolName === 'plan' && tc.toolCallId.startsWith('plan-')) {
    return <Plan text={result} running={status === 'running'} />;
  }
  return (
    <div class={`tool-call ${status}`} data-testid="tool-call" data-status={status}>
      <div class="tool-head">
        <span class="tool-name">{name}</span>
        <span class={`badge ${status === 'completed' && !tc.success ? 'failed' : status}`}>
          {toolStatusWords(status, tc.success)}
        </span>
      </div>
      {message && <p class="tool-msg">{message}</p>}
      {pending && confirmTitle && <p class="confirm-title">{confirmTitle}</p>}
      {/* Open while the choice is pending, then closed. A new element rather
          than toggling `open`: WebKitGTK keeps the closed content's height. */}
      {input && (
        <details key={pending ? 'input-pending' : 'input'} open={pending} class="tool-input">
          <summary>Input</summary>
          <pre data-testid="tool-input">{input}</pre>
        </details>
      )}
      {part.diffs.map((d) => (
        <Diff d={d} />
      ))}
      {part.terminals.map((t) => (
        <LazyTerminal key={t.uri} link={t} read={readTerminal} />
      ))}
      {pending && onConfirm && (
        <div class="confirm-card" data-testid="confirmation">
          {options.map((o, i) => (
            <button
              type="button"
              class={o.kind === 'approve' ? 'primary' : o.kind === 'deny' ? 'danger' : ''}
              data-testid={`confirm-${o.kind}`}
              onClick={() => onConfirm(tc, o)}
              title={`Shortcut: ${keys[i].join(' or ')} (when no field or button has focus)`}
            >
              {o.label}{' '}
              {keys[i].map((k) => (
                <kbd data-testid="shortcut">{k}</kbd>
              ))}
            </button>
          ))}
          {rules && !making && (
            <span class="rule-buttons">
              <button type="button" data-testid="rule-always-allow" onClick={() => setMaking('allow')}>
                Always allow…
              </button>
              <button type="button" data-testid="rule-never-allow" onClick={() => setMaking('deny')}>
                Never allow…
              </button>
            </span>
          )}
        </div>
      )}
      {pending && onConfirm && rules && making && (
        <RuleForm
          key={making}
          initial={draftFrom(tc.ruleSuggestion, making, rules.context)}
          context={rules.context}
          saveLabel={making === 'allow' ? 'Save rule and allow' : 'Save rule and deny'}
          onSave={(draft: RuleDraft) =>
            call('rules.save', { host: rules.context.host, rule: draft }).then(() => {
              const o = answeringOption(options, draft.decision);
              if (o) onConfirm(tc, o);
              setMaking(null);
            })
          }
          onCancel={() => setMaking(null)}
        />
      )}
      {tc.rule && rules && (
        <RuleLink host={rules.context.host} rule={tc.rule} status={status} onOpen={rules.openRule} />
      )}
      {status === 'completed' && (
        <div class="tool-result" data-testid="tool-result">
          {past && <p class="small">{past}</p>}
          {result && <pre>{result}</pre>}
        </div>
      )}
      {status === 'cancelled' && <p class="muted small">Cancelled{tc.reason ? `: ${tc.reason}` : ''}</p>}
    </div>
  );
}
