// Chromium (Debian's package) driven by playwright-core, and an app listening on a free
// port for it to visit. The flags keep Chromium off the network it cannot reach.
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Whether the browser tests can run. In CI a missing Chromium is a failure, never a
 * silent skip; on a developer's machine the suite says so and skips them.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing (apt-get install -y chromium): the browser tests cannot run in CI`);
  console.warn(`    ${CHROMIUM} is missing (apt-get install -y chromium): browser test skipped`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
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

/** Starts the app on 127.0.0.1 and a free port; returns the server and its base URL. */
export async function listenOnFreePort(app: Express): Promise<{ server: Server; baseUrl: string }> {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
