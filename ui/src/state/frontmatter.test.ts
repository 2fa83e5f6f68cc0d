import { describe, expect, it } from 'vitest';
import { fieldOf, joinFrontmatter, splitFrontmatter } from './frontmatter';

describe('front matter', () => {
  const file =
    '---\n# who reviews\nname: reviewer\ndescription: Reviews code\ntools: [Read, Grep]\ncolor: blue\n---\nYou review.\n';

  it('reads fields, and a save keeps the keys and comments the form does not show', () => {
    const s = splitFrontmatter(file);
    expect(fieldOf(s, 'name')).toBe('reviewer');
    expect(fieldOf(s, 'tools')).toEqual(['Read', 'Grep']);
    expect(s.body).toBe('You review.\n');
    const out = joinFrontmatter(s, { description: 'Reviews diffs', model: 'sonnet', tools: [] }, 'Body.\n');
    expect(out).toContain('# who reviews');
    expect(out).toContain('description: Reviews diffs');
    expect(out).toContain('model: sonnet');
    expect(out).toContain('color: blue');
    expect(out).not.toContain('tools');
    expect(out.endsWith('---\nBody.\n')).toBe(true);
  });

  it('writes block YAML for a file without front matter, and says why broken YAML is not a form', () => {
    const out = joinFrontmatter(splitFrontmatter('Just text\n'), { name: 'a', tools: ['Read'] }, 'Just text\n');
    expect(out).toBe('---\nname: a\ntools:\n  - Read\n---\nJust text\n');
    expect(splitFrontmatter('---\nname: [oops\n---\nx').error).toBeTruthy();
  });
});
