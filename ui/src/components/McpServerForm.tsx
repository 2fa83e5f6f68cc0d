// An MCP server's form: name, transport (stdio: command, args, environment;
// http/sse: URL, headers), values masked with a Show switch, and Test (the
// host starts the saved server and lists its tools). Each change rewrites
// the server's entry in the file's text (`state/mcp-entry.ts`), which the
// editor saves; the file's other entries are left as they are.
import { useEffect, useState } from 'preact/hooks';
import {
  type McpForm,
  mcpDialect,
  mcpFormAt,
  mcpProblems,
  mcpWarnings,
  otherServers,
  saveMcpForm,
  transports,
} from '../state/mcp-entry';
import { FormNotes, TextField } from './EntryFields';
import type { EntryFormProps } from './entry-form';
import { KeyValueRows } from './KeyValueRows';
import { McpTestOutcome, useMcpTest } from './McpTest';

const TRANSPORT_LABEL = { stdio: 'Command (stdio)', http: 'HTTP', sse: 'SSE' } as const;

export function McpServerForm(p: EntryFormProps) {
  const dialect = mcpDialect(p.uri, p.at);
  const [form, setForm] = useState<McpForm>(() => mcpFormAt(p.text, dialect, p.at));
  // The file replaced from outside (read, taken from disk, edited as text).
  useEffect(() => setForm(mcpFormAt(p.text, dialect, p.at)), [p.version]);
  const problems = mcpProblems(form, otherServers(p.text, dialect, p.at));
  useEffect(() => p.onProblems(problems), [problems.join('\n')]);
  const change = (patch: Partial<McpForm>) => {
    const next = { ...form, ...patch };
    setForm(next);
    // Reported with the change, so Save is never enabled for a moment over a bad form.
    p.onProblems(mcpProblems(next, otherServers(p.text, dialect, p.at)));
    const saved = saveMcpForm(p.text, dialect, p.at, next);
    p.onChange(saved.text, saved.at);
  };
  const { testing, tested, test } = useMcpTest(p.host, p.session, p.id);
  const testable = p.id != null && !p.dirty && p.at === p.savedAt;
  const id = (k: string) => `mcp-field-${k}`;
  return (
    <div class="cust-entry-form" data-testid="mcp-form">
      <div class="cust-form">
        <TextField
          id={id('name')}
          label="Name"
          required={true}
          value={form.name}
          placeholder="github"
          testid="mcp-name"
          onInput={(v) => change({ name: v })}
        />
        <div class="cust-field">
          <span class="label" id={id('transport')}>
            Transport
          </span>
          <div class="segmented" role="radiogroup" aria-labelledby={id('transport')}>
            {transports(dialect).map((t) => (
              <label key={t}>
                <input
                  type="radio"
                  name="mcp-transport"
                  value={t}
                  checked={form.transport === t}
                  data-testid={`mcp-transport-${t}`}
                  onChange={() => change({ transport: t })}
                />{' '}
                {TRANSPORT_LABEL[t]}
              </label>
            ))}
          </div>
        </div>
        {form.transport === 'stdio' ? (
          <>
            <TextField
              id={id('command')}
              label="Command"
              required={true}
              value={form.command}
              placeholder="npx"
              testid="mcp-command"
              onInput={(v) => change({ command: v })}
            />
            <div class="cust-field">
              <label for={id('args')}>Arguments (one per line)</label>
              <textarea
                id={id('args')}
                rows={3}
                value={form.args.join('\n')}
                placeholder="-y&#10;@modelcontextprotocol/server-github"
                data-testid="mcp-args"
                onInput={(e) => change({ args: (e.target as HTMLTextAreaElement).value.split('\n') })}
              />
            </div>
            <KeyValueRows
              label="Environment"
              rows={form.env}
              keyPlaceholder="GITHUB_TOKEN"
              testid="mcp-env"
              onChange={(env) => change({ env })}
            />
          </>
        ) : (
          <>
            <TextField
              id={id('url')}
              label="URL"
              required={true}
              value={form.url}
              placeholder="https://example.com/mcp"
              testid="mcp-url"
              onInput={(v) => change({ url: v })}
            />
            <KeyValueRows
              label="Headers"
              rows={form.headers}
              keyPlaceholder="Authorization"
              testid="mcp-headers"
              onChange={(headers) => change({ headers })}
            />
          </>
        )}
      </div>
      <FormNotes problems={problems} warnings={mcpWarnings(dialect, form, p.readBy)} />
      <div class="cust-test-row">
        <button
          type="button"
          disabled={!testable || testing}
          title={testable ? 'Start it on the host and list its tools' : 'Save first: Test runs the saved server'}
          data-testid="mcp-form-test"
          onClick={test}
        >
          {testing ? 'Testing…' : 'Test'}
        </button>
        {!testable && <span class="muted small">Save first: Test starts the saved server on the host.</span>}
      </div>
      {/* A result is of the saved server: hidden once the form differs. */}
      {testable && <McpTestOutcome tested={tested} />}
    </div>
  );
}
