import { describe, expect, it } from 'vitest';
import { formErrors, initialValue, parseNumber, submittedAnswers, toggleMany, validate } from './input-form';

describe('input request forms', () => {
  it('starts from synced drafts, then defaults', () => {
    const q = { kind: 'text', id: 'name', message: 'Name?', defaultValue: 'x' };
    expect(initialValue(q)).toEqual({ kind: 'text', value: 'x' });
    expect(initialValue(q, { name: { state: 'draft', value: { kind: 'text', value: 'typed' } } })).toEqual({ kind: 'text', value: 'typed' });
    const sel = { kind: 'single-select', id: 's', message: '', options: [{ id: 'a', label: 'A' }, { id: 'b', label: 'B', recommended: true }] };
    expect(initialValue(sel)).toEqual({ kind: 'selected', value: 'b' });
    expect(initialValue({ kind: 'boolean', id: 'b', message: '', defaultValue: false })).toEqual({ kind: 'boolean', value: false });
  });

  it('validates every question kind', () => {
    expect(validate({ kind: 'text', required: true }, undefined)).toBe('Required');
    expect(validate({ kind: 'text', min: 3 }, { kind: 'text', value: 'ab' })).toMatch(/At least 3/);
    expect(validate({ kind: 'text', format: 'email' }, { kind: 'text', value: 'nope' })).toMatch(/email/);
    expect(validate({ kind: 'integer' }, { kind: 'number', value: 1.5 })).toMatch(/whole/);
    expect(validate({ kind: 'number', max: 10 }, { kind: 'number', value: 11 })).toMatch(/At most 10/);
    expect(validate({ kind: 'number' }, parseNumber('abc'))).toMatch(/number/);
    const sel = { kind: 'single-select', options: [{ id: 'a' }] };
    expect(validate(sel, { kind: 'selected', value: 'zzz' })).toMatch(/options/);
    expect(validate({ ...sel, allowFreeformInput: true }, { kind: 'selected', value: 'zzz' })).toBeNull();
    const many = { kind: 'multi-select', options: [{ id: 'a' }, { id: 'b' }], min: 2 };
    expect(validate(many, toggleMany(undefined, 'a'))).toMatch(/at least 2/);
    expect(validate(many, toggleMany(toggleMany(undefined, 'a'), 'b'))).toBeNull();
    expect(toggleMany(toggleMany(undefined, 'a'), 'a')).toEqual({ kind: 'selected-many', value: [], freeformValues: undefined });
  });

  it('builds submitted answers with skipped blanks', () => {
    const qs = [{ kind: 'text', id: 'a', message: '' }, { kind: 'boolean', id: 'b', message: '' }];
    const values = { a: { kind: 'text' as const, value: 'hi' }, b: undefined };
    expect(submittedAnswers(qs, values)).toEqual({ a: { state: 'submitted', value: { kind: 'text', value: 'hi' } }, b: { state: 'skipped' } });
    expect(formErrors(qs, values)).toEqual({});
  });
});
