// The pieces the entry forms (`McpServerForm`, `HookForm`, `PluginForm`)
// share: a labelled one-line field, and the form's problems and warnings.

export function TextField({
  id,
  label,
  value,
  required,
  placeholder,
  testid,
  wide,
  onInput,
}: {
  id: string;
  label: string;
  value: string;
  required?: boolean;
  placeholder?: string;
  testid?: string;
  /** Spans both columns. */
  wide?: boolean;
  onInput: (value: string) => void;
}) {
  return (
    <div class={wide ? 'cust-field wide' : 'cust-field'} data-testid="cust-field" data-key={id}>
      <label for={id}>
        {label}
        {required && <span aria-hidden="true"> *</span>}
      </label>
      <input
        id={id}
        type="text"
        value={value}
        placeholder={placeholder}
        data-testid={testid}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)}
      />
    </div>
  );
}

/** What blocks a save, then what an agent does differently. */
export function FormNotes({ problems, warnings = [] }: { problems: string[]; warnings?: string[] }) {
  return (
    <>
      {problems.map((x) => (
        <p class="error small" data-testid="cust-field-problem">
          {x}
        </p>
      ))}
      {warnings.map((w) => (
        <p class="warn small" data-testid="cust-field-warning">
          {w}
        </p>
      ))}
    </>
  );
}
