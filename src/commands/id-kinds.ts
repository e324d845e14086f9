// Which arguments and options take an id the shell can complete from the service (issue 29 item
// 9), as data: the completion scripts (completion.ts) read it to know when to call
// `xctl __complete <kind>`, and complete-ids.ts how to list each kind.

export const ID_KINDS = ['campaign', 'line-item', 'audience', 'webhook', 'subscription'] as const;
export type IdKind = (typeof ID_KINDS)[number];

export function isIdKind(s: string): s is IdKind {
  return (ID_KINDS as readonly string[]).includes(s);
}

/** Argument names that hold one kind of id wherever they appear. */
const ARGUMENT_KINDS: Record<string, IdKind> = {
  'campaign-id': 'campaign',
  'line-item-id': 'line-item',
  'custom-audience-id': 'audience',
  'audience-id': 'audience',
  'webhook-id': 'webhook',
};

/** A bare `<id>` or `<ids...>` under these command paths (the group names the kind). */
const PATH_KINDS: Array<[prefix: string, kind: IdKind]> = [
  ['webhooks ', 'webhook'],
  ['activity subscriptions ', 'subscription'],
];

/** Options whose value is an id, or a comma list of ids, of one kind. */
export const OPTION_KINDS: Record<string, IdKind> = {
  '--campaign-id': 'campaign',
  '--campaign-ids': 'campaign',
  '--line-item-id': 'line-item',
  '--line-item-ids': 'line-item',
  '--audience-id': 'audience',
  '--custom-audience-ids': 'audience',
  '--webhook-id': 'webhook',
  '--webhook': 'webhook',
};

/** The kind of id the argument `name` of the command at `path` ("ads campaigns get") takes. */
export function argumentKind(path: string, name: string): IdKind | undefined {
  if (ARGUMENT_KINDS[name]) return ARGUMENT_KINDS[name];
  if (name !== 'id' && name !== 'ids') return undefined;
  return PATH_KINDS.find(([prefix]) => `${path} `.startsWith(prefix))?.[1];
}
