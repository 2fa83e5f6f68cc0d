import { describe, expect, it } from 'vitest';
import { applyChatOp, emptyChat } from './chat-store';
import * as cz from './customizations';
import { chatSnapshot, customizationContainer as container, customizationItem as item } from './test-views';

const dir = (
  contents: Parameters<typeof item>[0],
  path: string,
  children = [] as ReturnType<typeof item>[],
  extra = {},
) => container(item('directory', path, { uri: `file:///w/${path}` }), children, { contents, ...extra });

const reviewer = item('agent', 'reviewer', { uri: 'file:///w/.claude/agents/reviewer.md', description: 'Reviews' });
const view = (containers: cz.CustomizationsView['containers']): cz.CustomizationsView => ({
  reported: true,
  workspace: 'file:///w',
  containers,
});

describe('customizations panel', () => {
  it('groups every kind in order, folders by contents, MCP servers by file, plugins whole', () => {
    const echo = item('mcpServer', 'echo', { uri: 'file:///w/.mcp.json', mcpStatus: 'stopped' });
    const docs = item('mcpServer', 'docs', { uri: 'file:///w/.mcp.json' });
    const plugin = container(item('plugin', 'demo', { uri: 'file:///w/.agents/plugins/demo' }), [
      item('agent', 'demo:helper'),
    ]);
    const groups = cz.groupCustomizations(
      view([
        dir('agent', '.claude/agents', [reviewer]),
        dir('agent', '.github/agents'),
        container(echo),
        container(docs),
        plugin,
      ]),
    );
    expect(groups.map((g) => g.label)).toEqual([
      'Rules',
      'Agents',
      'Skills',
      'Prompts',
      'Hooks',
      'MCP servers',
      'Plugins',
    ]);
    const agents = groups[1];
    expect(agents.sources.map((s) => s.label)).toEqual(['.claude/agents']);
    // A host's own view keeps the empty writable folder, to make a first entry in.
    const hostView = cz.groupCustomizations(
      view([dir('agent', '.claude/agents', [reviewer]), dir('agent', '.github/agents')]),
      true,
    );
    expect(hostView[1].sources.map((s) => s.label)).toEqual(['.claude/agents', '.github/agents']);
    const home = container(
      item('directory', '~/.claude/agents', { uri: 'file:///home/u/.claude/agents' }),
      [reviewer],
      {
        contents: 'agent',
      },
    );
    expect(cz.groupCustomizations(view([home]))[1].sources[0].label).toBe('~/.claude/agents');
    expect(agents.count).toBe(1);
    const mcp = groups[5];
    expect(mcp.sources).toHaveLength(1);
    expect(mcp.sources[0].label).toBe('.mcp.json');
    expect(mcp.sources[0].container).toBeNull();
    expect(mcp.sources[0].items.map((i) => i.name)).toEqual(['echo', 'docs']);
    expect(groups[6].sources[0].container).toBe(plugin);
    expect(groups[0].count).toBe(0);
    expect(groups[1].empty).toBe('No agents yet. Add .claude/agents/<name>.md');
  });

  it('lists an empty folder that failed to load, with its problem in words', () => {
    const broken = dir('rule', '.claude/rules', [], { load: 'error', loadMessage: 'permission denied' });
    const g = cz.groupCustomizations(view([broken]))[0];
    expect(g.sources).toHaveLength(1);
    expect(cz.loadProblem(g.sources[0].container)).toBe('Could not be read: permission denied');
    expect(cz.loadProblem(container(item('plugin', 'p'), [], { load: 'degraded', loadMessage: 'a.md: bad' }))).toBe(
      'Partly read: a.md: bad',
    );
    expect(cz.loadProblem(container(item('plugin', 'p')))).toBeNull();
  });

  it('offers enabled, unshadowed agents of enabled folders, by name', () => {
    const off = item('agent', 'off', { enabled: false });
    const lost = item('agent', 'lost', { shadowedBy: { id: 'x', name: 'reviewer', uri: null } });
    const inOffFolder = item('agent', 'hidden');
    const choices = cz.agentChoices(
      view([
        dir('agent', 'a', [reviewer, off, lost, item('skill', 'not-an-agent')]),
        container(item('directory', 'b', { enabled: false }), [inOffFolder], { contents: 'agent' }),
        container(item('plugin', 'p'), [item('agent', 'p:aide')]),
      ]),
    );
    expect(choices.map((c) => c.name)).toEqual(['p:aide', 'reviewer']);
    expect(choices[1]).toEqual({ uri: reviewer.uri, name: 'reviewer', description: 'Reviews' });
    expect(cz.agentChoices(null)).toEqual([]);
    expect(cz.agentName(view([dir('agent', 'a', [reviewer])]), reviewer.uri)).toBe('reviewer');
    expect(cz.agentName(null, 'file:///w/.github/agents/helper.agent.md')).toBe('helper');
  });

  it('says which scopes decided, and starts the switch at the deciding scope', () => {
    const decided = item('mcpServer', 'echo', {
      enabled: false,
      decisions: { session: null, workspace: false, global: true, decidedBy: 'workspace' },
    });
    expect(cz.decisionsText(decided)).toBe('Off for this folder · On everywhere');
    expect(cz.defaultScope(decided)).toBe('workspace');
    expect(cz.decisionsText(reviewer)).toBe('On by default');
    expect(cz.overriddenBy(decided, 'global')).toBe('workspace');
    expect(cz.overriddenBy(decided, 'workspace')).toBeNull();
    expect(cz.overriddenBy(reviewer, 'global')).toBeNull();
    expect(cz.defaultScope(reviewer)).toBe('session');
    expect(cz.toggleArgs('local', 's', 'm', 'workspace', null)).toEqual({
      host: 'local',
      session: 's',
      id: 'm',
      scope: 'workspace',
      enabled: null,
    });
  });

  it('badges: read by the agent itself with the note, restart pending, shadowed, folder off, MCP failure', () => {
    const rule = item('rule', 'CLAUDE.md', {
      readBy: ['claude', 'copilot'],
      note: 'Claude reads CLAUDE.md itself; turning it off here does not stop that.',
    });
    const b = cz.badges(rule, null, 'claude', 'Claude Code');
    expect(b).toEqual([
      {
        key: 'readBy',
        text: 'read by Claude Code itself',
        title: 'Claude reads CLAUDE.md itself; turning it off here does not stop that.',
        tone: 'info',
      },
    ]);
    expect(cz.badges(rule, null, 'codex')).toEqual([]); // codex does not read it, no word from the host
    const unused = item('hook', 'PreToolUse', { appliedBy: 'none', note: 'codex does not read this file.' });
    expect(cz.badges(unused, null, 'codex')).toEqual([
      { key: 'unused', text: 'not used by codex', title: 'codex does not read this file.', tone: 'info' },
    ]);
    const remote = item('mcpServer', 'remote', { notPassed: 'the agent takes no HTTP servers' });
    expect(cz.badges(remote, null, 'codex')[0].text).toBe('not given to codex: the agent takes no HTTP servers');
    const server = item('mcpServer', 'echo', { restartPending: true, mcpStatus: 'error', mcpMessage: 'not found' });
    expect(cz.badges(server, null, 'fake').map((x) => x.text)).toEqual(['restart pending', 'failed: not found']);
    const shadowed = item('agent', 'reviewer', {
      shadowedBy: { id: 'p', name: 'reviewer', uri: 'file:///w/.claude/agents/reviewer.md' },
    });
    expect(cz.badges(shadowed, null, 'fake')[0]).toMatchObject({ key: 'shadowed', text: 'shadowed by reviewer' });
    const offFolder = container(item('directory', 'agents', { enabled: false }), [reviewer], { contents: 'agent' });
    expect(cz.badges(reviewer, offFolder, 'fake').map((x) => x.key)).toEqual(['containerOff']);
    expect(cz.isActive(reviewer, offFolder)).toBe(false);
    expect(cz.isActive(reviewer, null)).toBe(true);
  });

  it('shows paths relative to the session folder', () => {
    expect(cz.pathOf('file:///w/.claude/agents', 'file:///w')).toBe('.claude/agents');
    expect(cz.pathOf('file:///w', 'file:///w/')).toBe('.');
    expect(cz.pathOf('file:///home/u/.claude/my%20agents', 'file:///w')).toBe('/home/u/.claude/my agents');
  });

  it('the chat stream carries the view: in the snapshot, then replaced by customizations ops', () => {
    const first = view([dir('agent', 'a', [reviewer])]);
    let s = applyChatOp(emptyChat(), chatSnapshot({ customizations: first }));
    expect(s.customizations).toBe(first);
    const next = view([]);
    s = applyChatOp(s, { op: 'batch', ops: [{ op: 'customizations', view: next }] });
    expect(s.customizations).toBe(next);
  });
});
