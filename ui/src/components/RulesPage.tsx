// A host's approval rules (the host menu's "Rules…", and Settings): each
// rule with its scope, tool, pattern, decision, hits and who made it when;
// add, edit and delete (with a confirm). Below, the agents' own remembered
// rules, read-only, with the file each lives in. The rules live on the
// host, so a remote host's page shows and changes that host's rules; a host
// that is down says so.
import { useEffect, useState } from 'preact/hooks';
import type { RuleDraft } from '../gen/RuleDraft';
import type { RulesView } from '../gen/RulesView';
import type { RuleView } from '../gen/RuleView';
import { call, errorText } from '../ipc';
import { agentName, createdText, pathOf, scopeText, TOOL_TEXT } from '../state/rules';
import { ConfirmDialog } from './ConfirmDialog';
import { Notice } from './Notice';
import { RuleForm } from './RuleForm';
import { rememberPatterns } from './RuleLink';

const NEW_RULE: RuleDraft = { scope: { kind: 'host' }, tool: 'shell', pattern: '', decision: 'allow' };

export function RulesPage({
  host,
  label,
  connected,
  rule,
  folder,
  onClose,
}: {
  host: string;
  label: string;
  /** Whether the host is connected now. */
  connected: boolean;
  /** A rule to show first (a tool call's "Allowed by rule" link). */
  rule?: string;
  /** A session's folder (opened from its chat): its agents' project rules are listed too. */
  folder?: string | null;
  onClose: () => void;
}) {
  const [view, setView] = useState<RulesView | null>(null);
  const [error, setError] = useState('');
  /** The rule being edited (its id), or `new`. */
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<RuleView | null>(null);

  const load = () =>
    call('rules.list', { host, folder: folder ?? null }).then(
      (v) => {
        rememberPatterns(host, v.rules);
        setView(v);
        setError('');
      },
      (e) => setError(errorText(e)),
    );
  useEffect(() => {
    if (connected) load();
  }, [host, connected]);
  useEffect(() => {
    if (rule && view) document.querySelector(`[data-rule-id="${CSS.escape(rule)}"]`)?.scrollIntoView();
  }, [rule, view != null]);

  const save = (draft: RuleDraft) =>
    call('rules.save', { host, rule: draft }).then(() => {
      setEditing(null);
      return load();
    });
  const remove = (r: RuleView) =>
    call('rules.delete', { host, id: r.id }).then(
      () => {
        setRemoving(null);
        load();
      },
      (e) => {
        setRemoving(null);
        setError(errorText(e));
      },
    );

  return (
    <section class="rules-page" data-testid="rules-page" aria-label={`Approval rules on ${label}`}>
      <header class="agents-head">
        <h1>
          Approval rules <span class="muted agents-host">· {label}</span>
        </h1>
        <button type="button" class="link-button" data-testid="rules-close" onClick={onClose}>
          Close
        </button>
      </header>
      {!connected && (
        <p class="notice small" data-testid="rules-host-down">
          {label} is not connected: its rules live on it and can be seen and changed once it is back.
        </p>
      )}
      {error && <Notice error text={error} onClose={() => setError('')} />}
      {view?.movedAside && (
        <p class="error small" role="alert">
          The host could not read its rules file and moved it aside to <code>{view.movedAside}</code>.
        </p>
      )}
      {connected && !view && !error && <p class="muted">Asking {label} for its rules…</p>}
      {view && (
        <>
          <div class="custom-agents-head">
            <h2>Rules of this host</h2>
            <button type="button" data-testid="rule-add" onClick={() => setEditing('new')} disabled={editing != null}>
              Add rule…
            </button>
          </div>
          {editing === 'new' && (
            <RuleForm
              initial={NEW_RULE}
              saveLabel="Add rule"
              decisionEditable
              onSave={save}
              onCancel={() => setEditing(null)}
            />
          )}
          {view.rules.length === 0 && editing !== 'new' && (
            <div class="rules-empty muted" data-testid="rules-empty">
              <p>No rules yet.</p>
              <p class="small">
                A rule answers an agent's confirmation on this host by itself, for every agent: <em>allow</em> runs the
                tool call without asking, <em>deny</em> refuses it. Make one from a confirmation in a chat with{' '}
                <strong>Always allow…</strong> or <strong>Never allow…</strong>, or add one here. A rule applies to one
                session, one folder or the whole host; the narrower scope wins, and deny wins over allow.
              </p>
            </div>
          )}
          {view.rules.length > 0 && (
            <table class="rules-table" data-testid="rules-table">
              <thead>
                <tr>
                  <th>Decision</th>
                  <th>Tool</th>
                  <th>Pattern</th>
                  <th>Applies to</th>
                  <th>Hits</th>
                  <th>Created</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {view.rules.map((r) =>
                  editing === r.id ? (
                    <tr key={r.id} data-rule-id={r.id}>
                      <td colSpan={7}>
                        <RuleForm
                          initial={r}
                          saveLabel="Save"
                          decisionEditable
                          onSave={(d) => save({ ...d, id: r.id })}
                          onCancel={() => setEditing(null)}
                        />
                      </td>
                    </tr>
                  ) : (
                    <tr key={r.id} data-rule-id={r.id} data-testid="rule-row" class={r.id === rule ? 'highlight' : ''}>
                      <td>
                        <span class={`badge ${r.decision === 'allow' ? 'completed' : 'failed'}`}>
                          {r.decision === 'allow' ? 'Allow' : 'Deny'}
                        </span>
                      </td>
                      <td>{TOOL_TEXT[r.tool]?.label ?? r.tool}</td>
                      <td>
                        <code data-testid="rule-row-pattern">{r.pattern}</code>
                      </td>
                      <td class="small" title={r.scope.uri ?? undefined}>
                        {r.scope.kind === 'session' ? 'One session' : scopeText(r.scope, true)}
                      </td>
                      <td data-testid="rule-row-hits">{r.hits}</td>
                      <td class="small muted">
                        {createdText(r.createdAt)}
                        <br />
                        by {r.createdBy}
                      </td>
                      <td class="rule-row-actions">
                        <button
                          type="button"
                          class="link-button"
                          data-testid="rule-edit"
                          onClick={() => setEditing(r.id)}
                        >
                          Edit
                        </button>
                        <button
                          type="button"
                          class="link-button danger-text"
                          data-testid="rule-delete"
                          onClick={() => setRemoving(r)}
                        >
                          Delete
                        </button>
                      </td>
                    </tr>
                  ),
                )}
              </tbody>
            </table>
          )}
          <div class="custom-agents-head">
            <h2>The agents' own rules</h2>
          </div>
          <p class="muted small">
            Rules an agent remembers itself, read from its settings on {label}
            {folder ? (
              <>
                {' '}
                and in <code>{pathOf(folder)}</code>
              </>
            ) : null}
            . The agent applies them; Hangar shows them here and never changes them.
          </p>
          {view.agentRules.length === 0 ? (
            <p class="muted small" data-testid="agent-rules-empty">
              None found (Claude Code's <code>permissions</code> in <code>~/.claude/settings.json</code>, Codex's{' '}
              <code>~/.codex/config.toml</code> and <code>~/.codex/rules/</code>, Gemini CLI's and Qwen Code's{' '}
              <code>settings.json</code>, <code>trustedFolders.json</code> and policies).
            </p>
          ) : (
            <table class="rules-table" data-testid="agent-rules">
              <thead>
                <tr>
                  <th>Agent</th>
                  <th>Decision</th>
                  <th>Rule</th>
                  <th>File</th>
                </tr>
              </thead>
              <tbody>
                {view.agentRules.map((a) => (
                  <tr key={`${a.file}:${a.decision}:${a.rule}`} data-testid="agent-rule" data-agent={a.agent}>
                    <td>{agentName(a.agent)}</td>
                    <td>{a.decision}</td>
                    <td>
                      <code>{a.rule}</code>
                    </td>
                    <td class="small" title={a.scope}>
                      <code>{pathOf(a.file)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {view.agentRuleErrors.map((e) => (
            <p class="error small" role="alert" key={e.file}>
              <code>{e.file}</code> could not be read: {e.error}
            </p>
          ))}
        </>
      )}
      {removing && (
        <ConfirmDialog
          title="Delete this rule?"
          message={`${removing.decision === 'allow' ? 'Allow' : 'Deny'} ${TOOL_TEXT[removing.tool]?.label ?? removing.tool} "${removing.pattern}": agents will be asked again.`}
          confirmLabel="Delete"
          onConfirm={() => remove(removing)}
          onCancel={() => setRemoving(null)}
          testid="rule-delete-confirm"
        />
      )}
    </section>
  );
}
