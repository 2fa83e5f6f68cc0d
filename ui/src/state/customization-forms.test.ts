import { describe, expect, it } from 'vitest';
import {
  defaultFolder,
  defaultSettingsFile,
  editableAsText,
  FORMS,
  fieldProblem,
  fieldWarnings,
  languageOfFile,
  newFileUri,
  newNameProblem,
  template,
} from './customization-forms';

const field = (kind: keyof typeof FORMS, key: string) => {
  const f = FORMS[kind].fields.find((x) => x.key === key);
  if (!f) throw new Error(`no ${key}`);
  return f;
};

describe('customization forms', () => {
  it('knows where a first MCP server or hook goes for each agent', () => {
    expect(defaultSettingsFile('claude', 'mcpServer')?.file).toBe('.mcp.json');
    expect(defaultSettingsFile('gemini', 'hook')?.file).toBe('.gemini/settings.json');
    expect(JSON.parse(defaultSettingsFile('copilot', 'hook')?.text ?? '')).toEqual({ version: 1, hooks: {} });
    expect(defaultSettingsFile('codex', 'mcpServer')).toBeNull();
    expect(defaultSettingsFile('unknown', 'mcpServer')?.file).toBe('.mcp.json');
  });

  it('makes a new plugin as a folder with its manifest', () => {
    expect(newFileUri('plugin', 'file:///w/.agents/plugins/', 'my-tools')).toBe(
      'file:///w/.agents/plugins/my-tools/.plugin/plugin.json',
    );
    expect(newNameProblem('plugin', 'My Tools', [])).toMatch(/lowercase/);
    expect(defaultFolder('gemini', 'plugin')).toBe('.agents/plugins');
    expect(JSON.parse(template('plugin', 'my-tools')).name).toBe('my-tools');
  });

  it('checks required fields and the names the agents accept', () => {
    expect(fieldProblem(field('agent', 'description'), '')).toBe('required');
    expect(fieldProblem(field('agent', 'name'), 'Code_Reviewer')).toMatch(/lowercase/);
    expect(fieldProblem(field('skill', 'name'), 'deploy-app')).toBeNull();
    expect(fieldProblem(field('skill', 'description'), 'x'.repeat(1025))).toMatch(/1,024/);
    expect(newNameProblem('agent', 'reviewer', ['reviewer'])).toMatch(/already/);
    expect(newNameProblem('prompt', 'fix.prompt', [])).toBeNull();
  });

  it('warns only for the agents that read the file, and only when the field is set', () => {
    const tools = field('agent', 'tools');
    expect(fieldWarnings(tools, ['claude', 'opencode'], ['Read'])).toEqual([
      'OpenCode reads `tools` as a map of tool → true/false: a list is ignored.',
    ]);
    expect(fieldWarnings(tools, ['claude'], ['Read'])).toEqual([]);
    expect(fieldWarnings(tools, ['opencode'], [])).toEqual([]);
  });

  it('puts a new skill in a folder of its own, with a template that passes its own checks', () => {
    expect(newFileUri('skill', 'file:///w/.claude/skills/', 'deploy')).toBe('file:///w/.claude/skills/deploy/SKILL.md');
    expect(newFileUri('agent', 'file:///w/.claude/agents', 'helper')).toBe('file:///w/.claude/agents/helper.md');
    expect(newFileUri('prompt', 'file:///w/.github/prompts', 'fix')).toBe('file:///w/.github/prompts/fix.prompt.md');
    expect(newFileUri('rule', 'file:///w/.github/instructions', 'ts')).toBe(
      'file:///w/.github/instructions/ts.instructions.md',
    );
    expect(template('agent', 'helper')).toContain('name: helper\n');
  });

  it('edits MCP servers and hooks in their settings file as text, highlighted by its kind', () => {
    expect([editableAsText('mcpServer'), editableAsText('hook'), editableAsText('agent')]).toEqual([true, true, false]);
    expect(languageOfFile('file:///w/.mcp.json')).toBe('json');
    expect(languageOfFile('file:///w/.codex/config.toml')).toBe('toml');
    expect(languageOfFile('file:///w/AGENTS.md')).toBe('markdown');
  });

  it("puts a first entry in the session's agent's own folder", () => {
    expect(defaultFolder('claude', 'agent')).toBe('.claude/agents');
    expect(defaultFolder('copilot', 'prompt')).toBe('.github/prompts');
    expect(defaultFolder('codex', 'agent')).toBeNull();
    expect(defaultFolder('some-agent', 'skill')).toBe('.agents/skills');
  });
});
