// The folders whose new sessions start in a new worktree (Settings → New
// session, and remembered from the New session dialog's checkbox): a
// folder is named by its host and `file://` URI.
import type { NewSessionDefaults } from '../gen/NewSessionDefaults';

/** Whether New session pre-checks "In a new worktree" for `folder` on `host`. */
export function startsInWorktree(defaults: NewSessionDefaults | undefined, host: string, folder: string | undefined) {
  return !!folder && !!defaults?.worktreeFolders.some((f) => f.host === host && f.folder === folder);
}

/** `defaults` with `folder` on `host` in the list (`on`) or out of it. */
export function withWorktreeFolder(
  defaults: NewSessionDefaults,
  host: string,
  folder: string,
  on: boolean,
): NewSessionDefaults {
  const others = defaults.worktreeFolders.filter((f) => !(f.host === host && f.folder === folder));
  return { ...defaults, worktreeFolders: on ? [...others, { host, folder }] : others };
}
