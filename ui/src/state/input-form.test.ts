import { describe, expect, it } from 'vitest';
import {
  type AnswerView,
  type DraftSync,
  draftFits,
  draftsFromElsewhere,
  formErrors,
  freeformText,
  initialValue,
  noteSentDraft,
  ownDraftEcho,
  parseNumber,
  responseLabel,
  submittedAnswers,
  toggleMany,
  validate,
  withFreeform,
} from './input-form';
import { options, question } from './test-views';

describe('input request forms', () => {
  it('starts from synced drafts, then defaults', () => {
    const q = question('text', { id: 'name', message: 'Name?', defaultValue: 'x' });
    expect(initialValue(q)).toEqual({ kind: 'text', value: 'x' });
    expect(initialValue(q, { name: { state: 'draft', value: { kind: 'text', value: 'typed' } } })).toEqual({
      kind: 'text',
      value: 'typed',
    });
    const sel = question('single-select', {
      id: 's',
      options: [...options('a'), { ...options('b')[0], recommended: true }],
    });
    expect(initialValue(sel)).toEqual({ kind: 'selected', value: 'b' });
    expect(initialValue(question('boolean', { id: 'b', defaultValue: false }))).toEqual({
      kind: 'boolean',
      value: false,
    });
  });

  it('validates every question kind', () => {
    expect(validate(question('text', { required: true }), undefined)).toBe('Required');
    expect(validate(question('text', { min: 3 }), { kind: 'text', value: 'ab' })).toMatch(/At least 3/);
    expect(validate(question('text', { format: 'email' }), { kind: 'text', value: 'nope' })).toMatch(/email/);
    expect(validate(question('integer'), { kind: 'number', value: 1.5 })).toMatch(/whole/);
    expect(validate(question('number', { max: 10 }), { kind: 'number', value: 11 })).toMatch(/At most 10/);
    expect(validate(question('number'), parseNumber('abc'))).toMatch(/number/);
    const sel = question('single-select', { options: options('a') });
    expect(validate(sel, { kind: 'selected', value: 'zzz' })).toMatch(/options/);
    expect(
      validate(question('single-select', { options: options('a'), allowFreeformInput: true }), {
        kind: 'selected',
        value: 'zzz',
      }),
    ).toBeNull();
    const many = question('multi-select', { options: options('a', 'b'), min: 2 });
    expect(validate(many, toggleMany(undefined, 'a'))).toMatch(/at least 2/);
    expect(validate(many, toggleMany(toggleMany(undefined, 'a'), 'b'))).toBeNull();
    expect(toggleMany(toggleMany(undefined, 'a'), 'a')).toEqual({
      kind: 'selected-many',
      value: [],
      freeformValues: undefined,
    });
  });

  it('builds submitted answers with skipped blanks', () => {
    const qs = [question('text', { id: 'a' }), question('boolean', { id: 'b' })];
    const values = { a: { kind: 'text' as const, value: 'hi' }, b: undefined };
    expect(submittedAnswers(qs, values)).toEqual({
      a: { state: 'submitted', value: { kind: 'text', value: 'hi' } },
      b: { state: 'skipped' },
    });
    expect(formErrors(qs, values)).toEqual({});
  });

  it('binds the "Other…" fields to the value, synced drafts included', () => {
    const one = question('single-select', { id: 's', options: options('a'), allowFreeformInput: true });
    expect(freeformText(one, { kind: 'selected', value: 'a' })).toBe('');
    // A draft typed on another client fills the field.
    expect(freeformText(one, { kind: 'selected', value: 'my own' })).toBe('my own');
    expect(freeformText(one, undefined)).toBe('');
    expect(withFreeform(one, undefined, 'mine')).toEqual({ kind: 'selected', value: 'mine' });
    expect(withFreeform(one, { kind: 'selected', value: 'x' }, '  ')).toBeUndefined();
    const many = question('multi-select', { id: 'm', options: options('a'), allowFreeformInput: true });
    const drafted = { kind: 'selected-many' as const, value: ['a'], freeformValues: ['x', 'y'] };
    expect(freeformText(many, drafted)).toBe('x, y');
    // While typing, the raw text stays as long as it means the same list.
    expect(freeformText(many, { ...drafted, freeformValues: ['x'] }, 'x, ')).toBe('x, ');
    expect(freeformText(many, drafted, 'x, ')).toBe('x, y');
    expect(withFreeform(many, { kind: 'selected-many', value: ['a'] }, 'x, ,y')).toEqual(drafted);
    expect(withFreeform(many, { kind: 'selected-many', value: ['a'], freeformValues: ['x'] }, '')).toEqual({
      kind: 'selected-many',
      value: ['a'],
      freeformValues: undefined,
    });
    expect(withFreeform(many, undefined, ' ')).toBeUndefined();
  });

  it('ignores the echoes of its own drafts, applies drafts from elsewhere', () => {
    // Typed "1" then "12": the late echo of "1" must not undo "12".
    expect(ownDraftEcho(['1', '12'], '1')).toEqual({ own: true, sent: ['12'] });
    expect(ownDraftEcho(['12'], '12')).toEqual({ own: true, sent: [] });
    // A value this form never sent came from another client.
    expect(ownDraftEcho(['12'], '7')).toEqual({ own: false, sent: [] });
    expect(ownDraftEcho([], '7')).toEqual({ own: false, sent: [] });
  });

  it('syncs only drafts of the kind the host takes', () => {
    expect(draftFits(question('integer'), { kind: 'number', value: 100 })).toBe(true);
    expect(draftFits(question('integer'), { kind: 'number', value: 2.5 })).toBe(false);
    expect(draftFits(question('number'), { kind: 'number', value: NaN })).toBe(false);
    expect(draftFits(question('number'), { kind: 'number', value: 1.5 })).toBe(true);
    const sel = question('single-select', { options: options('a') });
    expect(draftFits(sel, { kind: 'selected', value: 'a' })).toBe(true);
    expect(draftFits(sel, { kind: 'selected', value: 'typed' })).toBe(false);
    expect(
      draftFits(question('single-select', { options: options('a'), allowFreeformInput: true }), {
        kind: 'selected',
        value: 'typed',
      }),
    ).toBe(true);
    const many = question('multi-select', { options: options('a') });
    expect(draftFits(many, { kind: 'selected-many', value: ['a'] })).toBe(true);
    expect(draftFits(many, { kind: 'selected-many', value: ['a'], freeformValues: ['x'] })).toBe(false);
    expect(draftFits(question('text'), { kind: 'boolean', value: true })).toBe(false);
  });

  it('takes a synced draft once, and never its own echo', () => {
    const qs = [question('integer', { id: 'a' }), question('number', { id: 'b' })];
    const sync: DraftSync = { sent: {}, seen: {} };
    const n = (value: number): AnswerView => ({ state: 'draft', value: { kind: 'number', value } });
    noteSentDraft(sync, 'a', { kind: 'number', value: 100 });
    expect(draftsFromElsewhere(qs, { a: n(100) }, sync)).toEqual({});
    // The user has typed on (2.5, not synced); another question's echo must not bring 100 back.
    noteSentDraft(sync, 'b', { kind: 'number', value: 1.5 });
    expect(draftsFromElsewhere(qs, { a: n(100), b: n(1.5) }, sync)).toEqual({});
    // Another client changes a: taken, once.
    expect(draftsFromElsewhere(qs, { a: n(7), b: n(1.5) }, sync)).toEqual({ a: { kind: 'number', value: 7 } });
    expect(draftsFromElsewhere(qs, { a: n(7), b: n(0.5) }, sync)).toEqual({ b: { kind: 'number', value: 0.5 } });
  });

  it('says how a finished request was answered', () => {
    const skipped: AnswerView = { state: 'skipped' };
    const request = { questions: [{ id: 'a' }, { id: 'b' }], answers: { a: skipped, b: skipped } };
    expect(responseLabel({ response: 'accept', request })).toBe('skipped');
    expect(
      responseLabel({
        response: 'accept',
        request: {
          ...request,
          answers: { ...request.answers, b: { state: 'submitted', value: { kind: 'boolean', value: true } } },
        },
      }),
    ).toBe('answered');
    expect(responseLabel({ response: 'accept', request: { questions: [], answers: {} } })).toBe('answered');
    expect(responseLabel({ response: 'decline', request })).toBe('declined');
    expect(responseLabel({ response: null, request })).toBe('not answered');
  });
});
