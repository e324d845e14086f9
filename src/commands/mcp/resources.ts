// The server's resources: the command reference of its tools (each flag with its rule, from the
// same declarations the CLI's help reads) and the platform's limits the contract states.
import {
  EXPIRY_MONTHS,
  ID_TYPES,
  MAX_BYTES,
  MAX_OPERATIONS,
  USERS_PER_REQUEST,
} from '../../contract/audience-users.js';
import { CRC_TIMEOUT_MS, DELIVERY_TIMEOUT_MS, REPLAY_WINDOW_MS } from '../../contract/webhooks.js';
import { listOrUndefined } from '../../contract/guards.js';
import { UsageError } from '../../core/errors.js';
import type { ToolSpec } from './tools.js';

export const RESOURCES = [
  {
    uri: 'xctl://reference',
    name: 'command reference',
    description: 'every tool: the xctl command it runs, read or write, and each parameter (the flag, its rule)',
    mimeType: 'text/markdown',
  },
  {
    uri: 'xctl://limits',
    name: 'platform limits',
    description: 'audience upload batches, identifier types, expiry, webhook time limits',
    mimeType: 'text/markdown',
  },
];

function reference(tools: ToolSpec[]): string {
  const lines = ['# xctl tools', ''];
  for (const t of tools) {
    lines.push(`## ${t.name} (${t.kind})`, '', t.description, '');
    for (const p of t.params) {
      const flag = p.flag ?? (p.negate ? p.negate : `<${p.key}>`);
      const d = typeof p.schema.description === 'string' ? p.schema.description : '';
      const choices = listOrUndefined(p.schema.enum);
      const values = choices ? ` (one of: ${choices.join(', ')})` : '';
      lines.push(
        `- \`${p.key}\` (${flag}${p.required ? ', required' : ''}${p.isPath ? ', a file under --root' : ''}): ${d}${values}`,
      );
    }
    if (t.kind === 'write') lines.push('- `plan_id`: execute this plan (without it: plan only)');
    lines.push('');
  }
  return lines.join('\n');
}

function limits(): string {
  return [
    '# Platform limits (as xctl checks them before sending)',
    '',
    '## Audience uploads',
    `- at most ${MAX_OPERATIONS} operations and ${MAX_BYTES.toLocaleString('en-US')} bytes per request`,
    `- users per request: default ${USERS_PER_REQUEST.default} (batch_size, at most ${USERS_PER_REQUEST.max.toLocaleString('en-US')})`,
    `- identifier types: ${ID_TYPES.join(', ')}`,
    `- a member expires ${EXPIRY_MONTHS} months after it was sent (sync refresh sends again)`,
    '',
    '## Webhooks',
    `- the CRC answer within ${CRC_TIMEOUT_MS / 1000} s; a delivery acknowledged with 200 within ${DELIVERY_TIMEOUT_MS / 1000} s`,
    `- replay reaches at most ${REPLAY_WINDOW_MS / 3_600_000} hours back`,
    '',
    "Each flag's own rule (ranges, list sizes, enums) is in xctl://reference.",
    '',
  ].join('\n');
}

export function readResource(uri: string, tools: ToolSpec[]): string {
  if (uri === 'xctl://reference') return reference(tools);
  if (uri === 'xctl://limits') return limits();
  throw new UsageError(`unknown resource ${uri}`);
}
