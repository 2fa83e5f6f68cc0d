// biome-ignore-all lint/suspicious/noExplicitAny: the documents under test are read by path
import { describe, expect, it } from 'vitest';
import { documentOf, jsonProblem } from './json-entry';
import { mcpDialect, mcpFormAt, mcpProblems, otherServers, saveMcpForm } from './mcp-entry';

const CLAUDE = `{
  // a comment the form keeps
  "mcpServers": {
    "github": { "command": "npx", "args": ["-y", "gh"], "env": { "TOKEN": "\${GH}" }, "timeout": 30 },
    "docs": { "type": "http", "url": "https://docs.example/mcp" }
  },
  "other": true
}
`;

describe('MCP server entries', () => {
  it('knows each file’s dialect', () => {
    expect(mcpDialect('file:///w/.mcp.json', '/mcpServers/a')).toBe('claude');
    expect(mcpDialect('file:///w/.vscode/mcp.json', null)).toBe('vscode');
    expect(mcpDialect('file:///w/opencode.json', '/mcp/a')).toBe('opencode');
    expect(mcpDialect('file:///home/u/.gemini/settings.json', '/mcpServers/a')).toBe('gemini');
  });

  it('reads an entry and writes it back in place, keeping comments and other keys', () => {
    const form = mcpFormAt(CLAUDE, 'claude', '/mcpServers/github');
    expect(form).toEqual({
      name: 'github',
      transport: 'stdio',
      command: 'npx',
      args: ['-y', 'gh'],
      env: [{ key: 'TOKEN', value: '${GH}' }],
      url: '',
      headers: [],
    });
    const out = saveMcpForm(CLAUDE, 'claude', '/mcpServers/github', {
      ...form,
      args: ['-y', 'gh', ''],
      command: 'bunx',
    });
    expect(out.at).toBe('/mcpServers/github');
    expect(out.text).toContain('// a comment the form keeps');
    const doc = documentOf(out.text) as Record<string, any>;
    expect(doc.mcpServers.github).toEqual({
      command: 'bunx',
      args: ['-y', 'gh'],
      env: { TOKEN: '${GH}' },
      timeout: 30,
    });
    expect(doc.mcpServers.docs.url).toBe('https://docs.example/mcp');
    expect(doc.other).toBe(true);
    expect(jsonProblem(out.text)).toBeNull();
  });

  it('renames by moving the key, and writes each dialect’s transport', () => {
    const form = mcpFormAt(CLAUDE, 'claude', '/mcpServers/docs');
    expect(form.transport).toBe('http');
    const renamed = saveMcpForm(CLAUDE, 'claude', '/mcpServers/docs', { ...form, name: 'docs2', transport: 'sse' });
    expect(renamed.at).toBe('/mcpServers/docs2');
    const doc = documentOf(renamed.text) as Record<string, any>;
    expect(doc.mcpServers.docs).toBeUndefined();
    expect(doc.mcpServers.docs2).toEqual({ type: 'sse', url: 'https://docs.example/mcp' });

    const oc = saveMcpForm('{}', 'opencode', null, {
      ...form,
      name: 'x',
      transport: 'stdio',
      command: 'node',
      args: ['s.js'],
      env: [{ key: 'A', value: '1' }],
    });
    expect((documentOf(oc.text) as any).mcp.x).toEqual({
      type: 'local',
      command: ['node', 's.js'],
      environment: { A: '1' },
    });
    expect(mcpFormAt(oc.text, 'opencode', oc.at)).toMatchObject({
      command: 'node',
      args: ['s.js'],
      transport: 'stdio',
    });

    const gem = saveMcpForm('', 'gemini', null, { ...form, name: 'h', transport: 'http', url: 'https://h/mcp' });
    expect((documentOf(gem.text) as any).mcpServers.h).toEqual({ httpUrl: 'https://h/mcp' });
    expect(mcpFormAt(gem.text, 'gemini', gem.at).transport).toBe('http');

    const vs = saveMcpForm('{}', 'vscode', null, { ...form, name: 's', transport: 'stdio', command: 'srv', url: '' });
    expect((documentOf(vs.text) as any).servers.s).toEqual({ type: 'stdio', command: 'srv' });
  });

  it('checks names, commands, URLs and variable names', () => {
    const base = mcpFormAt(CLAUDE, 'claude', null);
    expect(mcpProblems(base, [])).toEqual(['Name: required', 'Command: required']);
    expect(mcpProblems({ ...base, name: 'github', command: 'x' }, otherServers(CLAUDE, 'claude', null))).toEqual([
      'Name: there is already a server named github in this file',
    ]);
    expect(mcpProblems({ ...base, name: 'a', transport: 'http', url: 'ftp://x' }, [])).toEqual([
      'URL: an http:// or https:// address',
    ]);
    expect(mcpProblems({ ...base, name: 'a', command: 'x', env: [{ key: '1BAD', value: 'v' }] }, [])).toEqual([
      'Environment: a name is letters, digits and _',
    ]);
  });
});
