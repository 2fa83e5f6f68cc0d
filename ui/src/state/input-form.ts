// Input requests (chat/inputRequested parts): defaults, validation and the
// wire answer values for chat/inputAnswerChanged and chat/inputCompleted.

export type Question = any;
export type AnswerValue =
  | { kind: 'text'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'selected'; value: string; freeformValues?: string[] }
  | { kind: 'selected-many'; value: string[]; freeformValues?: string[] };

/** The form's starting value for a question: a synced draft, else the default. */
export function initialValue(q: Question, answers?: Record<string, any>): AnswerValue | undefined {
  const a = answers?.[q.id];
  if (a && (a.state === 'draft' || a.state === 'submitted') && a.value) return a.value;
  switch (q.kind) {
    case 'text':
      return q.defaultValue != null ? { kind: 'text', value: q.defaultValue } : undefined;
    case 'number':
    case 'integer':
      return q.defaultValue != null ? { kind: 'number', value: q.defaultValue } : undefined;
    case 'boolean':
      return q.defaultValue != null ? { kind: 'boolean', value: q.defaultValue } : undefined;
    case 'single-select': {
      const rec = (q.options ?? []).find((o: any) => o.recommended);
      return rec ? { kind: 'selected', value: rec.id } : undefined;
    }
    case 'multi-select':
      return undefined;
    default:
      return undefined;
  }
}

/** An error message for the value, or null when it is acceptable. */
export function validate(q: Question, v: AnswerValue | undefined): string | null {
  const required = q.required !== false && q.kind !== 'boolean';
  if (v === undefined || (v.kind === 'text' && v.value === '') || (v.kind === 'selected-many' && v.value.length === 0 && !v.freeformValues?.length)) {
    return required && q.required ? 'Required' : null;
  }
  switch (q.kind) {
    case 'text': {
      if (v.kind !== 'text') return 'Expected text';
      if (q.min != null && v.value.length < q.min) return `At least ${q.min} characters`;
      if (q.max != null && v.value.length > q.max) return `At most ${q.max} characters`;
      if (q.format === 'email' && !/^[^@\s]+@[^@\s]+$/.test(v.value)) return 'Not an email address';
      if (q.format === 'uri' && !/^[a-z][a-z0-9+.-]*:/i.test(v.value)) return 'Not a URI';
      return null;
    }
    case 'number':
    case 'integer': {
      if (v.kind !== 'number' || Number.isNaN(v.value)) return 'Expected a number';
      if (q.kind === 'integer' && !Number.isInteger(v.value)) return 'Expected a whole number';
      if (q.min != null && v.value < q.min) return `At least ${q.min}`;
      if (q.max != null && v.value > q.max) return `At most ${q.max}`;
      return null;
    }
    case 'boolean':
      return v.kind === 'boolean' ? null : 'Expected yes or no';
    case 'single-select': {
      if (v.kind !== 'selected') return 'Pick one';
      const known = (q.options ?? []).some((o: any) => o.id === v.value);
      return known || (q.allowFreeformInput && v.value.trim() !== '') ? null : 'Pick one of the options';
    }
    case 'multi-select': {
      if (v.kind !== 'selected-many') return 'Pick some';
      const n = v.value.length + (v.freeformValues?.length ?? 0);
      if (q.min != null && n < q.min) return `Pick at least ${q.min}`;
      if (q.max != null && n > q.max) return `Pick at most ${q.max}`;
      return null;
    }
    default:
      return null;
  }
}

/** Parse what the user typed into a number field. */
export function parseNumber(raw: string): AnswerValue | undefined {
  if (raw.trim() === '') return undefined;
  return { kind: 'number', value: Number(raw) };
}

/** Toggle an option in a multi-select value. */
export function toggleMany(v: AnswerValue | undefined, id: string): AnswerValue {
  const current = v && v.kind === 'selected-many' ? v.value : [];
  const value = current.includes(id) ? current.filter((x) => x !== id) : [...current, id];
  return { kind: 'selected-many', value, freeformValues: v && v.kind === 'selected-many' ? v.freeformValues : undefined };
}

/** The `answers` map for chat/inputCompleted (accept). */
export function submittedAnswers(questions: Question[], values: Record<string, AnswerValue | undefined>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const q of questions) {
    const v = values[q.id];
    out[q.id] = v === undefined ? { state: 'skipped' } : { state: 'submitted', value: v };
  }
  return out;
}

/** Whether every question validates. */
export function formErrors(questions: Question[], values: Record<string, AnswerValue | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of questions) {
    const e = validate(q, values[q.id]);
    if (e) out[q.id] = e;
  }
  return out;
}
