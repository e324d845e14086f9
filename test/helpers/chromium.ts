// Headless Chromium for the browser tests: Debian's binary (never downloaded), driven by
// playwright-core. The tests skip ONLY when it is absent, and say so loudly.
import fs from 'node:fs';
import type { BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = fs.existsSync(CHROMIUM);

/** Warns once per test file that its browser tests are skipped. */
export function warnIfMissing(what: string): void {
  if (!haveChromium)
    console.warn(
      `\n!!! ${CHROMIUM} is missing: the browser test of ${what} is SKIPPED. Install it with \`apt-get install -y chromium\` (.ci/run does). !!!\n`,
    );
}

/** A headless Chromium with its own profile folder. */
export async function launchChromium(profileDir: string): Promise<BrowserContext> {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
