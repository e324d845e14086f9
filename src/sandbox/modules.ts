// Every module of the emulator, one line each. A module adds routes and state to the app.
import type { SandboxApp } from './app.js';
import * as oauth from './modules/oauth.js';
import * as oauth2 from './modules/oauth2.js';
import * as admin from './modules/admin.js';
import * as webhooks from './modules/webhooks.js';
import * as activity from './modules/activity.js';
import * as accountActivity from './modules/account-activity.js';
import * as streamRules from './modules/stream-rules.js';
import * as ads from './modules/ads.js';
import * as audienceUsers from './modules/audience-users.js';
import * as media from './modules/media.js';
import * as mediaV1 from './modules/media-v1.js';

export interface SandboxModule {
  install(app: SandboxApp): void;
  /** After a saved state was loaded: re-arm what ran on the clock (periodic checks). */
  restored?(app: SandboxApp): void;
}

export const MODULES: SandboxModule[] = [
  oauth,
  oauth2,
  admin,
  webhooks,
  activity,
  accountActivity,
  streamRules,
  ads,
  audienceUsers,
  media,
  mediaV1,
];
