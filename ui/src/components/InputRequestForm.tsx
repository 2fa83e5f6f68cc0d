// An input request: one field per question, defaults, validation, drafts
// synced with chat/inputAnswerChanged, and submit / skip / decline. A url-mode
// request shows its link (host first); a request left open by a turn that
// ended shows as not answered.
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type Answers,
  type AnswerValue,
  type AnswerView,
  type DraftSync,
  draftFits,
  draftsFromElsewhere,
  formErrors,
  freeformText,
  type InputRequestPart,
  initialValue,
  noteSentDraft,
  parseNumber,
  type Question,
  responseLabel,
  submittedAnswers,
  toggleMany,
  withFreeform,
} from '../state/input-form';

export function InputRequestForm({
  part,
  live = true,
  onDraft,
  onComplete,
}: {
  part: InputRequestPart;
  live?: boolean;
  onDraft: (requestId: string, questionId: string, answer: AnswerView | null) => void;
  onComplete: (requestId: string, response: NonNullable<InputRequestPart['response']>, answers?: Answers) => void;
}) {
  const req = part.request;
  const questions = req.questions;
  const done = part.response != null || !live;
  const [values, setValues] = useState<Record<string, AnswerValue | undefined>>(() =>
    Object.fromEntries(questions.map((q) => [q.id, initialValue(q, req.answers)])),
  );
  const [touched, setTouched] = useState(false);
  // What was typed in each multi-select's "Other…" field (kept while it means the same list).
  const [typed, setTyped] = useState<Record<string, string>>({});
  const sync = useRef<DraftSync>({ sent: {}, seen: {} });
  // Drafts answered elsewhere flow in; this form's own echoes do not (a
  // late one would undo what was typed since).
  useEffect(() => {
    const incoming = draftsFromElsewhere(questions, req.answers, sync.current);
    if (Object.keys(incoming).length) setValues((cur) => ({ ...cur, ...incoming }));
  }, [JSON.stringify(req.answers)]);
  const set = (q: Question, v: AnswerValue | undefined) => {
    setValues((cur) => ({ ...cur, [q.id]: v }));
    // A value the host would refuse as a draft (2.5 for an integer) clears
    // the synced draft instead; the form keeps it and shows why on submit.
    const synced = v !== undefined && draftFits(q, v) ? v : undefined;
    if (synced !== undefined) noteSentDraft(sync.current, q.id, synced);
    onDraft(req.id, q.id, synced === undefined ? null : { state: 'draft', value: synced });
  };
  const errors = formErrors(questions, values);
  const submit = () => {
    setTouched(true);
    if (Object.keys(errors).length) return;
    onComplete(req.id, 'accept', submittedAnswers(questions, values));
  };
  if (done) {
    return (
      <div class="input-request done" data-testid="input-request" data-response={part.response ?? undefined}>
        <p>
          {req.message ?? 'Input request'} — <strong data-testid="input-outcome">{responseLabel(part)}</strong>
        </p>
      </div>
    );
  }
  return (
    <form
      class="input-request"
      data-testid="input-request"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {req.message && <p class="ir-message">{req.message}</p>}
      {req.url && (
        <p class="ir-url" data-testid="input-url">
          Opens <strong>{urlHost(req.url)}</strong>:{' '}
          <a href={req.url} target="_blank" rel="noreferrer noopener">
            {req.url}
          </a>
        </p>
      )}
      {questions.map((q) => {
        const v = values[q.id];
        const err = touched ? errors[q.id] : undefined;
        return (
          <fieldset class="question" data-question={q.id}>
            <legend>
              {q.title ?? q.message}
              {q.required ? ' *' : ''}
            </legend>
            {q.title && <p class="small">{q.message}</p>}
            {q.kind === 'text' && (
              <input
                type="text"
                value={v?.kind === 'text' ? v.value : ''}
                onInput={(e) => set(q, { kind: 'text', value: (e.target as HTMLInputElement).value })}
              />
            )}
            {(q.kind === 'number' || q.kind === 'integer') && (
              <input
                type="number"
                step={q.kind === 'integer' ? 1 : 'any'}
                min={q.min ?? undefined}
                max={q.max ?? undefined}
                value={v?.kind === 'number' ? String(v.value) : ''}
                onInput={(e) => set(q, parseNumber((e.target as HTMLInputElement).value))}
              />
            )}
            {q.kind === 'boolean' && (
              <label>
                <input
                  type="checkbox"
                  checked={v?.kind === 'boolean' && v.value}
                  onChange={(e) => set(q, { kind: 'boolean', value: (e.target as HTMLInputElement).checked })}
                />{' '}
                Yes
              </label>
            )}
            {q.kind === 'single-select' && (
              <div class="options">
                {q.options.map((o) => (
                  <label>
                    <input
                      type="radio"
                      name={`${req.id}-${q.id}`}
                      checked={v?.kind === 'selected' && v.value === o.id}
                      onChange={() => set(q, { kind: 'selected', value: o.id })}
                    />{' '}
                    {o.label}
                    {o.recommended ? ' (recommended)' : ''}
                  </label>
                ))}
                {q.allowFreeformInput && (
                  <input
                    type="text"
                    placeholder="Other…"
                    data-testid="freeform"
                    value={freeformText(q, v)}
                    onInput={(e) => set(q, withFreeform(q, v, (e.target as HTMLInputElement).value))}
                  />
                )}
              </div>
            )}
            {q.kind === 'multi-select' && (
              <div class="options">
                {q.options.map((o) => (
                  <label>
                    <input
                      type="checkbox"
                      checked={v?.kind === 'selected-many' && v.value.includes(o.id)}
                      onChange={() => set(q, toggleMany(v, o.id))}
                    />{' '}
                    {o.label}
                  </label>
                ))}
                {q.allowFreeformInput && (
                  <input
                    type="text"
                    placeholder="Other (comma separated)…"
                    data-testid="freeform"
                    value={freeformText(q, v, typed[q.id])}
                    onInput={(e) => {
                      const text = (e.target as HTMLInputElement).value;
                      setTyped((cur) => ({ ...cur, [q.id]: text }));
                      set(q, withFreeform(q, v, text));
                    }}
                  />
                )}
              </div>
            )}
            {err && (
              <p class="error small" role="alert" data-testid="question-error">
                {err}
              </p>
            )}
          </fieldset>
        );
      })}
      <div class="ir-actions">
        <button type="submit" class="primary" data-testid="input-submit">
          {req.url && !questions.length ? 'Done' : 'Submit'}
        </button>
        <button
          type="button"
          data-testid="input-skip"
          onClick={() =>
            onComplete(req.id, 'accept', Object.fromEntries(questions.map((q) => [q.id, { state: 'skipped' }])))
          }
        >
          Skip
        </button>
        <button type="button" class="danger" data-testid="input-decline" onClick={() => onComplete(req.id, 'decline')}>
          Decline
        </button>
      </div>
    </form>
  );
}

/** The host part of a URL (what the user must see before opening it). */
function urlHost(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}
