// A plugin's manifest as a form (`state/plugin-manifest.ts`), with the
// plugin's components as the host found them listed below.
import { useEffect, useState } from 'preact/hooks';
import { type ManifestForm, manifestForm, manifestProblems, saveManifest } from '../state/plugin-manifest';
import { FormNotes, TextField } from './EntryFields';
import type { EntryFormProps } from './entry-form';

export interface PluginPart {
  kind: string;
  name: string;
}

const FIELDS: Array<{ key: keyof ManifestForm; label: string; placeholder: string; required?: boolean }> = [
  { key: 'name', label: 'Name', placeholder: 'my-plugin', required: true },
  { key: 'version', label: 'Version', placeholder: '1.0.0' },
  { key: 'description', label: 'Description', placeholder: 'What the plugin adds' },
  { key: 'homepage', label: 'Homepage', placeholder: 'https://…' },
  { key: 'authorName', label: 'Author', placeholder: 'Name' },
  { key: 'authorEmail', label: 'Author email', placeholder: 'name@example.com' },
];

export function PluginForm(p: EntryFormProps & { parts: PluginPart[] }) {
  const [form, setForm] = useState<ManifestForm>(() => manifestForm(p.text));
  useEffect(() => setForm(manifestForm(p.text)), [p.version]);
  const problems = manifestProblems(form);
  useEffect(() => p.onProblems(problems), [problems.join('\n')]);
  const change = (key: keyof ManifestForm, v: string) => {
    const next = { ...form, [key]: v };
    setForm(next);
    // Reported with the change, so Save is never enabled for a moment over a bad form.
    p.onProblems(manifestProblems(next));
    p.onChange(saveManifest(p.text, next), p.at);
  };
  return (
    <div class="cust-entry-form" data-testid="plugin-form">
      <div class="cust-form">
        {FIELDS.map((f) => (
          <TextField
            id={`plugin-${f.key}`}
            label={f.label}
            required={f.required}
            value={form[f.key]}
            placeholder={f.placeholder}
            onInput={(v) => change(f.key, v)}
          />
        ))}
      </div>
      <FormNotes problems={problems} />
      <h3 class="small">Components</h3>
      {p.parts.length === 0 ? (
        <p class="muted small">The host found no commands, agents, skills, rules, hooks or MCP servers in it.</p>
      ) : (
        <ul class="plugin-parts small" data-testid="plugin-parts">
          {p.parts.map((c) => (
            <li>
              <span class="muted">{c.kind}</span> {c.name}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
