// A hook's test bench: the command as the form holds it (saved or not) is
// run on the session's host with a tool event on stdin, one of the
// session's recorded tool calls or a sample, editable as JSON
// (`customizations.testHook`). Shown: exit code, time, stdout and stderr,
// and what that would do to the call by the agents' rules
// (`state/hook-verdict.ts`).
import { useEffect, useState } from 'preact/hooks';
import type { HookRan } from '../gen/HookRan';
import { call, errorText } from '../ipc';
import type { HookForm } from '../state/hook-entry';
import { hookInput, hookVerdict, type RecordedTool } from '../state/hook-verdict';

export function HookTestBench({
  host,
  session,
  form,
  recorded,
  cwd,
}: {
  host: string;
  session: string;
  form: HookForm;
  /** The session's tool calls, newest first. */
  recorded: RecordedTool[];
  cwd: string;
}) {
  const [pick, setPick] = useState(recorded.length > 0 ? 0 : -1);
  const [input, setInput] = useState('');
  useEffect(
    () => setInput(hookInput(form.event, pick >= 0 ? (recorded[pick] ?? null) : null, cwd, session)),
    [pick, form.event],
  );
  const [running, setRunning] = useState(false);
  const [ran, setRan] = useState<{ run: HookRan; event: string } | { error: string } | null>(null);
  const run = async () => {
    setRunning(true);
    setRan(null);
    try {
      const secs = Number(form.timeout);
      const r = await call('customizations.testHook', {
        host,
        session,
        command: form.command,
        input,
        timeoutSecs: secs > 0 ? Math.ceil(secs) : null,
      });
      setRan({ run: r, event: form.event });
    } catch (e) {
      setRan({ error: errorText(e) });
    } finally {
      setRunning(false);
    }
  };
  const verdict = ran && 'run' in ran ? hookVerdict(ran.run, ran.event) : null;
  return (
    <section class="hook-bench" aria-labelledby="hook-bench-title" data-testid="hook-bench">
      <h3 id="hook-bench-title" class="small">
        Try it
      </h3>
      <p class="muted small">
        Runs the command above on the host, in the session’s folder, with this event on its input. Nothing is saved and
        no agent is involved.
      </p>
      <label class="small">
        Input{' '}
        <select
          value={String(pick)}
          data-testid="hook-bench-source"
          onChange={(e) => setPick(Number((e.target as HTMLSelectElement).value))}
        >
          {recorded.map((t, i) => (
            <option value={String(i)}>Recorded: {t.toolName}</option>
          ))}
          <option value="-1">A sample {form.event} event</option>
        </select>
      </label>
      <textarea
        class="mono"
        rows={6}
        value={input}
        aria-label="The event given to the hook"
        data-testid="hook-bench-input"
        onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
      />
      <div class="cust-test-row">
        <button type="button" disabled={running || !form.command.trim()} data-testid="hook-bench-run" onClick={run}>
          {running ? 'Running…' : 'Run'}
        </button>
      </div>
      {ran && 'error' in ran && (
        <p class="error small" role="alert" data-testid="hook-bench-error">
          {ran.error}
        </p>
      )}
      {ran && 'run' in ran && verdict && (
        <div class="hook-bench-result" data-testid="hook-bench-result">
          <p class={`hook-verdict ${verdict.tone}`} data-testid="hook-verdict" data-tone={verdict.tone}>
            {verdict.text}
          </p>
          <p class="muted small" data-testid="hook-bench-exit">
            {ran.run.timedOut ? 'Timed out' : `Exit ${ran.run.exitCode ?? 'by a signal'}`} · {ran.run.millis} ms
          </p>
          {ran.run.stdout && (
            <>
              <h4 class="small">Output</h4>
              <pre data-testid="hook-bench-stdout">{ran.run.stdout}</pre>
            </>
          )}
          {ran.run.stderr && (
            <>
              <h4 class="small">Errors</h4>
              <pre data-testid="hook-bench-stderr">{ran.run.stderr}</pre>
            </>
          )}
        </div>
      )}
    </section>
  );
}
