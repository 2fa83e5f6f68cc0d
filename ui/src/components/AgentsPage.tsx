// A host's agents (the host menu's "Agents…", and the first screen when
// the app starts with no agent): each well-known ACP agent with where it
// is and its version, Install / Update / Remove with a progress bar and
// npm's own words when it fails; custom agents (command, arguments,
// environment) added and edited in a form. Every change is made by the
// host itself, so a remote host's agents are managed the same way, and an
// agent is usable for new sessions the moment it is there. The list is
// asked for again every 600 ms while an install runs, every 5 s otherwise.
import { useEffect, useState } from 'preact/hooks';
import type { AgentsView } from '../gen/AgentsView';
import type { KnownAgentView } from '../gen/KnownAgentView';
import { call, errorText } from '../ipc';
import { agentRow, type CustomForm, emptyCustomForm, fromForm, installFraction, toForm } from '../state/agents';
import { ConfirmDialog } from './ConfirmDialog';
import { KeyValueRows } from './KeyValueRows';
import { Notice } from './Notice';

export function AgentsPage({
  host,
  label,
  firstRun,
  onClose,
}: {
  host: string;
  label: string;
  /** Shown because the app started with no agent. */
  firstRun?: boolean;
  onClose: () => void;
}) {
  const [view, setView] = useState<AgentsView | null>(null);
  const [error, setError] = useState('');
  const [editing, setEditing] = useState<{ form: CustomForm; isNew: boolean } | null>(null);
  const [removing, setRemoving] = useState<{ id: string; name: string; custom: boolean } | null>(null);
  const installing = view?.known.some((a) => a.install && a.install.phase !== 'failed') ?? false;
  const others = view ? startedWith(view) : [];

  const load = () =>
    call('agents.list', { host }).then(
      (v) => {
        setView(v);
        setError('');
      },
      (e) => setError(errorText(e)),
    );
  useEffect(() => {
    load();
    const timer = setInterval(load, installing ? 600 : 5000);
    return () => clearInterval(timer);
  }, [host, installing]);

  const run = (p: Promise<AgentsView>) =>
    p.then(
      (v) => {
        setView(v);
        setError('');
      },
      (e) => setError(errorText(e)),
    );
  const install = (a: KnownAgentView, version: string) => run(call('agents.install', { host, id: a.id, version }));

  return (
    <section class="agents-page" data-testid="agents-page" aria-label={`Agents on ${label}`}>
      <header class="agents-head">
        <h1>
          Agents <span class="muted agents-host">· {label}</span>
        </h1>
        <button type="button" class="link-button" data-testid="agents-close" onClick={onClose}>
          Close
        </button>
      </header>
      {firstRun && (
        <p class="notice" data-testid="agents-first-run">
          No agent is set up on this computer yet. Install one below (Hangar runs it with npm, at the version it is
          tested with), or add your own ACP agent. Then start a session with it.
        </p>
      )}
      {error && <Notice error text={error} onClose={() => setError('')} />}
      {view && !view.npm && (
        <p class="notice small" data-testid="agents-no-npm">
          npm is not installed on {label}: installing an agent needs Node.js 20 or newer with npm (Debian:{' '}
          <code>apt install nodejs npm</code>). Agents already installed and custom agents work without it.
        </p>
      )}
      {view?.customError && (
        <p class="error small" role="alert">
          Custom agents could not be read: {view.customError}
        </p>
      )}
      {!view && !error && <p class="muted">Asking {label} for its agents…</p>}
      {view && (
        <ul class="agent-list" aria-label="Well-known agents">
          {view.known.map((a) => (
            <KnownAgent
              key={a.id}
              agent={a}
              view={view}
              onInstall={(v) => install(a, v)}
              onRemove={() => setRemoving({ id: a.id, name: a.name, custom: false })}
            />
          ))}
        </ul>
      )}
      {others.length > 0 && (
        <p class="muted small" data-testid="agents-started-with">
          Also on this host, given when it was started: {others.join(', ')}.
        </p>
      )}
      {view && (
        <section class="custom-agents" aria-label="Custom agents">
          <div class="custom-agents-head">
            <h2>Custom agents</h2>
            <button
              type="button"
              data-testid="custom-agent-add"
              onClick={() => setEditing({ form: emptyCustomForm, isNew: true })}
            >
              Add custom agent…
            </button>
          </div>
          {view.custom.length === 0 && (
            <p class="muted small">Any program that speaks ACP on its standard input and output can be added here.</p>
          )}
          <ul class="agent-list">
            {view.custom.map((c) => (
              <li class="agent-row" data-testid="custom-agent" data-agent={c.id} key={c.id}>
                <div class="agent-main">
                  <span class="agent-name">{c.name || c.id}</span>
                  <span class="agent-status small muted">
                    <code>{[c.command, ...c.args].join(' ')}</code>
                    {envCount(c.env)}
                    {!view.registered.includes(c.id) && ' · not used: another agent has its id'}
                  </span>
                </div>
                <div class="agent-actions">
                  <button
                    type="button"
                    data-testid="custom-agent-edit"
                    onClick={() => setEditing({ form: toForm(c), isNew: false })}
                  >
                    Edit…
                  </button>
                  <button
                    type="button"
                    data-testid="custom-agent-delete"
                    onClick={() => setRemoving({ id: c.id, name: c.name || c.id, custom: true })}
                  >
                    Delete…
                  </button>
                </div>
              </li>
            ))}
          </ul>
        </section>
      )}
      {editing && (
        <CustomAgentForm
          initial={editing.form}
          isNew={editing.isNew}
          onCancel={() => setEditing(null)}
          onSave={(agent) =>
            call('agents.saveCustom', { host, agent }).then((v) => {
              setView(v);
              setEditing(null);
            })
          }
        />
      )}
      {removing && (
        <ConfirmDialog
          title={removing.custom ? `Delete ${removing.name}?` : `Remove ${removing.name}?`}
          message={
            removing.custom
              ? 'New sessions can no longer use it. Sessions already made with it keep their history.'
              : `Hangar uninstalls it from ${label} with npm. Sessions already made with it keep their history.`
          }
          confirmLabel={removing.custom ? 'Delete' : 'Remove'}
          testid="agent-remove-confirm"
          onCancel={() => setRemoving(null)}
          onConfirm={() => {
            const { id, custom } = removing;
            setRemoving(null);
            run(call(custom ? 'agents.deleteCustom' : 'agents.remove', { host, id }));
          }}
        />
      )}
    </section>
  );
}

/** Agents the host runs that are neither well-known nor custom (`--agent` when it started). */
function startedWith(view: AgentsView): string[] {
  const listed = new Set([...view.known.map((a) => a.id), ...view.custom.map((c) => c.id)]);
  return view.registered.filter((id) => !listed.has(id));
}

/** " · N environment variables", or nothing. */
function envCount(env: Record<string, string>): string {
  const n = Object.keys(env).length;
  return n === 0 ? '' : ` · ${n} environment variable${n === 1 ? '' : 's'}`;
}

function KnownAgent({
  agent,
  view,
  onInstall,
  onRemove,
}: {
  agent: KnownAgentView;
  view: AgentsView;
  onInstall: (version: string) => void;
  onRemove: () => void;
}) {
  const row = agentRow(agent, view);
  const p = agent.install;
  const fraction = p ? installFraction(p) : null;
  return (
    <li class={`agent-row tone-${row.tone}`} data-testid="known-agent" data-agent={agent.id} data-tone={row.tone}>
      <div class="agent-main">
        <span class="agent-name">{agent.name}</span>
        <span class="agent-package small muted">{agent.package}</span>
        <span class="agent-status small" data-testid="agent-status" role={row.tone === 'busy' ? 'status' : undefined}>
          {row.status}
        </span>
        {fraction !== null && (
          <>
            <progress
              class="agent-progress"
              data-testid="agent-progress"
              max={1}
              value={fraction}
              aria-label={`Installing ${agent.name}`}
            />
            {p?.line && <code class="agent-npm-line small muted">{p.line}</code>}
          </>
        )}
        {p?.phase === 'failed' && (
          <pre class="agent-error small" data-testid="agent-error" role="alert">
            {p.error}
          </pre>
        )}
      </div>
      <div class="agent-actions">
        {row.actions.includes('install') && (
          <button type="button" class="primary" data-testid="agent-install" onClick={() => onInstall(row.target)}>
            Install {row.target}
          </button>
        )}
        {row.actions.includes('retry') && (
          <button type="button" data-testid="agent-retry" onClick={() => onInstall(p?.version ?? row.target)}>
            Try again
          </button>
        )}
        {row.actions.includes('update') && (
          <button type="button" data-testid="agent-update" onClick={() => onInstall(row.target)}>
            Update to {row.target}
          </button>
        )}
        {row.actions.includes('remove') && (
          <button type="button" data-testid="agent-remove" onClick={onRemove}>
            Remove…
          </button>
        )}
      </div>
    </li>
  );
}

function CustomAgentForm({
  initial,
  isNew,
  onCancel,
  onSave,
}: {
  initial: CustomForm;
  isNew: boolean;
  onCancel: () => void;
  onSave: (agent: import('../gen/CustomAgentView').CustomAgentView) => Promise<void>;
}) {
  const [form, setForm] = useState<CustomForm>(initial);
  const [problem, setProblem] = useState('');
  const [saving, setSaving] = useState(false);
  const set = (p: Partial<CustomForm>) => {
    setProblem('');
    setForm((f) => ({ ...f, ...p }));
  };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onCancel();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onCancel]);
  const text = (key: 'id' | 'name' | 'command' | 'args') => (e: Event) =>
    set({ [key]: (e.target as HTMLInputElement).value });
  const save = (e: Event) => {
    e.preventDefault();
    const out = fromForm(form);
    if ('problem' in out) {
      setProblem(out.problem);
      return;
    }
    setSaving(true);
    onSave(out.agent).catch((err) => {
      setProblem(errorText(err));
      setSaving(false);
    });
  };
  return (
    <div class="modal-backdrop">
      <form
        class="modal custom-agent-form"
        role="dialog"
        aria-modal="true"
        data-testid="custom-agent-form"
        aria-label="Custom agent"
        onSubmit={save}
      >
        <h2>{isNew ? 'Add a custom agent' : `Edit ${initial.name || initial.id}`}</h2>
        <label>
          Id <span class="muted small">(what sessions name it: letters, digits, - _ .)</span>
          <input type="text" data-testid="custom-agent-id" value={form.id} disabled={!isNew} onInput={text('id')} />
        </label>
        <label>
          Name
          <input
            type="text"
            data-testid="custom-agent-name"
            value={form.name}
            placeholder={form.id}
            onInput={text('name')}
          />
        </label>
        <label>
          Command <span class="muted small">(the program, on the host)</span>
          <input
            type="text"
            data-testid="custom-agent-command"
            value={form.command}
            placeholder="/usr/local/bin/my-agent"
            onInput={text('command')}
          />
        </label>
        <label>
          Arguments <span class="muted small">(as in a shell: quote words with spaces)</span>
          <input
            type="text"
            data-testid="custom-agent-args"
            value={form.args}
            placeholder="--acp"
            onInput={text('args')}
          />
        </label>
        <KeyValueRows
          label="Environment"
          rows={form.env}
          keyPlaceholder="NAME"
          testid="custom-agent-env"
          onChange={(env) => set({ env })}
        />
        <p class="muted small">
          Kept in the host's data folder. Put API keys in the agent's sign-in instead: those go to the host's keyring.
        </p>
        {problem && (
          <p class="error small" role="alert" data-testid="custom-agent-problem">
            {problem}
          </p>
        )}
        <div class="modal-actions">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" class="primary" data-testid="custom-agent-save" disabled={saving}>
            {saving ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </div>
  );
}
