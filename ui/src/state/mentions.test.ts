import { describe, expect, it } from 'vitest';
import { completionNote, mentionAttachments, rememberPick } from './mentions';

const notes = {
  insertText: '@notes.md',
  attachment: {
    type: 'resource',
    label: 'notes.md',
    uri: 'file:///w/notes.md',
    range: { start: { line: 0, character: 5 }, end: { line: 0, character: 14 } },
  },
};
const src = {
  insertText: '@src',
  attachment: { type: 'resource', label: 'src', uri: 'file:///w/src', displayKind: 'directory' },
};

describe('mention attachments', () => {
  it('attaches a picked item with its range where the text now is', () => {
    const picked = rememberPick([], notes);
    const [a] = mentionAttachments('Please read @notes.md now', picked);
    expect(a.uri).toBe('file:///w/notes.md');
    expect(a.range).toEqual({ start: { line: 0, character: 12 }, end: { line: 0, character: 21 } });
  });

  it('counts lines and UTF-16 columns', () => {
    const [a] = mentionAttachments('héllo 😀\nsee @notes.md', rememberPick([], notes));
    expect(a.range.start).toEqual({ line: 1, character: 4 });
  });

  it('drops a mention deleted from the text, and partial matches', () => {
    const picked = rememberPick(rememberPick([], notes), src);
    expect(mentionAttachments('only @src here', picked).map((a) => a.uri)).toEqual(['file:///w/src']);
    expect(mentionAttachments('@notes.md.bak and @srcs', picked)).toEqual([]);
  });

  it('keeps one pick per inserted text and ignores items without an attachment', () => {
    let picked = rememberPick([], notes);
    picked = rememberPick(picked, { ...notes, insertText: '@notes.md ' });
    picked = rememberPick(picked, { insertText: '@x' });
    expect(picked.length).toBe(1);
  });
});

describe('completion notes', () => {
  it("shows an agent command's hint and description, a file's nothing", () => {
    const review = {
      type: 'simple',
      label: '/review',
      displayKind: 'command',
      _meta: { 'hangar.agentCommand': true, description: 'Review my changes', hint: '[focus]' },
    };
    expect(completionNote(review)).toBe('[focus] — Review my changes');
    expect(completionNote({ type: 'resource', label: 'p', _meta: { description: 'Release notes' } })).toBe(
      'Release notes',
    );
    expect(completionNote(src.attachment)).toBe('');
  });
});
