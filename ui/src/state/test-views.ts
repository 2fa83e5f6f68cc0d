// Views for unit tests, complete as the generated types require, with
// what a test cares about passed in. Imported by *.test.ts only.
import type { ChatMeta, ChatOp, PartView, StartView, TurnView } from './chat-store';
import type { CustomizationContainer, CustomizationItem } from './customizations';
import type { Question } from './input-form';

export const turnView = (id: string, extra: Partial<TurnView> = {}): TurnView => ({
  id,
  active: false,
  startedAt: null,
  duration: null,
  message: { text: id, model: null, agent: null, attachments: [], review: null },
  parts: [],
  usage: null,
  state: 'complete',
  ...extra,
});

export const chatMeta = (extra: Partial<ChatMeta> = {}): ChatMeta => ({
  resource: 'c',
  title: '',
  status: 1,
  activity: null,
  queued: [],
  steering: null,
  draft: null,
  olderCursor: null,
  activeTurnId: null,
  forkedFrom: null,
  ...extra,
});

export const markdownPart = (id: string, ...blocks: string[]): PartView => ({ kind: 'markdown', id, blocks });

export const startView = (lifecycle: StartView['lifecycle'], extra: Partial<StartView> = {}): StartView => ({
  lifecycle,
  provider: 'fake',
  error: null,
  signIn: null,
  held: [],
  unsent: [],
  settings: [],
  ...extra,
});

/** A `snapshot` op: no turns, no running turn, no start view unless given. */
export const chatSnapshot = (extra: Partial<Extract<ChatOp, { op: 'snapshot' }>> = {}): ChatOp => ({
  op: 'snapshot',
  meta: chatMeta(),
  turns: [],
  active: null,
  start: null,
  customizations: null,
  ...extra,
});

/** The HTML of a markdown part (`undefined` for other kinds). */
export const htmlOf = (part: PartView | undefined): string | undefined =>
  part?.kind === 'markdown' || part?.kind === 'reasoning' ? part.blocks.join('') : undefined;

/**
 * A question of `kind` with every field a question may have (null, [] or
 * '') and then `extra`: the form functions read only the fields of the
 * kind, so one complete shape serves every kind in tests.
 */
export const question = (kind: Question['kind'], extra: Record<string, unknown> = {}): Question =>
  ({
    kind,
    id: 'q',
    title: null,
    message: '',
    required: null,
    format: null,
    min: null,
    max: null,
    defaultValue: null,
    options: [],
    allowFreeformInput: null,
    ...extra,
  }) as Question;

/** Options `{id, label: id}` of a select question. */
export const options = (...ids: string[]) =>
  ids.map((id) => ({ id, label: id.toUpperCase(), description: null, recommended: null }));

/** A customization item: on, no decisions, no badges unless given. */
export const customizationItem = (
  kind: CustomizationItem['kind'],
  name: string,
  extra: Partial<CustomizationItem> = {},
): CustomizationItem => ({
  id: `${kind}:${name}`,
  kind,
  name,
  uri: `file:///w/${name}`,
  at: null,
  description: null,
  enabled: true,
  decisions: { session: null, workspace: null, global: null, decidedBy: null },
  readBy: [],
  appliedBy: null,
  note: null,
  restartPending: false,
  shadowedBy: null,
  notPassed: null,
  mcpStatus: null,
  mcpMessage: null,
  ...extra,
});

/** A directory (`contents` given), plugin or MCP server container. */
export const customizationContainer = (
  item: CustomizationItem,
  children: CustomizationItem[] = [],
  extra: Partial<CustomizationContainer> = {},
): CustomizationContainer => ({
  item,
  contents: null,
  writable: true,
  scope: 'project',
  version: null,
  manifest: null,
  load: 'loaded',
  loadMessage: null,
  children,
  childrenKnown: true,
  ...extra,
});
