// The editors' forms: for each markdown kind (agent, skill, prompt, rule),
// the front matter fields shown, how each is checked before a save, what
// each agent that reads the file does with a field (a warning where one
// ignores it), a new file's template and where it is written.
// Sources: ../shared/docs/customizations.md sections 2–8 and 11.
import type { CustomizationKind } from '../gen/CustomizationKind';

export type EditableKind = 'agent' | 'skill' | 'prompt' | 'rule' | 'file' | EntryKind;
/** Kinds kept in a markdown file with front matter. */
export type MdKind = 'agent' | 'skill' | 'prompt' | 'rule';
/** Kinds edited as one entry of a JSON file (`state/json-entry.ts`). */
export type EntryKind = 'mcpServer' | 'hook' | 'plugin';

export interface Field {
  key: string;
  label: string;
  /** `list`: one value per line; `bool`: a checkbox. */
  type: 'text' | 'long' | 'list' | 'bool';
  required?: boolean;
  placeholder?: string;
  /** What is wrong with `value`, or null. */
  check?: (value: string) => string | null;
  /** Per agent id: what that agent does with this field, when it differs. */
  agents?: Record<string, string>;
}

const NAME_RULE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const nameCheck = (v: string) =>
  !NAME_RULE.test(v)
    ? 'lowercase letters, digits and single hyphens (Claude and the Agent Skills format allow no other)'
    : v.length > 64
      ? 'at most 64 characters'
      : null;
const descriptionCheck = (v: string) => (v.length > 1024 ? `at most 1,024 characters (now ${v.length})` : null);

/** A required name, as Claude and the Agent Skills format accept it. */
function nameField(agents: Record<string, string>): Field {
  return { key: 'name', label: 'Name', type: 'text', required: true, check: nameCheck, agents };
}

/** A required description of at most 1,024 characters. */
function descriptionField(placeholder: string): Field {
  return {
    key: 'description',
    label: 'Description',
    type: 'long',
    required: true,
    placeholder,
    check: descriptionCheck,
  };
}

export const FORMS: Record<EditableKind, { label: string; fields: Field[] }> = {
  agent: {
    label: 'Agent',
    fields: [
      nameField({ opencode: 'OpenCode names the agent after its file; `name` is ignored.' }),
      descriptionField('What this agent does, and when to use it'),
      {
        key: 'model',
        label: 'Model',
        type: 'text',
        placeholder: 'inherit',
        agents: { opencode: 'OpenCode wants `provider/model`.' },
      },
      {
        key: 'tools',
        label: 'Tools',
        type: 'list',
        placeholder: 'One per line, e.g. Read',
        agents: { opencode: 'OpenCode reads `tools` as a map of tool → true/false: a list is ignored.' },
      },
    ],
  },
  skill: {
    label: 'Skill',
    fields: [
      nameField({ claude: 'Claude Code names the command after the folder; `name` is shown only.' }),
      descriptionField('What the skill does, and when to use it'),
    ],
  },
  prompt: {
    label: 'Prompt',
    fields: [
      { key: 'description', label: 'Description', type: 'long', placeholder: 'Shown in the / menu' },
      { key: 'argument-hint', label: 'Arguments hint', type: 'text', placeholder: '[file]' },
    ],
  },
  // A file edited as text only (a TOML settings file).
  file: { label: 'File', fields: [] },
  // Forms of their own (`McpServerForm`, `HookForm`, `PluginForm`).
  mcpServer: { label: 'MCP server', fields: [] },
  hook: { label: 'Hook', fields: [] },
  plugin: { label: 'Plugin', fields: [] },
  rule: {
    label: 'Rule',
    fields: [
      { key: 'description', label: 'Description', type: 'long' },
      {
        key: 'paths',
        label: 'Applies to (globs)',
        type: 'list',
        placeholder: 'src/**/*.ts',
        agents: { copilot: 'Copilot reads `applyTo`, not `paths`.' },
      },
      {
        key: 'applyTo',
        label: 'Applies to (Copilot)',
        type: 'text',
        placeholder: '**/*.ts',
        agents: { claude: 'Claude Code reads `paths`, not `applyTo`.' },
      },
      {
        key: 'alwaysApply',
        label: 'Always apply',
        type: 'bool',
        agents: { claude: 'Claude Code applies a rule without `paths` always; `alwaysApply` is ignored.' },
      },
    ],
  },
};

/** Whether `kind` has a form here. */
export function editable(kind: CustomizationKind | null | undefined): kind is MdKind {
  return kind === 'agent' || kind === 'skill' || kind === 'prompt' || kind === 'rule';
}

/** Kinds a New button makes from a template (a plugin: its folder and manifest). */
export type NewKind = 'agent' | 'skill' | 'prompt' | 'rule' | 'plugin';

/** Whether a New button makes entries of `kind`. */
export function creatable(kind: CustomizationKind | null | undefined): kind is NewKind {
  return editable(kind) || kind === 'plugin';
}

/** Whether entries of `kind` live in a settings file edited as text here. */
export function editableAsText(kind: CustomizationKind | null | undefined): boolean {
  return kind === 'mcpServer' || kind === 'hook';
}

/** Whether `kind` is edited as one entry of a JSON file. */
export function isEntryKind(kind: EditableKind): kind is EntryKind {
  return kind === 'mcpServer' || kind === 'hook' || kind === 'plugin';
}

/** Whether the entry at `at` in file `uri` has a form here (JSON files; a
 * TOML file, Codex's, is edited as text). */
export function entryForm(uri: string, at: string | null): boolean {
  return at != null && at.startsWith('/') && /\.jsonc?$/i.test(uri);
}

/** Where each agent keeps its project's entries of a kind (folders only;
 * `../shared/docs/customizations.md` §1). Other agents: Claude's layout,
 * which Copilot and OpenCode read too; skills in the open `.agents/skills`. */
const FOLDERS: Record<string, Partial<Record<EditableKind, string>>> = {
  claude: { agent: '.claude/agents', skill: '.claude/skills', prompt: '.claude/commands', rule: '.claude/rules' },
  copilot: {
    agent: '.github/agents',
    skill: '.github/skills',
    prompt: '.github/prompts',
    rule: '.github/instructions',
  },
  gemini: { agent: '.gemini/agents', skill: '.gemini/skills' },
  qwen: { agent: '.qwen/agents', skill: '.qwen/skills', prompt: '.qwen/commands' },
  opencode: { agent: '.opencode/agents', skill: '.opencode/skills', prompt: '.opencode/commands' },
  codex: { skill: '.agents/skills' },
};
// Plugins in the open Plugins layout, which the host reads for every agent.
for (const folders of Object.values(FOLDERS)) folders.plugin = '.agents/plugins';
const OTHERS: Partial<Record<EditableKind, string>> = { ...FOLDERS.claude, skill: '.agents/skills' };

/** The project folder (relative) a new entry of `kind` goes in for `provider`'s agent. */
export function defaultFolder(provider: string, kind: EditableKind): string | null {
  return (FOLDERS[provider] ?? OTHERS)[kind] ?? null;
}

/** Where each agent keeps its project's MCP servers and hooks, and the
 * text a new such file starts from (Codex's are TOML: none here). */
const JSON_OF = (root: string) => `{\n  "${root}": {}\n}\n`;
/** Gemini's and Qwen's one `settings.json` holds both. */
const settingsJson = (file: string) => ({
  mcpServer: { file, text: JSON_OF('mcpServers') },
  hook: { file, text: JSON_OF('hooks') },
});
const SETTINGS: Record<string, Partial<Record<'mcpServer' | 'hook', { file: string; text: string }>>> = {
  claude: {
    mcpServer: { file: '.mcp.json', text: JSON_OF('mcpServers') },
    hook: { file: '.claude/settings.json', text: JSON_OF('hooks') },
  },
  gemini: settingsJson('.gemini/settings.json'),
  qwen: settingsJson('.qwen/settings.json'),
  copilot: {
    mcpServer: { file: '.mcp.json', text: JSON_OF('mcpServers') },
    hook: { file: '.github/hooks/hooks.json', text: '{\n  "version": 1,\n  "hooks": {}\n}\n' },
  },
  opencode: { mcpServer: { file: 'opencode.json', text: JSON_OF('mcp') } },
  codex: {},
};

/** The project settings file a first MCP server or hook goes in for
 * `provider`'s agent, and its starting text (null: none has a form). */
export function defaultSettingsFile(
  provider: string,
  kind: 'mcpServer' | 'hook',
): { file: string; text: string } | null {
  return (SETTINGS[provider] ?? SETTINGS.claude)[kind] ?? null;
}

/** The highlighting for a file, by its extension. */
export function languageOfFile(uri: string): 'markdown' | 'json' | 'toml' | 'plain' {
  if (/\.(md|mdc)$/i.test(uri)) return 'markdown';
  if (/\.jsonc?$/i.test(uri)) return 'json';
  if (/\.toml$/i.test(uri)) return 'toml';
  return 'plain';
}

/** The field's problem: missing, or its own check. */
export function fieldProblem(f: Field, value: string | string[] | boolean | null): string | null {
  const text = Array.isArray(value) ? value.join('\n') : typeof value === 'boolean' ? String(value) : (value ?? '');
  if (f.required && !text.trim()) return 'required';
  if (text && f.check && typeof value === 'string') return f.check(value);
  return null;
}

/** The warnings for a field from the agents that read this file. */
export function fieldWarnings(f: Field, readBy: string[], value: unknown): string[] {
  const set = value != null && value !== '' && !(Array.isArray(value) && value.length === 0) && value !== false;
  if (!set || !f.agents) return [];
  return readBy.flatMap((agent) => (f.agents?.[agent] ? [f.agents[agent]] : []));
}

/** What is wrong with a new file's name, or null. */
export function newNameProblem(kind: EditableKind, name: string, taken: string[]): string | null {
  if (taken.includes(name)) return `there is already a ${FORMS[kind].label.toLowerCase()} named ${name}`;
  if (kind === 'agent' || kind === 'skill' || kind === 'plugin') return nameCheck(name);
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) ? null : 'letters, digits, dots, hyphens and underscores';
}

/** A new file's URI in folder `dir` (a skill is a folder of its own). */
export function newFileUri(kind: EditableKind, dir: string, name: string): string {
  const base = dir.replace(/\/+$/, '');
  if (kind === 'skill') return `${base}/${name}/SKILL.md`;
  if (kind === 'plugin') return `${base}/${name}/.plugin/plugin.json`;
  // Copilot's folders name the kind in the file name.
  const suffix = /\.github\/(agents|prompts|instructions)$/.exec(base)?.[1];
  const ext =
    suffix === 'agents' ? '.agent.md' : suffix === 'prompts' ? '.prompt.md' : suffix ? '.instructions.md' : '.md';
  return `${base}/${name}${ext}`;
}

/** A new file's text. */
export function template(kind: EditableKind, name: string): string {
  switch (kind) {
    case 'agent':
      return `---\nname: ${name}\ndescription: What this agent does, and when to use it.\n---\nYou are ${name}. Describe how to work here.\n`;
    case 'skill':
      return `---\nname: ${name}\ndescription: What this skill does, and when to use it.\n---\n# ${name}\n\n1. The first step.\n`;
    case 'prompt':
      return `---\ndescription: What this prompt asks for.\n---\nDo this with $ARGUMENTS.\n`;
    case 'rule':
      return `---\ndescription: What this rule is about.\n---\n- The rule.\n`;
    case 'file':
    case 'mcpServer':
    case 'hook':
      return '';
    case 'plugin':
      return `{\n  "name": "${name}",\n  "version": "0.1.0",\n  "description": "What this plugin adds."\n}\n`;
  }
}
