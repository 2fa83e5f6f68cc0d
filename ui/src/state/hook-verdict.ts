// A hook test bench's two halves that are rules, not I/O: the event a hook
// is given on stdin (from a tool call recorded in the session, or a sample),
// and what the hook's run means for the call, by the agents' documented
// rules (../shared/docs/customizations.md §2–6): exit 2 blocks (stderr is
// the reason given to the agent); exit 0 lets it go, unless stdout's JSON
// decides otherwise (`decision`, `permissionDecision`,
// `hookSpecificOutput.permissionDecision`, `continue: false`); any other
// exit is an error the agent reports and goes past.
import type { HookRan } from '../gen/HookRan';
import { isToolEvent } from './hook-entry';

/** A tool call to feed a hook: the tool's name and its input as JSON text. */
export interface RecordedTool {
  toolName: string;
  input: string | null;
}

/** The JSON an agent writes to the hook's stdin for `event`. */
export function hookInput(event: string, tool: RecordedTool | null, cwd: string, session: string): string {
  const toolName = tool?.toolName ?? 'Bash';
  let toolInput: unknown = { command: 'ls -la' };
  if (tool?.input) {
    try {
      toolInput = JSON.parse(tool.input);
    } catch {
      toolInput = { input: tool.input };
    }
  }
  const camel = /^[a-z]/.test(event);
  if (camel) {
    // The Copilot CLI's payload.
    const base = { timestamp: Date.now(), cwd };
    return JSON.stringify(
      isToolEvent(event) ? { ...base, toolName, toolArgs: JSON.stringify(toolInput) } : { ...base, prompt: 'Hello' },
      null,
      2,
    );
  }
  const base = { session_id: session, cwd, hook_event_name: event };
  const body = isToolEvent(event)
    ? { tool_name: toolName, tool_input: toolInput }
    : /Prompt|BeforeAgent/.test(event)
      ? { prompt: 'Hello' }
      : {};
  return JSON.stringify({ ...base, ...body }, null, 2);
}

export type Tone = 'ok' | 'block' | 'ask' | 'error';

/** What the run means for the call (or the step), in words. */
export function hookVerdict(run: HookRan, event: string): { tone: Tone; text: string } {
  const what = isToolEvent(event) ? 'the tool call' : 'this step';
  if (run.timedOut)
    return { tone: 'error', text: `It ran out of time: the agent reports an error and ${what} goes on.` };
  if (run.exitCode === 2) {
    const why = run.stderr.trim();
    return { tone: 'block', text: `Blocks ${what}${why ? `; the agent is told: ${why}` : ''}.` };
  }
  if (run.exitCode !== 0) {
    return {
      tone: 'error',
      text: `Exit ${run.exitCode ?? 'by a signal'}: an error the agent shows you; ${what} goes on.`,
    };
  }
  const out = parseObject(run.stdout);
  if (out) {
    const specific = parseField(out.hookSpecificOutput, 'permissionDecision');
    const decision = String(specific ?? out.permissionDecision ?? out.decision ?? '');
    const reason = String(
      parseField(out.hookSpecificOutput, 'permissionDecisionReason') ??
        out.permissionDecisionReason ??
        out.reason ??
        '',
    );
    const because = reason ? `: ${reason}` : '';
    if (out.continue === false) return { tone: 'block', text: `Stops the agent${because}.` };
    if (decision === 'deny' || decision === 'block') return { tone: 'block', text: `Blocks ${what}${because}.` };
    if (decision === 'ask') return { tone: 'ask', text: `Asks you to approve ${what}${because}.` };
    if (decision === 'allow' || decision === 'approve')
      return { tone: 'ok', text: `Approves ${what} without asking${because}.` };
  }
  const context = /UserPromptSubmit|SessionStart|userPromptSubmitted/.test(event) && run.stdout.trim();
  return { tone: 'ok', text: `Lets ${what} go ahead${context ? '; its output is added to the agent’s context' : ''}.` };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : null;
  } catch {
    return null;
  }
}

function parseField(o: unknown, key: string): unknown {
  return o && typeof o === 'object' ? (o as Record<string, unknown>)[key] : undefined;
}
