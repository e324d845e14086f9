// The time a command sees: the system's, or a test's fake one (sleeps return at once).
import { abortableSleep } from './sleep.js';

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: abortableSleep };
