// Emulator behaviour of ads resources kept out of the contract files (src/ads/resources/): the
// sandbox attaches it to the resource it names when it installs the routes, so the CLI never
// loads it and the resource files read as the service's description.
import type { OperationDef, ResourceDef, SandboxHooks, SandboxOps } from '../../ads/resource-types.js';

export interface Behaviour {
  /** Hooks of the generic store (create, update, delete, listFilter, present...). */
  hooks?: SandboxHooks;
  /** Bespoke operations by CLI verb: what the endpoint answers (the envelope's data). */
  ops?: Record<string, (ops: SandboxOps) => unknown>;
  /** Data served read-only (reference data), stored when the sandbox starts. */
  fixtures?: ResourceDef['fixtures'];
}

/** The resource with its behaviour attached (a copy; the table itself is not changed). */
export function withBehaviour(r: ResourceDef, b: Behaviour | undefined): ResourceDef {
  if (!b) return r;
  const operations: OperationDef[] = r.operations.map((op) =>
    b.ops?.[op.verb] ? { ...op, sandbox: b.ops[op.verb] } : op,
  );
  return { ...r, operations, sandbox: { ...r.sandbox, ...b.hooks }, ...(b.fixtures ? { fixtures: b.fixtures } : {}) };
}
