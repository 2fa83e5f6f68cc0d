// What the editor gives a form over one entry of a JSON file (an MCP
// server, a hook, a plugin's manifest): the file's text, and where in it
// the entry is. A form rewrites the text on each change and reports its
// problems; the editor saves the text.

export interface EntryFormProps {
  host: string;
  session: string;
  /** The file. */
  uri: string;
  /** The file's whole text, as the editor holds it. */
  text: string;
  /** Bumped when the text is replaced from outside the form (a read, the
   * disk's version taken, text mode left): the form reads it again. */
  version: number;
  /** The entry's JSON pointer (null: a new entry, not written yet). */
  at: string | null;
  /** The pointer as last saved (Test runs what is saved). */
  savedAt: string | null;
  /** The saved entry's customization id (for Test). */
  id?: string;
  /** Agent ids that read the file. */
  readBy: string[];
  /** The editor holds unsaved changes. */
  dirty: boolean;
  /** The text after a change, and the entry's pointer in it. */
  onChange: (text: string, at: string | null) => void;
  /** The form's problems (none: it may be saved). */
  onProblems: (problems: string[]) => void;
}
