// Input requests (chat/inputRequested parts): defaults, validation and the
// answers sent with chat.inputAnswer and chat.inputComplete. Questions,
// values and answers are the types generated from Rust (src/gen).

import type { AnswerValue } from '../gen/AnswerValue';
import type { AnswerView } from '../gen/AnswerView';
import type { InputOptionView } from '../gen/InputOptionView';
import type { InputRequestPart } from '../gen/InputRequestPart';
import type { QuestionView } from '../gen/QuestionView';

export type { AnswerValue, AnswerView, InputRequestPart };
export type Question = QuestionView;
/** Answers by question id. */
export type Answers = { [id: string]: AnswerView };

/** A select question's options ([] for other kinds). */
const optionsOf = (q: Question): InputOptionView[] =>
  q.kind === 'single-select' || q.kind === 'multi-select' ? q.options : [];

/** The value of a synced answer (a skipped one has none). */
const syncedValue = (a: AnswerView | undefined): AnswerValue | undefined =>
  a && a.state !== 'skipped' ? a.value : undefined;

/** The form's starting value for a question: a synced draft, else the default. */
export function initialValue(q: Question, answers?: Answers): AnswerValue | undefined {
  const synced = syncedValue(answers?.[q.id]);
  if (synced) return synced;
  switch (q.kind) {
    case 'text':
      return q.defaultValue != null ? { kind: 'text', value: q.defaultValue } : undefined;
    case 'number':
    case 'integer':
      return q.defaultValue != null ? { kind: 'number', value: q.defaultValue } : undefined;
    case 'boolean':
      return q.defaultValue != null ? { kind: 'boolean', value: q.defaultValue } : undefined;
    case 'single-select': {
      const rec = q.options.find((o) => o.recommended);
      return rec ? { kind: 'selected', value: rec.id } : undefined;
    }
    case 'multi-select':
      return undefined;
  }
}

/** An error message for the value, or null when it is acceptable. */
export function validate(q: Question, v: AnswerValue | undefined): string | null {
  const required = q.required !== false && q.kind !== 'boolean';
  if (
    v === undefined ||
    (v.kind === 'text' && v.value === '') ||
    (v.kind === 'selected-many' && v.value.length === 0 && !v.freeformValues?.length)
  ) {
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
      const known = q.options.some((o) => o.id === v.value);
      return known || (q.allowFreeformInput && v.value.trim() !== '') ? null : 'Pick one of the options';
    }
    case 'multi-select': {
      if (v.kind !== 'selected-many') return 'Pick some';
      const n = v.value.length + (v.freeformValues?.length ?? 0);
      if (q.min != null && n < q.min) return `Pick at least ${q.min}`;
      if (q.max != null && n > q.max) return `Pick at most ${q.max}`;
      return null;
    }
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
  return {
    kind: 'selected-many',
    value,
    freeformValues: v && v.kind === 'selected-many' ? v.freeformValues : undefined,
  };
}

/** The `answers` map for chat/inputCompleted (accept). */
export function submittedAnswers(questions: Question[], values: Record<string, AnswerValue | undefined>): Answers {
  const out: Answers = {};
  for (const q of questions) {
    const v = values[q.id];
    out[q.id] = v === undefined ? { state: 'skipped' } : { state: 'submitted', value: v };
  }
  return out;
}

/** Whether every question validates. */
export function formErrors(
  questions: Question[],
  values: Record<string, AnswerValue | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const q of questions) {
    const e = validate(q, values[q.id]);
    if (e) out[q.id] = e;
  }
  return out;
}

/** The "Other…" list as typed: comma separated, blanks dropped. */
export function parseFreeformList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * What the "Other…" field of a select question shows for the current value
 * (a draft synced from another client included): a single-select value that
 * is none of the options; a multi-select's freeform values, or `typed` while
 * it still means the same list (so "a, " keeps its comma while typing).
 */
export function freeformText(q: Question, v: AnswerValue | undefined, typed = ''): string {
  if (q.kind === 'single-select') {
    return v?.kind === 'selected' && !q.options.some((o) => o.id === v.value) ? v.value : '';
  }
  const free = v?.kind === 'selected-many' ? (v.freeformValues ?? []) : [];
  return JSON.stringify(parseFreeformList(typed)) === JSON.stringify(free) ? typed : free.join(', ');
}

/** The value after typing `text` into a select question's "Other…" field. */
export function withFreeform(q: Question, v: AnswerValue | undefined, text: string): AnswerValue | undefined {
  if (q.kind === 'single-select') return text.trim() === '' ? undefined : { kind: 'selected', value: text };
  const picked = v?.kind === 'selected-many' ? v.value : [];
  const free = parseFreeformList(text);
  if (!picked.length && !free.length) return undefined;
  return { kind: 'selected-many', value: picked, freeformValues: free.length ? free : undefined };
}

/**
 * Whether a synced draft value (`incoming`, as JSON) is the echo of one this
 * form sent itself (`sent`, oldest first): an own echo is never applied —
 * an older one would overwrite what was typed since — and the echoes up to
 * it are done with. Anything else came from another client: apply it.
 */
export function ownDraftEcho(sent: string[], incoming: string): { own: boolean; sent: string[] } {
  const i = sent.indexOf(incoming);
  return i < 0 ? { own: false, sent: [] } : { own: true, sent: sent.slice(i + 1) };
}

/**
 * Whether the host takes `v` as a draft for `q`: a value of the question's
 * kind (a whole number for an integer, a listed option unless freeform
 * answers are allowed). Out-of-range or blank values are fine as drafts;
 * the host refuses only the wrong kind.
 */
export function draftFits(q: Question, v: AnswerValue): boolean {
  const known = (id: string) => optionsOf(q).some((o) => o.id === id);
  switch (q.kind) {
    case 'text':
      return v.kind === 'text';
    case 'number':
      return v.kind === 'number' && Number.isFinite(v.value);
    case 'integer':
      return v.kind === 'number' && Number.isInteger(v.value);
    case 'boolean':
      return v.kind === 'boolean';
    case 'single-select':
      return v.kind === 'selected' && (known(v.value) || !!q.allowFreeformInput);
    case 'multi-select':
      return (
        v.kind === 'selected-many' && (!!q.allowFreeformInput || (v.value.every(known) && !v.freeformValues?.length))
      );
  }
}

/** What a form knows about draft sync: drafts it sent not yet echoed, and each question's synced draft as last seen (JSON). */
export interface DraftSync {
  sent: Record<string, string[]>;
  seen: Record<string, string>;
}

/** Note a draft this form sends for `questionId`. */
export function noteSentDraft(sync: DraftSync, questionId: string, v: AnswerValue): void {
  (sync.sent[questionId] ??= []).push(JSON.stringify(v));
}

/**
 * The synced drafts the form should take: those that changed since it last
 * looked and are not echoes of its own (updates `sync`).
 */
export function draftsFromElsewhere(
  questions: Question[],
  answers: Answers | undefined,
  sync: DraftSync,
): Record<string, AnswerValue> {
  const out: Record<string, AnswerValue> = {};
  for (const q of questions) {
    const value = syncedValue(answers?.[q.id]);
    const now = value ? JSON.stringify(value) : '';
    if (now === (sync.seen[q.id] ?? '')) continue;
    sync.seen[q.id] = now;
    if (!value) continue;
    const echo = ownDraftEcho(sync.sent[q.id] ?? [], now);
    sync.sent[q.id] = echo.sent;
    if (!echo.own) out[q.id] = value;
  }
  return out;
}

/** How a finished request was answered, in words. */
export function responseLabel(part: {
  response: InputRequestPart['response'];
  request: { questions: Pick<Question, 'id'>[]; answers: Answers };
}): string {
  switch (part.response) {
    case null:
    case undefined:
      return 'not answered';
    case 'decline':
      return 'declined';
    case 'cancel':
      return 'cancelled';
    case 'accept': {
      const qs = part.request.questions;
      const skipped = qs.length > 0 && qs.every((q) => part.request.answers[q.id]?.state === 'skipped');
      return skipped ? 'skipped' : 'answered';
    }
  }
}
