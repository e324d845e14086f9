// OAuth endpoints (credentials-webhooks.md 2-4): the three-legged OAuth 1.0a flow, token
// invalidation, the app-only bearer, and the credential check.
import { endpoint } from './endpoint.js';

const v1 = { rate: 'oauth', style: 'v1' } as const;
const page = { auth: 'none', rate: 'oauth', style: 'oauth' } as const;

export const OAUTH_ENDPOINTS = {
  requestToken: endpoint('POST', '/oauth/request_token', {
    auth: 'consumer',
    ...v1,
    doc: 'step 1: a request token for an oauth_callback (or oob)',
  }),
  authorizePage: endpoint('GET', '/oauth/authorize', {
    ...page,
    doc: 'step 2: the page where the user allows or denies the app',
  }),
  authenticatePage: endpoint('GET', '/oauth/authenticate', {
    ...page,
    doc: 'step 2 (sign in with): as /oauth/authorize',
  }),
  /** XDK's "Log in with X" link (x.com/i/oauth/authenticate) names the same step. */
  loginWithXPage: endpoint('GET', '/i/oauth/authenticate', {
    ...page,
    doc: 'step 2, as XDK links it: as /oauth/authenticate',
  }),
  authorizeDecision: endpoint('POST', '/oauth/authorize', {
    ...page,
    doc: "the page's form: redirects to the callback with oauth_verifier (or shows the PIN)",
  }),
  accessToken: endpoint('POST', '/oauth/access_token', {
    auth: 'consumer',
    ...v1,
    doc: "step 3: exchange the verifier for the user's access token",
  }),
  invalidateUserToken: endpoint('POST', '/1.1/oauth/invalidate_token', {
    auth: 'user',
    ...v1,
    doc: 'revoke the signing user token',
  }),
  /** The same endpoint with the .json suffix older clients send. */
  invalidateUserTokenJson: endpoint('POST', '/1.1/oauth/invalidate_token.json', {
    auth: 'user',
    ...v1,
    doc: 'revoke the signing user token',
  }),
  bearerToken: endpoint('POST', '/oauth2/token', {
    auth: 'basic',
    ...v1,
    doc: 'the app-only bearer (grant_type=client_credentials); one per app',
  }),
  invalidateBearer: endpoint('POST', '/oauth2/invalidate_token', {
    auth: 'user',
    ...v1,
    doc: 'revoke the app-only bearer (access_token), signed by the app owner',
  }),
  verifyCredentials: endpoint('GET', '/1.1/account/verify_credentials.json', {
    auth: 'user',
    rate: 'default',
    style: 'v1',
    doc: 'the signing user',
  }),
  rateLimitStatus: endpoint('GET', '/1.1/application/rate_limit_status.json', {
    auth: 'user-or-bearer',
    rate: 'default',
    style: 'v1',
    doc: 'rate-limit readings per endpoint',
  }),
} as const;
