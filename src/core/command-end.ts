// Clean-up for when the command is done (main.ts runs it): pooled sockets, for one. Kept free of
// imports so that the lowest layer can register here without reaching up to main.ts.

const atEnd: Array<() => void> = [];

/** Registers clean-up for when the command is done. */
export function atCommandEnd(fn: () => void): void {
  if (!atEnd.includes(fn)) atEnd.push(fn);
}

/** Runs (and forgets) every registered clean-up. */
export function runCommandEnd(): void {
  for (const fn of atEnd.splice(0)) fn();
}

let interrupt: AbortSignal | undefined;

/** main.ts: the process's Ctrl-C/SIGTERM signal, for work that runs outside a command's Context (jq). */
export function setInterruptSignal(s: AbortSignal): void {
  interrupt = s;
}

/** The process's interrupt signal, when running as the CLI. */
export function interruptSignal(): AbortSignal | undefined {
  return interrupt;
}
