import { describe, expect, it } from 'vitest';
import { planItems, planProgress } from './plan';

describe('planItems', () => {
  it('reads the host plan lines and skips anything else', () => {
    const items = planItems('- [x] Read the code\n- [~] Write the fix\n- [ ] Run the tests\nnot an entry\n\n');
    expect(items).toEqual([
      { text: 'Read the code', state: 'done' },
      { text: 'Write the fix', state: 'doing' },
      { text: 'Run the tests', state: 'todo' },
    ]);
    expect(planProgress(items)).toBe('1 of 3 done');
  });

  it('keeps brackets inside an entry', () => {
    expect(planItems('- [ ] Fix [x] in the parser')).toEqual([{ text: 'Fix [x] in the parser', state: 'todo' }]);
  });
});
