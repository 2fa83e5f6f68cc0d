// The tools an agent file's `tools` field can name, offered as a picker
// (free entry stays allowed): each agent's built-in tools, then the tools
// this session's agent has called (what it reports on the wire). Sources:
// ../shared/docs/customizations.md §2–7 and the agents' own docs.

const BUILT_IN: Record<string, string[]> = {
  claude: [
    'Read',
    'Write',
    'Edit',
    'MultiEdit',
    'Glob',
    'Grep',
    'Bash',
    'WebFetch',
    'WebSearch',
    'Task',
    'TodoWrite',
    'NotebookEdit',
  ],
  gemini: [
    'read_file',
    'write_file',
    'replace',
    'glob',
    'search_file_content',
    'list_directory',
    'run_shell_command',
    'web_fetch',
    'google_web_search',
    'save_memory',
  ],
  qwen: [
    'read_file',
    'write_file',
    'edit',
    'glob',
    'grep_search',
    'list_directory',
    'run_shell_command',
    'web_fetch',
    'todo_write',
    'task',
  ],
  copilot: [
    'edit',
    'search',
    'runCommands',
    'runTasks',
    'fetch',
    'todos',
    'usages',
    'problems',
    'changes',
    'githubRepo',
  ],
  opencode: ['read', 'write', 'edit', 'glob', 'grep', 'list', 'bash', 'webfetch', 'todowrite', 'task'],
};

/** The tools to offer for `provider`'s agent files: built-in first, then
 * the ones seen in this session (each once, in that order). */
export function toolChoices(provider: string, seen: string[]): Array<{ value: string; label: string }> {
  const out: string[] = [];
  for (const t of [...(BUILT_IN[provider] ?? BUILT_IN.claude), ...seen]) {
    if (t && !out.includes(t)) out.push(t);
  }
  return out.map((value) => ({ value, label: value }));
}
