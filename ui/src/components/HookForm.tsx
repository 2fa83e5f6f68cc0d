// A hook's form: event (from the events the file's agents fire), matcher
// (tool events in files that have one), command and timeout, with a test
// bench below. Each change rewrites the handler in the file's text
// (`state/hook-entry.ts`); a new event or matcher moves it.
import { useEffect, useState } from 'preact/hooks';
import {
  type HookForm as Form,
  hookFile,
  hookFormAt,
  hookProblems,
  hookWarnings,
  isToolEvent,
  saveHookForm,
} from '../state/hook-entry';
import type { RecordedTool } from '../state/hook-verdict';
import { FormNotes, TextField } from './EntryFields';
import type { EntryFormProps } from './entry-form';
import { HookTestBench } from './HookTestBench';

export function HookForm(p: EntryFormProps & { recorded: RecordedTool[]; cwd: string }) {
  const file = hookFile(p.uri, p.text);
  const [form, setForm] = useState<Form>(() => hookFormAt(p.text, file, p.at));
  useEffect(() => setForm(hookFormAt(p.text, file, p.at)), [p.version]);
  const problems = hookProblems(form, file);
  useEffect(() => p.onProblems(problems), [problems.join('\n')]);
  const change = (patch: Partial<Form>) => {
    const next = { ...form, ...patch };
    setForm(next);
    // Reported with the change, so Save is never enabled for a moment over a bad form.
    p.onProblems(hookProblems(next, file));
    const saved = saveHookForm(p.text, file, p.at, next);
    p.onChange(saved.text, saved.at);
  };
  const events = file.events.includes(form.event) || !form.event ? file.events : [form.event, ...file.events];
  return (
    <div class="cust-entry-form" data-testid="hook-form">
      <div class="cust-form">
        <div class="cust-field">
          <label for="hook-event">
            Event<span aria-hidden="true"> *</span>
          </label>
          <select
            id="hook-event"
            value={form.event}
            data-testid="hook-event"
            onChange={(e) => change({ event: (e.target as HTMLSelectElement).value })}
          >
            {events.map((ev) => (
              <option value={ev}>{ev}</option>
            ))}
          </select>
        </div>
        {file.shape === 'nested' && (
          <div class="cust-field">
            <label for="hook-matcher">Matcher (which tools)</label>
            <input
              id="hook-matcher"
              type="text"
              value={form.matcher}
              disabled={!isToolEvent(form.event) && !form.matcher}
              placeholder={isToolEvent(form.event) ? 'Bash, Edit|Write, or * for all' : 'only for tool events'}
              data-testid="hook-matcher"
              onInput={(e) => change({ matcher: (e.target as HTMLInputElement).value })}
            />
          </div>
        )}
        <div class="cust-field wide">
          <label for="hook-command">
            Command<span aria-hidden="true"> *</span>
          </label>
          <textarea
            id="hook-command"
            class="mono"
            rows={2}
            value={form.command}
            placeholder="./scripts/check.sh"
            data-testid="hook-command"
            onInput={(e) => change({ command: (e.target as HTMLTextAreaElement).value })}
          />
        </div>
        <TextField
          id="hook-timeout"
          label="Timeout (seconds)"
          value={form.timeout}
          placeholder={file.shape === 'flat' ? '30' : '60'}
          testid="hook-timeout"
          onInput={(v) => change({ timeout: v })}
        />
      </div>
      <FormNotes problems={problems} warnings={hookWarnings(form, file, p.readBy)} />
      <HookTestBench host={p.host} session={p.session} form={form} recorded={p.recorded} cwd={p.cwd} />
    </div>
  );
}
