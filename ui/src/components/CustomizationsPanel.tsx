// The session's Customizations panel (beside the chat): rules, agents,
// skills, prompts, hooks, MCP servers and plugins the host found for this
// session, each with an on/off switch and the scope the switch applies to
// (this session / this folder / everywhere), what each scope decided,
// badges (read by the agent itself, restart pending, shadowed, not given
// to the agent) and a folder's load problem in words. Every string from the
// host is rendered as text. With `onEdit`, every entry has an Edit button
// (an MCP server or a hook in a TOML file: Edit file, as text), a plugin
// its manifest's, a writable folder of agents, skills, prompts or rules a
// New button, and a JSON file of MCP servers or hooks a New button too
// (the editor is `CustomizationEditor`).
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, errorText } from '../ipc';
import {
  creatable,
  defaultFolder,
  defaultSettingsFile,
  editable,
  editableAsText,
  entryForm,
  FORMS,
  type NewKind,
  newFileUri,
  newNameProblem,
  template,
} from '../state/customization-forms';
import {
  badges,
  type CustomizationContainer,
  type CustomizationItem,
  type CustomizationsView,
  decisionAt,
  decisionsText,
  defaultScope,
  type Group,
  groupCustomizations,
  isActive,
  loadProblem,
  overriddenBy,
  pathOf,
  SCOPES,
  type Source,
  scopeOwner,
  type ToggleScope,
  toggleArgs,
} from '../state/customizations';
import type { EditTarget } from './CustomizationEditor';
import { McpTestOutcome, useMcpTest } from './McpTest';
import { RestartAgentBar } from './RestartAgentBar';

export interface PanelProps {
  host: string;
  session: string;
  view: CustomizationsView | null;
  /** The session's agent id (`hangar.readBy` names agents by id). */
  provider: string;
  /** Its display name. */
  agentLabel: string;
  onClose: () => void;
  /** Open the editor on a file (existing, or new from a template). */
  onEdit?: (target: EditTarget) => void;
  /** A host's user-level customizations with no session: no switches (a
   * decision belongs to a session), no Test (it runs in a session's folder). */
  hostOnly?: boolean;
}

export function CustomizationsPanel(p: PanelProps) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const groups = groupCustomizations(p.view, p.hostOnly);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && !e.defaultPrevented) {
      e.preventDefault();
      p.onClose();
    }
  };
  return (
    <aside
      id="customizations-panel"
      class="cust-panel"
      aria-labelledby="cust-title"
      data-testid="customizations-panel"
      onKeyDown={onKey}
    >
      <header class="cust-head">
        <h2 id="cust-title" tabIndex={-1} ref={heading}>
          {p.hostOnly ? `What ${p.agentLabel} reads under home` : 'Customizations'}
        </h2>
        <span class="spacer" />
        <button type="button" onClick={p.onClose} aria-label="Close customizations" title="Close (Escape)">
          ✕
        </button>
      </header>
      {!p.view ? (
        <p class="muted small cust-intro">Loading…</p>
      ) : !p.view.reported ? (
        <p class="muted small cust-intro" data-testid="cust-unreported">
          This host does not report customizations for this session.
        </p>
      ) : (
        <>
          {p.hostOnly ? (
            <p class="muted small cust-intro" data-testid="cust-host-intro">
              What {p.agentLabel} reads from your home folder on this host, and the MCP servers the host gives every
              agent. Turn entries on or off in a session’s panel.
            </p>
          ) : (
            <p class="muted small cust-intro">
              Files the host found for {p.view.workspace ? pathOf(p.view.workspace) : 'this session'} and your home
              folder. A switch applies to the scope picked beside it; the most specific decision wins.
            </p>
          )}
          {!p.hostOnly && restartPending(p.view) && (
            <RestartAgentBar host={p.host} session={p.session} agentLabel={p.agentLabel} />
          )}
          {groups.map((g) => (
            <section class="cust-group" data-testid="cust-group" data-kind={g.kind} key={g.kind}>
              <h3>
                {g.label} <span class="count muted">{g.count}</span>
              </h3>
              {g.sources.length === 0 && (
                <p class="muted small cust-empty" data-testid="cust-empty">
                  {g.empty}
                </p>
              )}
              {(() => {
                // No folder of this kind yet: offer the agent's own project folder.
                const folder = p.onEdit && p.view?.workspace && newFolder(g, p.provider);
                return (
                  folder &&
                  creatable(g.kind) && (
                    <NewFile
                      kind={g.kind}
                      dir={`${p.view?.workspace?.replace(/\/+$/, '')}/${folder}`}
                      readBy={[p.provider]}
                      panel={p}
                      taken={[]}
                      where={folder}
                    />
                  )
                );
              })()}
              {(g.kind === 'mcpServer' || g.kind === 'hook') && <FirstEntry kind={g.kind} group={g} panel={p} />}
              {g.sources.map((s) => (
                <SourceBlock key={s.uri} source={s} workspace={p.view?.workspace ?? null} panel={p} />
              ))}
            </section>
          ))}
        </>
      )}
    </aside>
  );
}

function SourceBlock({ source, workspace, panel }: { source: Source; workspace: string | null; panel: PanelProps }) {
  const c = source.container;
  const problem = loadProblem(c);
  return (
    <div class="cust-source" data-testid="cust-source">
      {c ? (
        <ItemRow
          item={c.item}
          container={null}
          label={source.label}
          head
          panel={panel}
          meta={containerMeta(c)}
          plugin={c.item.kind === 'plugin' ? c : undefined}
        />
      ) : (
        <div class="cust-source-label muted small" title={pathOf(source.uri)}>
          {source.label}
        </div>
      )}
      {problem && (
        <p class={`small ${c?.load === 'loading' ? 'muted' : 'error'}`} data-testid="cust-load-problem">
          {problem}
        </p>
      )}
      {c && panel.onEdit && c.item.kind === 'directory' && c.writable && editable(c.contents) && (
        <NewFile
          kind={c.contents}
          dir={c.item.uri}
          readBy={c.item.readBy}
          panel={panel}
          taken={source.items.map((it) => it.name)}
        />
      )}
      {panel.onEdit &&
        entryFiles(source).map(({ uri, kind }) => (
          <button
            type="button"
            class="link small cust-new"
            data-testid="cust-new-entry"
            data-kind={kind}
            onClick={() =>
              panel.onEdit?.({
                uri,
                kind,
                readBy: source.items.find((it) => it.uri === uri)?.readBy ?? [],
                at: null,
                title: `New ${kind === 'hook' ? 'hook' : 'MCP server'} in ${pathOf(uri, workspace)}`,
              })
            }
          >
            New {kind === 'hook' ? 'hook' : 'MCP server'} in {pathOf(uri, workspace)}
          </button>
        ))}
      {source.items.length > 0 && (
        <ul class="cust-items">
          {source.items.map((it) => (
            <li key={it.id}>
              <ItemRow item={it} container={c} label={it.name} panel={panel} workspace={workspace} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A container's facts for its head row: project or home, version, read-only. */
function containerMeta(c: CustomizationContainer): string {
  const parts: string[] = [];
  if (c.scope) parts.push(c.scope === 'user' ? 'home' : 'project');
  if (c.version) parts.push(`v${c.version}`);
  if (c.item.kind === 'directory' && !c.writable) parts.push('read-only');
  return parts.join(' · ');
}

function ItemRow({
  item,
  container,
  label,
  panel,
  head,
  meta,
  workspace,
  plugin,
}: {
  item: CustomizationItem;
  container: CustomizationContainer | null;
  label: string;
  panel: PanelProps;
  head?: boolean;
  meta?: string;
  workspace?: string | null;
  /** A plugin's head row: its manifest has a form. */
  plugin?: CustomizationContainer;
}) {
  const [scope, setScope] = useState<ToggleScope>(defaultScope(item));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const active = isActive(item, container);
  const decided = decisionAt(item, scope);
  const wins = overriddenBy(item, scope);
  const hasDecision = item.decisions.decidedBy != null;
  // A folder's or plugin's head leaves who reads the files to its entries.
  const bs = badges(item, container, panel.provider, panel.agentLabel).filter(
    (b) => !head || (b.key !== 'readBy' && b.key !== 'unused'),
  );
  // The host's note, where the switch does less than it seems: the agent reads
  // the file itself, does not use it, or gets the change only at its next start.
  const explain = item.note && (item.appliedBy === 'agent' || item.appliedBy === 'none' || item.restartPending);
  const send = async (enabled: boolean | null) => {
    setBusy(true);
    setError('');
    try {
      await call('customizations.toggle', toggleArgs(panel.host, panel.session, item.id, scope, enabled));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  // An MCP server's Test: started on the session's host, its tools listed.
  const { testing, tested, test: testMcp } = useMcpTest(panel.host, panel.session, item.id);
  const hasForm = (item.kind === 'mcpServer' || item.kind === 'hook') && entryForm(item.uri, item.at);
  const switchLabel = `${label}: ${item.enabled ? 'on' : 'off'}`;
  return (
    <div
      class={`cust-item ${head ? 'head' : ''} ${active ? '' : 'off'}`}
      data-testid={head ? 'cust-container' : 'cust-item'}
      data-kind={item.kind}
      data-name={item.name}
      data-enabled={String(item.enabled)}
    >
      <div class="cust-row">
        {!panel.hostOnly && (
          <button
            type="button"
            role="switch"
            class="switch"
            aria-checked={item.enabled}
            aria-label={switchLabel}
            title={`Turn ${item.enabled ? 'off' : 'on'} for ${SCOPES.find((s) => s.scope === scope)?.label.toLowerCase()}`}
            disabled={busy}
            data-testid="cust-switch"
            onClick={() => send(!item.enabled)}
          >
            <span class="knob" />
          </button>
        )}
        <span class="cust-name" title={pathOf(item.uri, workspace)}>
          {label}
        </span>
        {meta && <span class="muted small">{meta}</span>}
        <span class="spacer" />
        {item.kind === 'mcpServer' && !panel.hostOnly && (
          <button
            type="button"
            class="link small"
            disabled={testing}
            data-testid="cust-mcp-test"
            title="Start it on the host and list its tools"
            onClick={testMcp}
          >
            {testing ? 'Testing…' : 'Test'}
          </button>
        )}
        {panel.onEdit && hasForm && (
          <button
            type="button"
            class="link small"
            data-testid="cust-edit"
            onClick={() =>
              (item.kind === 'mcpServer' || item.kind === 'hook') &&
              panel.onEdit?.({ uri: item.uri, kind: item.kind, readBy: item.readBy, at: item.at, id: item.id })
            }
          >
            Edit
          </button>
        )}
        {panel.onEdit && plugin?.manifest && (
          <button
            type="button"
            class="link small"
            data-testid="cust-edit-plugin"
            title={`Edit ${pathOf(plugin.manifest, workspace)}`}
            onClick={() =>
              plugin.manifest &&
              panel.onEdit?.({
                uri: plugin.manifest,
                kind: 'plugin',
                readBy: item.readBy,
                at: '',
                parts: plugin.children.map((ch) => ({ kind: ch.kind, name: ch.name })),
              })
            }
          >
            Edit
          </button>
        )}
        {panel.onEdit && editableAsText(item.kind) && !hasForm && (
          <button
            type="button"
            class="link small"
            data-testid="cust-edit-file"
            title={`Edit ${pathOf(item.uri, workspace)} as text`}
            onClick={() =>
              panel.onEdit?.({
                uri: item.uri,
                kind: 'file',
                readBy: item.readBy,
                title: `${label}: ${pathOf(item.uri, workspace)}`,
              })
            }
          >
            Edit file
          </button>
        )}
        {panel.onEdit && editable(item.kind) && (
          <button
            type="button"
            class="link small"
            data-testid="cust-edit"
            onClick={() =>
              editable(item.kind) && panel.onEdit?.({ uri: editedFile(item), kind: item.kind, readBy: item.readBy })
            }
          >
            Edit
          </button>
        )}
        {!panel.hostOnly && (
          <select
            class="cust-scope small"
            value={scope}
            aria-label={`Where the switch for ${label} applies`}
            data-testid="cust-scope"
            onChange={(e) => setScope((e.target as HTMLSelectElement).value as ToggleScope)}
          >
            {SCOPES.map((s) => (
              <option value={s.scope} disabled={s.scope === 'workspace' && !panel.view?.workspace}>
                {s.label}
              </option>
            ))}
          </select>
        )}
      </div>
      {item.description && <p class="cust-desc small muted">{item.description}</p>}
      {!panel.hostOnly && (hasDecision || wins) && (
        <p class="cust-decisions small muted" data-testid="cust-decisions">
          {decisionsText(item)}
          {wins && ` · ${scopeOwner[wins]} decision wins over this one`}
          {decided != null && (
            <button
              type="button"
              class="link small"
              disabled={busy}
              data-testid="cust-reset"
              onClick={() => send(null)}
            >
              Clear {SCOPES.find((s) => s.scope === scope)?.label.toLowerCase()}
            </button>
          )}
        </p>
      )}
      {bs.length > 0 && (
        <div class="cust-badges">
          {bs.map((b) => (
            <span class={`badge ${b.tone}`} title={b.title} data-testid="cust-badge" data-badge={b.key}>
              {b.text}
            </span>
          ))}
        </div>
      )}
      {explain && <p class="cust-note small muted">{item.note}</p>}
      <McpTestOutcome tested={tested} />
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** Whether a change waits for the agent's next start. */
function restartPending(view: CustomizationsView): boolean {
  return view.containers.some((c) => c.item.restartPending || c.children.some((ch) => ch.restartPending));
}

/** "New MCP server in .mcp.json" (or hook in the agent's settings file)
 * when the project has no such file with entries yet; the editor takes the
 * file as it is if it exists with other settings. */
function FirstEntry({ kind, group, panel }: { kind: 'mcpServer' | 'hook'; group: Group; panel: PanelProps }) {
  const ws = panel.view?.workspace?.replace(/\/+$/, '');
  const settings = defaultSettingsFile(panel.provider, kind);
  if (!panel.onEdit || !ws || !settings) return null;
  const uri = `${ws}/${settings.file}`;
  if (group.sources.some((s) => s.items.some((it) => it.uri === uri))) return null;
  const what = kind === 'hook' ? 'hook' : 'MCP server';
  return (
    <button
      type="button"
      class="link small cust-new"
      data-testid="cust-new-first"
      data-kind={kind}
      onClick={() =>
        panel.onEdit?.({
          uri,
          kind,
          readBy: [panel.provider],
          at: null,
          template: settings.text,
          title: `New ${what} in ${settings.file}`,
        })
      }
    >
      New {what} in {settings.file}
    </button>
  );
}

/** The JSON files of a source's MCP servers or hooks (each gets a New button). */
function entryFiles(source: Source): Array<{ uri: string; kind: 'mcpServer' | 'hook' }> {
  const out: Array<{ uri: string; kind: 'mcpServer' | 'hook' }> = [];
  for (const it of source.items) {
    if (
      (it.kind === 'mcpServer' || it.kind === 'hook') &&
      entryForm(it.uri, it.at) &&
      !out.some((f) => f.uri === it.uri)
    )
      out.push({ uri: it.uri, kind: it.kind });
  }
  return out;
}

/** The file an entry's editor opens (a skill's entry may name its folder). */
function editedFile(item: CustomizationItem): string {
  return item.kind === 'skill' && !/\.md$/i.test(item.uri) ? `${item.uri.replace(/\/+$/, '')}/SKILL.md` : item.uri;
}

/** "New agent" (or skill, prompt, rule) in a writable folder: a name, then the editor on the template. */
function NewFile({
  kind,
  dir,
  readBy,
  panel,
  taken,
  where,
}: {
  kind: NewKind;
  /** The folder the file goes in (it may not exist yet). */
  dir: string;
  readBy: string[];
  panel: PanelProps;
  taken: string[];
  /** Said after the button's words ("in .claude/agents"). */
  where?: string;
}) {
  const [name, setName] = useState<string | null>(null);
  const label = FORMS[kind].label.toLowerCase();
  if (name == null)
    return (
      <button type="button" class="link small cust-new" data-testid="cust-new" onClick={() => setName('')}>
        New {label}
        {where ? ` in ${where}` : ''}
      </button>
    );
  const problem = name ? newNameProblem(kind, name, taken) : null;
  const create = (e: Event) => {
    e.preventDefault();
    if (!name || problem) return;
    panel.onEdit?.({
      uri: newFileUri(kind, dir, name),
      kind,
      readBy,
      template: template(kind, name),
      ...(kind === 'plugin' ? { at: '', parts: [] } : {}),
    });
    setName(null);
  };
  return (
    <form class="cust-new-form small" onSubmit={create} data-testid="cust-new-form">
      <input
        type="text"
        value={name}
        placeholder={`${label} name`}
        aria-label={`The new ${label}'s name`}
        aria-invalid={problem != null}
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key !== 'Escape') return;
          e.preventDefault();
          setName(null);
        }}
        ref={(el) => el?.focus()}
      />
      <button type="submit" disabled={!name || problem != null}>
        Create
      </button>
      {problem && <span class="error">{problem}</span>}
    </form>
  );
}

/** The project folder a new entry of `g`'s kind goes in when the group has no
 * writable folder of it yet (`null`: it has one, or the kind has no form). */
function newFolder(g: Group, provider: string): string | null {
  if (!creatable(g.kind)) return null;
  // Plugins: each is its own folder; New is offered beside the others.
  if (g.kind === 'plugin') return defaultFolder(provider, 'plugin');
  const hasFolder = g.sources.some(
    (s) => s.container?.item.kind === 'directory' && s.container.writable && s.container.contents === g.kind,
  );
  return hasFolder ? null : defaultFolder(provider, g.kind);
}
