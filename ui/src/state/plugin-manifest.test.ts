import { describe, expect, it } from 'vitest';
import { documentOf } from './json-entry';
import { manifestForm, manifestProblems, saveManifest } from './plugin-manifest';

describe('plugin manifests', () => {
  it('reads and writes the fields, keeping the rest', () => {
    const text = '{\n  "name": "demo",\n  "version": "1.0.0",\n  "author": "Ann",\n  "keywords": ["x"]\n}\n';
    const form = manifestForm(text);
    expect(form).toEqual({
      name: 'demo',
      version: '1.0.0',
      description: '',
      authorName: 'Ann',
      authorEmail: '',
      homepage: '',
    });
    const out = saveManifest(text, { ...form, description: 'Adds x', authorEmail: 'ann@x.org', version: '1.1.0' });
    expect(documentOf(out)).toEqual({
      name: 'demo',
      version: '1.1.0',
      author: { name: 'Ann', email: 'ann@x.org' },
      keywords: ['x'],
      description: 'Adds x',
    });
  });

  it('checks name, version, homepage and email', () => {
    const form = manifestForm('{}');
    expect(manifestProblems(form)).toEqual(['Name: required']);
    expect(manifestProblems({ ...form, name: 'Bad Name', version: '1', homepage: 'x', authorEmail: 'y' })).toHaveLength(
      4,
    );
  });
});
