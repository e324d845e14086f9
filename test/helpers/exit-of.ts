// The exit code main.ts would give a run function's outcome, for in-process verb tests: 0, or
// the error's own (UsageError 2, CheckFailed and ApiError 1, AuthError 3, ...), with its message.
export async function exitOf(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
    return { code: 0, message: '' };
  } catch (e) {
    const err = e as Error & { exitCode?: number };
    return { code: err.exitCode ?? 1, message: err.message };
  }
}
