// The merge mode last chosen in the Changes panel's Merge back, remembered
// per repository folder in the settings (`mergeModes`), as New session
// remembers a folder's worktree choice: a folder is named by its host and
// the repository's folder as the host names it (`hangar/worktree.repository`).
import type { Settings } from '../gen/Settings';

/** The panel's choices: `merge` is the host's default (a fast-forward when possible, else a merge commit). */
export const MERGE_MODES = ['merge', 'squash', 'rebase'] as const;
export type MergeMode = (typeof MERGE_MODES)[number];

/** The mode last chosen for `folder` on `host`, else `merge`. */
export function lastMergeMode(settings: Settings | undefined, host: string, folder: string | undefined): MergeMode {
  const kept = settings?.mergeModes?.find((m) => m.host === host && m.folder === folder)?.mode;
  return MERGE_MODES.find((m) => m === kept) ?? 'merge';
}

/** `settings` with `mode` remembered for `folder` on `host`. */
export function withMergeMode(settings: Settings, host: string, folder: string, mode: MergeMode): Settings {
  const others = (settings.mergeModes ?? []).filter((m) => !(m.host === host && m.folder === folder));
  return { ...settings, mergeModes: [...others, { host, folder, mode }] };
}

/** `changes.mergeBack`'s `mode` for a choice (none: the host's default). */
export function modeArg(mode: MergeMode): string | null {
  return mode === 'merge' ? null : mode;
}
