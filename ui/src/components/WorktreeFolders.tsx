// Settings → New session: "New sessions in this folder start in a new
// worktree" for the default folder, and every folder that does (added
// there or remembered from the New session dialog's checkbox), each with
// Remove.
import type { NewSessionDefaults } from '../gen/NewSessionDefaults';
import { folderPath } from '../state/settings';
import { startsInWorktree, withWorktreeFolder } from '../state/worktree-folders';

export function WorktreeFolders({
  defaults,
  host,
  onChange,
}: {
  defaults: NewSessionDefaults;
  /** The default folder's host (the default host, else the first connected one). */
  host: string;
  onChange: (next: NewSessionDefaults) => void;
}) {
  const folder = defaults.folder;
  return (
    <div class="worktree-folders" data-testid="settings-worktree-folders">
      {folder && host && (
        <label class="small">
          <input
            type="checkbox"
            data-testid="settings-default-worktree"
            checked={startsInWorktree(defaults, host, folder)}
            onChange={(e) =>
              onChange(withWorktreeFolder(defaults, host, folder, (e.target as HTMLInputElement).checked))
            }
          />{' '}
          New sessions in this folder start in a new worktree
        </label>
      )}
      {defaults.worktreeFolders.length > 0 && (
        <>
          <p class="muted small">New sessions start in a new worktree in:</p>
          <ul>
            {defaults.worktreeFolders.map((f) => (
              <li
                key={`${f.host} ${f.folder}`}
                class="small"
                data-testid="settings-worktree-folder"
                data-folder={f.folder}
              >
                <code>{folderPath(f.folder)}</code> <span class="muted">on {f.host}</span>{' '}
                <button
                  type="button"
                  class="link-button"
                  data-testid="settings-worktree-folder-remove"
                  onClick={() => onChange(withWorktreeFolder(defaults, f.host, f.folder, false))}
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
