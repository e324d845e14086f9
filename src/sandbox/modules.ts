// Every module of the emulator, one line each. A module adds routes and state to the app.
import type { SandboxApp } from './app.js';
import * as oauth from './modules/oauth.js';
import * as admin from './modules/admin.js';
import * as ads from './modules/ads.js';
import * as audienceUsers from './modules/audience-users.js';

export interface SandboxModule {
  install(app: SandboxApp): void;
}

export const MODULES: SandboxModule[] = [oauth, admin, ads, audienceUsers];
