// The agent's plan as a checklist. The host shows an ACP `plan` as a
// running tool call named `plan` whose text is one markdown line per entry
// (`- [x] done`, `- [~] in progress`, `- [ ] to do`), replaced on every
// update (crates/hangar-host/src/providers/turn.rs): these are its items.

export type PlanState = 'done' | 'doing' | 'todo';

export interface PlanItem {
  text: string;
  state: PlanState;
}

const LINE = /^\s*[-*]\s*\[( |x|X|~)\]\s?(.*)$/;

/** The plan's entries, in order; lines that are not entries are skipped. */
export function planItems(text: string): PlanItem[] {
  const items: PlanItem[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    const state: PlanState = m[1] === '~' ? 'doing' : m[1] === ' ' ? 'todo' : 'done';
    items.push({ text: m[2].trim(), state });
  }
  return items;
}

/** "2 of 5 done". */
export function planProgress(items: PlanItem[]): string {
  return `${items.filter((i) => i.state === 'done').length} of ${items.length} done`;
}
