// An MCP server's Test, shared by the Customizations panel and the MCP
// server form: the host starts the server as the session's agent would and
// lists its tools (`customizations.testMcp`), or says why it failed.
import { useState } from 'preact/hooks';
import type { McpTested } from '../gen/McpTested';
import { call, errorText } from '../ipc';

export type McpTestResult = { ok: McpTested } | { error: string } | null;

/** Run a Test of server `id`; its result and whether one is running. */
export function useMcpTest(host: string, session: string, id: string | undefined) {
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<McpTestResult>(null);
  const test = async () => {
    if (!id) return;
    setTesting(true);
    setTested(null);
    try {
      setTested({ ok: await call('customizations.testMcp', { host, session, id }) });
    } catch (e) {
      setTested({ error: errorText(e) });
    } finally {
      setTesting(false);
    }
  };
  return { testing, tested, test };
}

/** The tools a Test listed, or why it failed. */
export function McpTestOutcome({ tested }: { tested: McpTestResult }) {
  if (!tested) return null;
  if ('error' in tested)
    return (
      <p class="error small" role="alert" data-testid="cust-mcp-error">
        {tested.error}
      </p>
    );
  const { server, version, tools } = tested.ok;
  return (
    <div class="cust-mcp-tools small" data-testid="cust-mcp-tools">
      <p>
        {server} {version} answered: {tools.length} {tools.length === 1 ? 'tool' : 'tools'}
      </p>
      <ul>
        {tools.map((t) => (
          <li key={t.name}>
            <code>{t.name}</code>
            {t.description && <span class="muted"> — {t.description}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
