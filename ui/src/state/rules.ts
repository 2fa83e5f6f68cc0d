// Approval rules in words, and the rule a confirmation offers to make: the
// scope choices (this session / this folder / everywhere on this host),
// what each tool's pattern means, the draft *Always allow…* / *Never
// allow…* saves, and which of the agent's options answers the confirmation
// after it. No I/O here: `RuleForm.tsx` and `RulesPage.tsx` render it.
import type { RuleDecision } from '../gen/RuleDecision';
import type { RuleDraft } from '../gen/RuleDraft';
import type { RuleScope } from '../gen/RuleScope';
import type { RuleScopeKind } from '../gen/RuleScopeKind';
import type { RuleSuggestion } from '../gen/RuleSuggestion';
import type { RuleTool } from '../gen/RuleTool';
import type { OptionView } from './composer';

export const RULE_TOOLS: RuleTool[] = ['shell', 'edit', 'read', 'mcp', 'fetch'];

/** Each tool in words, and what its pattern is. */
export const TOOL_TEXT: Record<RuleTool, { label: string; pattern: string; example: string }> = {
  shell: { label: 'Shell command', pattern: 'Command prefix', example: 'npm test' },
  edit: { label: 'File edit', pattern: 'Path glob (relative to the folder)', example: 'src/**' },
  read: { label: 'File read', pattern: 'Path glob (relative to the folder)', example: 'src/**' },
  mcp: { label: 'MCP tool', pattern: 'server/tool', example: 'github/*' },
  fetch: { label: 'Fetch', pattern: 'Domain', example: '*.example.com' },
};

/** The agents whose own rules a host lists (`agentRules`), by their ids. */
const AGENT_NAMES: Record<string, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
};

/** An agent's name for its own rules; an id the app does not know is shown as it is. */
export function agentName(id: string): string {
  return AGENT_NAMES[id] ?? id;
}

/** Where a session's rule may apply: its scope choices. */
export interface RuleContext {
  host: string;
  /** The session's URI. */
  session: string;
  /** The session's folder (`file:` URI), when it has one. */
  folder: string | null;
}

/** A scope kind in words, for a rule of this context (or any). */
export function scopeText(scope: RuleScope, folderName?: boolean): string {
  switch (scope.kind) {
    case 'session':
      return 'This session';
    case 'folder':
      if (!scope.uri) return 'This folder';
      return folderName ? `Folder ${pathOf(scope.uri)}` : `This folder (${baseName(pathOf(scope.uri))})`;
    default:
      return 'Everywhere on this host';
  }
}

/** The last name of a path. */
function baseName(path: string): string {
  return path.replace(/\/+$/, '').split('/').pop() || path;
}

/** A `file:` URI's path, else the URI. */
export function pathOf(uri: string): string {
  return uri.startsWith('file://') ? decodeURIComponent(uri.slice('file://'.length)) : uri;
}

/** The scope of `kind` in a session's context (null: that scope is not there). */
export function scopeIn(kind: RuleScopeKind, ctx: RuleContext): RuleScope | null {
  if (kind === 'host') return { kind };
  if (kind === 'session') return { kind, uri: ctx.session };
  return ctx.folder ? { kind, uri: ctx.folder } : null;
}

/** The rule *Always allow…* / *Never allow…* starts from. */
export function draftFrom(suggestion: RuleSuggestion | null, decision: RuleDecision, ctx: RuleContext): RuleDraft {
  return {
    scope: scopeIn('folder', ctx) ?? { kind: 'session', uri: ctx.session },
    tool: suggestion?.tool ?? 'shell',
    pattern: suggestion?.pattern ?? '',
    decision,
  };
}

/**
 * The agent's option that answers the confirmation after a rule is saved:
 * its allow option for an allow rule (once before always), its reject
 * option for a deny rule.
 */
export function answeringOption(options: OptionView[], decision: RuleDecision): OptionView | undefined {
  const kind = decision === 'allow' ? 'approve' : 'deny';
  return options.find((o) => o.kind === kind);
}

/** A rule's verdict on a tool call, in words: "Allowed by rule" or "Denied by rule". */
export function ruleVerdictText(status: string): string {
  return status === 'cancelled' ? 'Denied by rule' : 'Allowed by rule';
}

/** A rule's date in the person's words. */
export function createdText(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}
