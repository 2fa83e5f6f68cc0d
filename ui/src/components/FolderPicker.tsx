// The folder picker of the new-session dialog: the current folder, up one
// level, its sub-folders (dot-folders behind "Show hidden", as file
// choosers do). It shows a listing; the dialog fetches it.
import { useState } from 'preact/hooks';
import type { FolderListing } from '../gen/FolderListing';
import { isHidden, pickerFolders } from '../state/new-session';
import { FolderIcon, UpIcon } from './icons';

export function FolderPicker({
  listing,
  waiting,
  onOpen,
}: {
  /** The folder shown, null while none is loaded. */
  listing: FolderListing | null;
  /** Whether the host has not answered yet (nothing can be listed). */
  waiting: boolean;
  onOpen: (uri: string) => void;
}) {
  const [showHidden, setShowHidden] = useState(false);
  const { shown, hidden } = pickerFolders(listing?.entries ?? [], showHidden);
  const path = listing ? decodeURIComponent(listing.uri.replace(/^file:\/\//, '')) : '';
  return (
    <div class="picker" data-testid="folder-picker">
      <div class="picker-path">
        <button
          type="button"
          class="icon-button"
          disabled={!listing?.parent}
          onClick={() => listing?.parent && onOpen(listing.parent)}
          title="Up one folder"
          aria-label="Up one folder"
          data-testid="folder-up"
        >
          <UpIcon />
        </button>
        <code data-testid="folder-path">{path}</code>
        <label class="picker-hidden small" title="Show folders whose names start with a dot">
          <input
            type="checkbox"
            checked={showHidden}
            data-testid="show-hidden"
            onChange={(e) => setShowHidden((e.target as HTMLInputElement).checked)}
          />
          Show hidden{hidden > 0 && !showHidden ? ` (${hidden})` : ''}
        </label>
      </div>
      <ul class="picker-list">
        {!listing && (
          <li class="muted small" data-testid="folder-waiting">
            {waiting ? 'Folders are listed once the host answers.' : 'Loading…'}
          </li>
        )}
        {shown.map((e) => (
          <li key={e.uri}>
            <button
              type="button"
              class={isHidden(e.name) ? 'folder hidden-folder' : 'folder'}
              data-testid="folder-entry"
              onClick={() => onOpen(e.uri)}
            >
              <FolderIcon />
              <span>{e.name}</span>
            </button>
          </li>
        ))}
        {listing && shown.length === 0 && (
          <li class="muted small">{hidden > 0 ? `No folders here (${hidden} hidden)` : 'No folders here'}</li>
        )}
      </ul>
    </div>
  );
}
