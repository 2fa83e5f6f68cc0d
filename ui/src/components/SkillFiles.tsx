// A skill's other files (scripts/, references/, assets/ and the like)
// beside its SKILL.md, listed in the skill's editor from the host
// (`folder.list`); a file opens in the editor as text.
import { useEffect, useState } from 'preact/hooks';
import type { FolderEntry } from '../gen/FolderEntry';
import { call, errorText } from '../ipc';

export function SkillFiles({
  host,
  folder,
  onOpenFile,
}: {
  host: string;
  /** The skill's folder. */
  folder: string;
  onOpenFile: (entry: FolderEntry) => void;
}) {
  const [entries, setEntries] = useState<FolderEntry[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    call('folder.list', { host, uri: folder }).then(
      (l) => setEntries(l.entries.filter((e) => !/^SKILL\.md$/i.test(e.name))),
      (e) => setError(errorText(e)),
    );
  }, [folder]);
  if (error) return <p class="muted small">The skill’s folder could not be listed: {error}</p>;
  if (!entries) return null;
  return (
    <section class="skill-files small" data-testid="skill-files" aria-label="The skill’s other files">
      <h3 class="small">Other files in the skill</h3>
      {entries.length === 0 ? (
        <p class="muted">None: scripts, references or assets the skill uses go beside SKILL.md.</p>
      ) : (
        <ul>
          {entries.map((e) => (
            <li key={e.uri}>
              {e.dir ? (
                <span>{e.name}/</span>
              ) : (
                <button type="button" class="link small" data-testid="skill-file" onClick={() => onOpenFile(e)}>
                  {e.name}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
