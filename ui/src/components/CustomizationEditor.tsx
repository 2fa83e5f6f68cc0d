// The editor of one customization: an agent, skill, prompt or rule (its
// front matter as a form made for the kind, checked before a save, with a
// warning where an agent that reads the file ignores a field, and its body
// in a code editor), an MCP server, a hook or a plugin's manifest (a form
// over that one entry of a JSON file: `McpServerForm`, `HookForm`,
// `PluginForm`), or the whole file as text (raw mode). Reads and saves go
// through the session's host (`customizations.read` / `.save`), so a remote
// host's files are edited the same way. A save carries the version the edit
// started from: when the file changed on disk since, nothing is written and
// both versions are shown, to save yours over it or take the disk's. A
// change on disk while the editor is open shows the same way (or, with no
// edits yet, is simply taken).
// Ctrl+S saves; closing with unsaved changes asks first. Preview shows the
// body as the transcript renders markdown.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { call, errorText } from '../ipc';
import {
  type EditableKind,
  type Field,
  FORMS,
  fieldProblem,
  fieldWarnings,
  isEntryKind,
  languageOfFile,
  newFileUri,
  newNameProblem,
} from '../state/customization-forms';
import { pathOf } from '../state/customizations';
import { fieldOf, joinFrontmatter, type Split, splitFrontmatter } from '../state/frontmatter';
import { hookFile, removeHandler } from '../state/hook-entry';
import type { RecordedTool } from '../state/hook-verdict';
import { jsonProblem, pathOfPointer, setAt } from '../state/json-entry';
import { CodeEditor } from './CodeEditor';
import { ConfirmDialog } from './ConfirmDialog';
import { type Conflict, ConflictView } from './ConflictView';
import type { EntryFormProps } from './entry-form';
import { HookForm } from './HookForm';
import { Markdown } from './Markdown';
import { McpServerForm } from './McpServerForm';
import { PluginForm, type PluginPart } from './PluginForm';
import { SkillFiles } from './SkillFiles';

export interface EditTarget {
  uri: string;
  kind: EditableKind;
  /** Agent ids that read this file (warnings). */
  readBy: string[];
  /** A new file: its template, written only on save. */
  template?: string;
  /** Just copied or moved here under this name: the `name` field follows. */
  renamed?: string;
  /** The editor's title when not the kind's (a settings file). */
  title?: string;
  /** An MCP server's or a hook's place in its file (`hangar.at`); null: a new one. */
  at?: string | null;
  /** Its customization id (an MCP server's Test). */
  id?: string;
  /** A plugin's components, as the host found them. */
  parts?: PluginPart[];
}

type Value = string | string[] | boolean | null;

export function CustomizationEditor({
  host,
  session,
  target,
  workspace,
  onClose,
  onOpen,
  suggestions = {},
  recorded = [],
}: {
  host: string;
  session: string;
  target: EditTarget;
  workspace: string | null;
  onClose: () => void;
  /** Open the editor on another file (after Duplicate or Rename). */
  onOpen: (target: EditTarget) => void;
  /** Values to offer per field (the models the session's agent reports). */
  suggestions?: Record<string, Array<{ value: string; label: string }>>;
  /** The session's tool calls, newest first (a hook's test bench). */
  recorded?: RecordedTool[];
}) {
  const form = FORMS[target.kind];
  /** A file with no form (an MCP server's or a hook's settings): text only. */
  const asText = target.kind === 'file';
  /** One entry of a JSON file, with a form of its own. */
  const entry = isEntryKind(target.kind);
  const [at, setAt_] = useState<string | null>(target.at ?? null);
  const [savedAt, setSavedAt] = useState<string | null>(target.at ?? null);
  /** Bumped when the text is replaced from outside an entry form. */
  const [version, setVersion] = useState(0);
  // Blocked until the entry's form has checked it.
  const [entryProblems, setEntryProblems] = useState<string[]>(entry ? ['not checked yet'] : []);
  const [loaded, setLoaded] = useState<{ text: string; etag: string | null } | null>(null);
  const [isNew, setIsNew] = useState(target.template != null);
  const [split, setSplit] = useState<Split | null>(null);
  const [values, setValues] = useState<Record<string, Value>>({});
  const [body, setBody] = useState('');
  const [raw, setRaw] = useState<string | null>(null);
  const [dirty, setDirty] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const [conflict, setConflict] = useState<Conflict | null>(null);
  /** Merging by hand: the disk's text, shown beside the person's. */
  const [merging, setMerging] = useState<string | null>(null);
  const [askClose, setAskClose] = useState(false);

  const take = (text: string, etag: string | null) => {
    if (entry) {
      setLoaded({ text, etag });
      setSplit(null);
      setBody(text);
      setRaw(jsonProblem(text) ? text : null);
      setVersion((v) => v + 1);
      setDirty(false);
      return;
    }
    const s = splitFrontmatter(text);
    setLoaded({ text, etag });
    setSplit(s);
    setValues(Object.fromEntries(form.fields.map((f) => [f.key, fieldOf(s, f.key)])));
    setBody(s.body);
    // A settings file, or front matter the form cannot read, opens as text.
    setRaw(s.error || asText ? text : null);
    setDirty(false);
  };
  useEffect(() => {
    const fresh = target.template;
    if (fresh != null && entry && target.at === null) {
      // A first MCP server or hook in a settings file that may exist
      // already (with other settings): its text if so, else the template.
      call('customizations.version', { host, session, uri: target.uri }).then(
        (etag) =>
          etag == null
            ? (take(fresh, null), setDirty(true))
            : call('customizations.read', { host, session, uri: target.uri }).then(
                (f) => {
                  take(f.text, f.etag);
                  setIsNew(false);
                },
                (e) => setError(errorText(e)),
              ),
        (e) => setError(errorText(e)),
      );
      return;
    }
    if (fresh != null) {
      take(fresh, null);
      setDirty(true);
      return;
    }
    call('customizations.read', { host, session, uri: target.uri }).then(
      (f) => {
        take(f.text, f.etag);
        const renamed = target.renamed;
        if (renamed && form.fields.some((x) => x.key === 'name')) {
          const s = splitFrontmatter(f.text);
          const text = joinFrontmatter(s, { name: renamed }, s.body);
          call('customizations.save', { host, session, uri: target.uri, text, etag: f.etag, create: false }).then(
            (r) => r.outcome === 'saved' && take(text, r.etag),
            (e) => setError(errorText(e)),
          );
        }
      },
      (e) => setError(errorText(e)),
    );
  }, [target.uri]);

  // The body's preview, rendered as the transcript renders markdown (by the
  // core, sanitized), a moment after typing stops.
  const [preview, setPreview] = useState(false);
  const [previewBlocks, setPreviewBlocks] = useState<string[]>([]);
  useEffect(() => {
    if (!preview) return;
    const timer = setTimeout(() => call('markdown.render', { text: body }).then(setPreviewBlocks, () => {}), 250);
    return () => clearTimeout(timer);
  }, [body, preview]);

  // Duplicate and Rename copy or move the file (a skill: its folder) and
  // open the editor there; Delete asks first.
  const [naming, setNaming] = useState<'duplicate' | 'rename' | null>(null);
  const [askDelete, setAskDelete] = useState(false);
  const unit = unitOf(target);
  const transfer = async (name: string) => {
    const to = unitOf({ ...target, uri: newFileUri(target.kind, parentOf(unit), name) });
    setBusy(true);
    setError('');
    try {
      const r = await call('customizations.transfer', { host, session, from: unit, to, keep: naming === 'duplicate' });
      if (r.outcome === 'exists') {
        setError(`${pathOf(to, workspace)} already exists: pick another name.`);
        return;
      }
      setNaming(null);
      onOpen({
        uri: newFileUri(target.kind, parentOf(unit), name),
        kind: target.kind,
        readBy: target.readBy,
        renamed: name,
      });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    setAskDelete(false);
    try {
      await call('customizations.delete', { host, session, uri: unit, recursive: unit !== target.uri });
      onClose();
    } catch (e) {
      setError(errorText(e));
    }
  };

  // An MCP server's or a hook's Remove: the file without that entry, saved
  // over the version read (a conflict shows as for any save).
  const removeEntry = async () => {
    setAskDelete(false);
    if (!savedAt || !loaded) return;
    const path = pathOfPointer(savedAt);
    const without =
      target.kind === 'hook'
        ? removeHandler(loaded.text, hookFile(target.uri, loaded.text), path)
        : setAt(loaded.text, path, undefined);
    setBusy(true);
    try {
      const r = await call('customizations.save', {
        host,
        session,
        uri: target.uri,
        text: without,
        etag: loaded.etag,
        create: false,
      });
      if (r.outcome === 'saved') onClose();
      else if (r.outcome === 'conflict') setError('The file changed on disk since it was read: nothing was removed.');
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  // The file changing on disk while open (another editor, the agent, a
  // `git pull`): its version (etag) alone is asked for every 2 s, and the
  // text only when that changed. Unedited, the editor takes the new text;
  // edited, both versions are shown at once.
  const watched = useRef({ loaded, dirty, isNew, conflict });
  watched.current = { loaded, dirty, isNew, conflict };
  useEffect(() => {
    const timer = setInterval(() => {
      const w = watched.current;
      if (!w.loaded || w.isNew || w.conflict) return;
      const args = { host, session, uri: target.uri };
      call('customizations.version', args).then(
        (etag) => {
          const now = watched.current;
          if (etag != null && now.loaded && etag !== now.loaded.etag) changed(args);
        },
        () => {},
      );
    }, 2000);
    const changed = (args: { host: string; session: string; uri: string }) =>
      call('customizations.read', args).then(
        (f) => {
          const now = watched.current;
          if (!now.loaded || f.etag === now.loaded.etag || now.conflict || now.isNew) return;
          if (now.dirty) {
            setConflict({ disk: f.text, etag: f.etag });
          } else {
            take(f.text, f.etag);
            setNote('The file changed on disk: this is the new version.');
          }
        },
        () => {},
      );
    return () => clearInterval(timer);
  }, [target.uri]);

  /** The file's text as the editor holds it now. */
  const text = (): string => raw ?? (split ? joinFrontmatter(split, values, body) : body);
  const problems = useMemo(
    () => (raw == null ? form.fields.map((f) => [f, fieldProblem(f, values[f.key] ?? null)] as const) : []),
    [values, raw],
  );
  const blocked = problems.some(([, p]) => p) || (entry && raw == null && entryProblems.length > 0);

  const save = async (etag: string | null | undefined = loaded?.etag) => {
    if (blocked || busy) return;
    setBusy(true);
    setError('');
    const now = text();
    try {
      const r = await call('customizations.save', {
        host,
        session,
        uri: target.uri,
        text: now,
        etag: etag ?? null,
        create: isNew,
      });
      if (r.outcome === 'saved') {
        take(now, r.etag);
        setMerging(null);
        setSavedAt(at);
        setIsNew(false);
        setConflict(null);
        setNote(`Saved to ${pathOf(target.uri, workspace)}.`);
      } else if (r.outcome === 'conflict') {
        setConflict({ disk: r.disk, etag: r.etag });
      } else {
        setError(`${pathOf(target.uri, workspace)} already exists: pick another name.`);
      }
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const close = () => (dirty ? setAskClose(true) : onClose());
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && !e.defaultPrevented && !askClose) {
      e.preventDefault();
      close();
    }
  };
  // Ctrl+S wherever the focus is while the editor is open (the browser's
  // "save page" never applies here).
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    const onSave = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key === 's') {
        e.preventDefault();
        saveRef.current();
      }
    };
    window.addEventListener('keydown', onSave);
    return () => window.removeEventListener('keydown', onSave);
  }, []);
  /** A code editor's change: kept, and the file is unsaved. */
  const edited = (keep: (text: string) => void) => (text: string) => {
    keep(text);
    setDirty(true);
    setNote('');
  };
  const set = (key: string, v: Value) => {
    setValues({ ...values, [key]: v });
    setDirty(true);
    setNote('');
  };
  const toggleRaw = () => {
    if (raw == null) {
      setRaw(text());
      return;
    }
    if (entry) {
      const problem = jsonProblem(raw);
      if (problem) {
        setError(`The file is not valid JSON (${problem}); fix it in the text first.`);
        return;
      }
      setBody(raw);
      setRaw(null);
      setVersion((v) => v + 1);
      return;
    }
    const s = splitFrontmatter(raw);
    if (s.error) {
      setError(`The front matter is not valid YAML (${s.error}); fix it in the text first.`);
      return;
    }
    setSplit(s);
    setValues(Object.fromEntries(form.fields.map((f) => [f.key, fieldOf(s, f.key)])));
    setBody(s.body);
    setRaw(null);
  };

  return (
    <div class="editor-backdrop">
      <section
        class="cust-editor"
        role="dialog"
        aria-modal="true"
        aria-labelledby="cust-editor-title"
        data-testid="cust-editor"
        onKeyDown={onKey}
      >
        <header class="cust-editor-head">
          <h2 id="cust-editor-title">
            {target.title ?? (isNew ? `New ${form.label.toLowerCase()}` : form.label)}
            {dirty && <span class="muted small"> · unsaved</span>}
          </h2>
          <code class="small muted" title={target.uri} data-testid="cust-editor-path">
            {pathOf(target.uri, workspace)}
          </code>
          <span class="spacer" />
          {entry && target.kind !== 'plugin' && savedAt && (
            <button
              type="button"
              class="danger"
              disabled={busy}
              data-testid="cust-editor-remove"
              onClick={() => setAskDelete(true)}
            >
              Remove
            </button>
          )}
          {!isNew && !asText && !entry && (
            <>
              <button
                type="button"
                disabled={dirty || busy}
                title={dirty ? 'Save first' : 'A copy under another name'}
                data-testid="cust-editor-duplicate"
                onClick={() => setNaming('duplicate')}
              >
                Duplicate
              </button>
              <button
                type="button"
                disabled={dirty || busy}
                title={dirty ? 'Save first' : 'Another name'}
                data-testid="cust-editor-rename"
                onClick={() => setNaming('rename')}
              >
                Rename
              </button>
              <button
                type="button"
                class="danger"
                disabled={busy}
                data-testid="cust-editor-delete"
                onClick={() => setAskDelete(true)}
              >
                Delete
              </button>
            </>
          )}
          {raw == null && !asText && !entry && (
            <button
              type="button"
              aria-pressed={preview}
              data-testid="cust-editor-preview-toggle"
              onClick={() => setPreview(!preview)}
            >
              Preview
            </button>
          )}
          {!asText && (
            <button type="button" aria-pressed={raw != null} data-testid="cust-editor-raw" onClick={toggleRaw}>
              {raw == null ? 'Edit as text' : 'Edit as form'}
            </button>
          )}
          <button
            type="button"
            class="primary"
            disabled={busy || blocked || !loaded}
            data-testid="cust-editor-save"
            title="Save (Ctrl+S)"
            onClick={() => save()}
          >
            {isNew ? 'Create' : 'Save'}
          </button>
          <button type="button" onClick={close} aria-label="Close the editor">
            ✕
          </button>
        </header>
        {naming && (
          <NameForm
            label={naming === 'duplicate' ? 'Duplicate as' : 'Rename to'}
            kind={target.kind}
            onCancel={() => setNaming(null)}
            onName={transfer}
          />
        )}
        {error && (
          <p class="error banner" role="alert" data-testid="cust-editor-error">
            {error}
          </p>
        )}
        {note && !error && (
          <p class="muted small" data-testid="cust-editor-note">
            {note}
          </p>
        )}
        {conflict ? (
          <ConflictView
            mine={text()}
            conflict={conflict}
            busy={busy}
            onKeepMine={() => save(conflict.etag)}
            onTakeDisk={() => {
              take(conflict.disk ?? '', conflict.etag);
              setConflict(null);
              setNote('Took the version on disk.');
            }}
            onMerge={() => {
              const mine = text();
              setLoaded({ text: conflict.disk ?? '', etag: conflict.etag });
              setRaw(mine);
              setMerging(conflict.disk ?? '');
              setConflict(null);
              setDirty(true);
              setNote('Merge by hand: edit yours on the left; Save writes it over the version on disk.');
            }}
          />
        ) : !loaded ? (
          <p class="muted small">Loading…</p>
        ) : raw == null && entry ? (
          <EntryForm
            kind={target.kind}
            props={{
              host,
              session,
              uri: target.uri,
              text: body,
              version,
              at,
              savedAt,
              id: target.id,
              readBy: target.readBy,
              dirty,
              onChange: (next, nextAt) => {
                setBody(next);
                setAt_(nextAt);
                setDirty(true);
                setNote('');
              },
              onProblems: setEntryProblems,
            }}
            recorded={recorded}
            cwd={workspace ? pathOf(workspace) : ''}
            parts={target.parts ?? []}
          />
        ) : raw != null && merging != null ? (
          <div class="cust-merge">
            <div>
              <h3 class="small">Yours (saved over the disk's)</h3>
              <CodeEditor
                value={raw}
                label="Yours, being merged"
                testid="cust-editor-text"
                language={languageOfFile(target.uri)}
                onChange={edited(setRaw)}
              />
            </div>
            <div>
              <h3 class="small">On disk now</h3>
              <CodeEditor
                value={merging}
                label="On disk now"
                testid="cust-merge-disk"
                language={languageOfFile(target.uri)}
                readOnly
              />
            </div>
          </div>
        ) : raw != null ? (
          <CodeEditor
            value={raw}
            label="The whole file"
            testid="cust-editor-text"
            language={languageOfFile(target.uri)}
            onChange={edited(setRaw)}
          />
        ) : (
          <>
            <div class="cust-form">
              {form.fields.map((f) => (
                <FieldRow
                  key={f.key}
                  field={f}
                  value={values[f.key] ?? null}
                  problem={problems.find(([p]) => p === f)?.[1] ?? null}
                  warnings={fieldWarnings(f, target.readBy, values[f.key])}
                  suggestions={suggestions[f.key] ?? []}
                  onChange={(v) => set(f.key, v)}
                />
              ))}
            </div>
            <div class={preview ? 'cust-body with-preview' : 'cust-body'}>
              <CodeEditor value={body} label="Body" testid="cust-editor-body" onChange={edited(setBody)} />
              {preview && (
                <div class="cust-preview" data-testid="cust-editor-preview" aria-label="Preview">
                  <Markdown blocks={previewBlocks} />
                </div>
              )}
            </div>
            {target.kind === 'skill' && !isNew && (
              <SkillFiles
                host={host}
                folder={parentOf(target.uri)}
                onOpenFile={(e) =>
                  onOpen({ uri: e.uri, kind: 'file', readBy: target.readBy, title: `${e.name} (skill file)` })
                }
              />
            )}
          </>
        )}
      </section>
      {askDelete && entry && (
        <ConfirmDialog
          title={`Remove this ${form.label === 'MCP server' ? form.label : form.label.toLowerCase()}?`}
          message={`It is taken out of ${pathOf(target.uri, workspace)}; the file's other entries stay.`}
          confirmLabel="Remove"
          testid="cust-editor-delete-confirm"
          onCancel={() => setAskDelete(false)}
          onConfirm={removeEntry}
        />
      )}
      {askDelete && !entry && (
        <ConfirmDialog
          title={`Delete ${pathOf(unit, workspace)}?`}
          message={
            unit !== target.uri
              ? 'The skill’s folder and everything in it are deleted from the host.'
              : 'The file is deleted from the host.'
          }
          confirmLabel="Delete"
          testid="cust-editor-delete-confirm"
          onCancel={() => setAskDelete(false)}
          onConfirm={remove}
        />
      )}
      {askClose && (
        <ConfirmDialog
          title="Close without saving?"
          message="Your changes to this file are not saved."
          confirmLabel="Close without saving"
          testid="cust-editor-discard"
          onCancel={() => setAskClose(false)}
          onConfirm={onClose}
        />
      )}
    </div>
  );
}

function FieldRow({
  field,
  value,
  problem,
  warnings,
  suggestions,
  onChange,
}: {
  field: Field;
  value: Value;
  problem: string | null;
  warnings: string[];
  suggestions: Array<{ value: string; label: string }>;
  onChange: (v: Value) => void;
}) {
  const id = `cust-field-${field.key}`;
  const text = Array.isArray(value) ? value.join('\n') : typeof value === 'string' ? value : '';
  return (
    <div class="cust-field" data-testid="cust-field" data-key={field.key}>
      <label for={id}>
        {field.label}
        {field.required && <span aria-hidden="true"> *</span>}
      </label>
      {field.type === 'bool' ? (
        <input
          id={id}
          type="checkbox"
          checked={value === true}
          onChange={(e) => onChange((e.target as HTMLInputElement).checked || null)}
        />
      ) : field.type === 'text' ? (
        <>
          <input
            id={id}
            type="text"
            value={text}
            placeholder={field.placeholder}
            aria-invalid={problem != null}
            list={suggestions.length > 0 ? `${id}-options` : undefined}
            onInput={(e) => onChange((e.target as HTMLInputElement).value)}
          />
          {suggestions.length > 0 && (
            <datalist id={`${id}-options`}>
              {suggestions.map((o) => (
                <option value={o.value}>{o.label}</option>
              ))}
            </datalist>
          )}
        </>
      ) : (
        <>
          {field.type === 'list' && suggestions.length > 0 && (
            <fieldset class="cust-chips" aria-label={`${field.label}: choices`} data-testid="cust-chips">
              {suggestions.map((o) => {
                const list = Array.isArray(value) ? value : [];
                const on = list.includes(o.value);
                return (
                  <button
                    type="button"
                    class="chip small"
                    aria-pressed={on}
                    data-testid="cust-chip"
                    data-value={o.value}
                    onClick={() => onChange(on ? list.filter((x) => x !== o.value) : [...list, o.value])}
                  >
                    {o.label}
                  </button>
                );
              })}
            </fieldset>
          )}
          <textarea
            id={id}
            rows={field.type === 'list' ? 3 : 2}
            value={text}
            placeholder={field.placeholder}
            aria-invalid={problem != null}
            onInput={(e) => {
              const v = (e.target as HTMLTextAreaElement).value;
              onChange(
                field.type === 'list'
                  ? v
                      .split('\n')
                      .map((s) => s.trim())
                      .filter(Boolean)
                  : v,
              );
            }}
          />
        </>
      )}
      {problem && (
        <p class="error small" data-testid="cust-field-problem">
          {field.label}: {problem}
        </p>
      )}
      {warnings.map((w) => (
        <p class="warn small" data-testid="cust-field-warning">
          {w}
        </p>
      ))}
    </div>
  );
}

/** What Duplicate, Rename and Delete act on: the file, or a skill's folder. */
function unitOf(target: EditTarget): string {
  return target.kind === 'skill' ? target.uri.replace(/\/SKILL\.md$/i, '') : target.uri;
}

/** The folder holding `uri`. */
function parentOf(uri: string): string {
  return uri.replace(/\/[^/]*$/, '');
}

function NameForm({
  label,
  kind,
  onCancel,
  onName,
}: {
  label: string;
  kind: EditableKind;
  onCancel: () => void;
  onName: (name: string) => void;
}) {
  const [name, setName] = useState('');
  const problem = name ? newNameProblem(kind, name, []) : null;
  return (
    <form
      class="cust-new-form small"
      data-testid="cust-editor-name"
      onSubmit={(e) => {
        e.preventDefault();
        if (name && !problem) onName(name);
      }}
    >
      <label>
        {label}{' '}
        <input
          type="text"
          value={name}
          aria-invalid={problem != null}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return;
            e.preventDefault();
            onCancel();
          }}
        />
      </label>
      <button type="submit" disabled={!name || problem != null}>
        OK
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      {problem && <span class="error">{problem}</span>}
    </form>
  );
}

/** The form for an entry kind. */
function EntryForm({
  kind,
  props,
  recorded,
  cwd,
  parts,
}: {
  kind: EditableKind;
  props: EntryFormProps;
  recorded: RecordedTool[];
  cwd: string;
  parts: PluginPart[];
}) {
  if (kind === 'mcpServer') return <McpServerForm {...props} />;
  if (kind === 'hook') return <HookForm {...props} recorded={recorded} cwd={cwd} />;
  return <PluginForm {...props} parts={parts} />;
}
