// biome-ignore-all lint/suspicious/noExplicitAny: the documents under test are read by path
import { describe, expect, it } from 'vitest';
import { hookFile, hookFormAt, hookProblems, removeHandler, saveHookForm } from './hook-entry';
import { hookInput, hookVerdict } from './hook-verdict';
import { documentOf, pathOfPointer } from './json-entry';

const SETTINGS = `{
  "model": "sonnet",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [
        { "type": "command", "command": "./a.sh", "timeout": 5 },
        { "type": "command", "command": "./b.sh" }
      ] }
    ]
  }
}
`;
const CLAUDE = 'file:///w/.claude/settings.json';

describe('hook entries', () => {
  it('reads a handler of a nested file, and of the Copilot CLI’s flat one', () => {
    const file = hookFile(CLAUDE, SETTINGS);
    expect(file.shape).toBe('nested');
    expect(hookFormAt(SETTINGS, file, '/hooks/PreToolUse/0/hooks/0')).toEqual({
      event: 'PreToolUse',
      matcher: 'Bash',
      command: './a.sh',
      timeout: '5',
    });
    const cli = '{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./x.sh", "timeoutSec": 9}]}}';
    const f2 = hookFile('file:///w/.github/hooks/x.json', cli);
    expect(f2).toMatchObject({ shape: 'flat', commandKey: 'bash', timeoutKey: 'timeoutSec' });
    expect(hookFormAt(cli, f2, '/hooks/preToolUse/0')).toEqual({
      event: 'preToolUse',
      matcher: '',
      command: './x.sh',
      timeout: '9',
    });
    const gem = '{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "c", "timeout": 2500}]}]}}';
    expect(
      hookFormAt(gem, hookFile('file:///w/.gemini/settings.json', gem), '/hooks/BeforeTool/0/hooks/0').timeout,
    ).toBe('2.5');
  });

  it('edits in place, moves a handler to a new event or matcher, and prunes what it leaves empty', () => {
    const file = hookFile(CLAUDE, SETTINGS);
    const form = hookFormAt(SETTINGS, file, '/hooks/PreToolUse/0/hooks/1');
    const same = saveHookForm(SETTINGS, file, '/hooks/PreToolUse/0/hooks/1', {
      ...form,
      command: './c.sh',
      timeout: '3',
    });
    expect(same.at).toBe('/hooks/PreToolUse/0/hooks/1');
    let doc = documentOf(same.text) as any;
    expect(doc.hooks.PreToolUse[0].hooks[1]).toEqual({ type: 'command', command: './c.sh', timeout: 3 });
    expect(doc.model).toBe('sonnet');

    // A new matcher for one handler of a shared group: it leaves the group.
    const moved = saveHookForm(SETTINGS, file, '/hooks/PreToolUse/0/hooks/1', { ...form, matcher: 'Edit' });
    expect(moved.at).toBe('/hooks/PreToolUse/1/hooks/0');
    doc = documentOf(moved.text) as any;
    expect(doc.hooks.PreToolUse[0].hooks).toHaveLength(1);
    expect(doc.hooks.PreToolUse[1]).toEqual({ matcher: 'Edit', hooks: [{ type: 'command', command: './b.sh' }] });

    // The last handler of an event moved away: the event goes.
    const one = '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}';
    const f1 = hookFile(CLAUDE, one);
    const ev = saveHookForm(one, f1, '/hooks/Stop/0/hooks/0', {
      event: 'SessionEnd',
      matcher: '',
      command: 'x',
      timeout: '',
    });
    expect(documentOf(ev.text)).toEqual({ hooks: { SessionEnd: [{ hooks: [{ type: 'command', command: 'x' }] }] } });
    expect(ev.at).toBe('/hooks/SessionEnd/0/hooks/0');
    expect(documentOf(removeHandler(ev.text, f1, pathOfPointer(ev.at ?? '')))).toEqual({ hooks: {} });

    // A new hook in a file with none.
    const fresh = saveHookForm('{}', hookFile(CLAUDE, '{}'), null, {
      event: 'PreToolUse',
      matcher: 'Bash',
      command: 'y',
      timeout: '',
    });
    expect(documentOf(fresh.text)).toEqual({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'y' }] }] },
    });
  });

  it('checks the form', () => {
    const file = hookFile(CLAUDE, SETTINGS);
    expect(hookProblems({ event: '', matcher: '(', command: '', timeout: '-1' }, file)).toEqual([
      'Event: required',
      'Command: required',
      'Timeout: a number of seconds above 0',
      'Matcher: not a valid regular expression',
    ]);
  });

  it('builds the event a hook reads, and says what its run means for the call', () => {
    const input = JSON.parse(hookInput('PreToolUse', { toolName: 'Edit', input: '{"path":"a.txt"}' }, '/w', 's1'));
    expect(input).toEqual({
      session_id: 's1',
      cwd: '/w',
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { path: 'a.txt' },
    });
    expect(JSON.parse(hookInput('preToolUse', null, '/w', 's1'))).toMatchObject({
      toolName: 'Bash',
      toolArgs: '{"command":"ls -la"}',
    });
    const run = { exitCode: 0, stdout: '', stderr: '', timedOut: false, millis: 3 };
    expect(hookVerdict({ ...run, exitCode: 2, stderr: 'no rm' }, 'PreToolUse')).toEqual({
      tone: 'block',
      text: 'Blocks the tool call; the agent is told: no rm.',
    });
    expect(hookVerdict(run, 'PreToolUse').tone).toBe('ok');
    expect(
      hookVerdict(
        { ...run, stdout: '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"why"}}' },
        'PreToolUse',
      ),
    ).toEqual({ tone: 'ask', text: 'Asks you to approve the tool call: why.' });
    expect(hookVerdict({ ...run, stdout: '{"decision":"block","reason":"r"}' }, 'Stop').text).toBe(
      'Blocks this step: r.',
    );
    expect(hookVerdict({ ...run, exitCode: 1 }, 'PreToolUse').tone).toBe('error');
    expect(hookVerdict({ ...run, exitCode: null, timedOut: true }, 'PreToolUse').tone).toBe('error');
  });
});
