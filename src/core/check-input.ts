// The CLI's side of the one validate() (contract/params.ts): a parameter the endpoint would refuse
// stops the command before anything is sent (exit 2), in the words the sandbox uses.
import { messageOf, validate, type Described, type EndpointInput, type ValidateEnv } from '../contract/params.js';
import { UsageError } from './errors.js';

/**
 * Throws the first violation as a UsageError naming the flag; `hints` by wire name; `env` what
 * the rules may need (is the API on loopback, the time now).
 */
export function checkInput(
  e: Described,
  input: EndpointInput,
  hints: Record<string, string> = {},
  env: ValidateEnv = {},
): void {
  const v = validate(e, input, env);
  if (!v) return;
  const hint = hints[v.name];
  throw new UsageError(messageOf(v, 'cli'), { flag: v.flag ?? v.name, ...(hint ? { hint } : {}) });
}
