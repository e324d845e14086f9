// OAuth endpoints (docs/contract.md, credentials 2-4): the three-legged OAuth 1.0a flow, token
// invalidation, the app-only bearer, and the credential check.
import { endpoint } from './endpoint.js';
import { param, type ParamSpec } from './params.js';
import { V1Code } from './service-errors.js';
import { v1Flag } from './users.js';

/** x_auth_access_type: lowers the requested access level (docs/contract.md, credentials 4). */
export const ACCESS_TYPE_PARAM = param.oneOf('x_auth_access_type', ['read', 'write'], {
  in: 'query',
  code: V1Code.InvalidParameter,
});

const text = (name: string, rule: string, o: Partial<ParamSpec> = {}): ParamSpec => ({
  name,
  in: 'query',
  required: true,
  rule,
  ok: (v) => typeof v === 'string' && v !== '',
  ...o,
});

// The oauth_* parameters travel in the Authorization header (section 5), or signed in the query or
// body; the sandbox merges them and checks them as the query.

const v1 = { rate: 'oauth', style: 'v1' } as const;
const page = { auth: 'none', rate: 'oauth', style: 'oauth' } as const;

/** Step 2's page: the request token, and what the app may ask of the sign-in. */
const pageParams: ParamSpec[] = [
  text('oauth_token', 'the request token of step 1'),
  {
    name: 'force_login',
    in: 'query',
    rule: 'true or false',
    ok: (v) => typeof v === 'string' && /^(true|false|1|0)$/i.test(v),
  },
  { name: 'screen_name', in: 'query', rule: 'a handle to prefill', ok: (v) => typeof v === 'string' },
];

export const OAUTH_ENDPOINTS = {
  requestToken: endpoint('POST', '/oauth/request_token', {
    auth: 'consumer',
    ...v1,
    doc: 'step 1: a request token for an oauth_callback (or oob)',
    params: [
      text('oauth_callback', 'a registered callback URL, or "oob" for PIN mode', {
        code: V1Code.BadAuthenticationData,
      }),
      ACCESS_TYPE_PARAM,
    ],
    answer: 'form: oauth_token, oauth_token_secret, oauth_callback_confirmed',
  }),
  authorizePage: endpoint('GET', '/oauth/authorize', {
    ...page,
    doc: 'step 2: the page where the user allows or denies the app',
    params: pageParams,
    answer: 'the consent page (HTML)',
  }),
  authenticatePage: endpoint('GET', '/oauth/authenticate', {
    ...page,
    doc: 'step 2 (sign in with): as /oauth/authorize',
    params: pageParams,
    answer: 'the consent page (HTML)',
  }),
  /** XDK's "Log in with X" link (x.com/i/oauth/authenticate) names the same step. */
  loginWithXPage: endpoint('GET', '/i/oauth/authenticate', {
    ...page,
    doc: 'step 2, as XDK links it: as /oauth/authenticate',
    params: pageParams,
    answer: 'the consent page (HTML)',
  }),
  authorizeDecision: endpoint('POST', '/oauth/authorize', {
    ...page,
    doc: "the page's form: redirects to the callback with oauth_verifier (or shows the PIN)",
    params: [
      text('oauth_token', 'the request token of step 1'),
      param.oneOf('decision', ['allow', 'deny'], { in: 'query', required: true }),
      { name: 'screen_name', in: 'query', rule: 'a sandbox user', ok: (v) => typeof v === 'string' },
    ],
    answer: '302 to the callback with oauth_token and oauth_verifier, or the PIN page',
  }),
  accessToken: endpoint('POST', '/oauth/access_token', {
    auth: 'consumer',
    ...v1,
    doc: "step 3: exchange the verifier for the user's access token",
    params: [
      text('oauth_token', 'the request token'),
      text('oauth_verifier', 'the verifier from the callback, or the PIN'),
    ],
    answer: 'form: oauth_token, oauth_token_secret, user_id, screen_name',
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
    // docs/contract.md, credentials 4: grant_type in the form body only, client_credentials only.
    params: [param.oneOf('grant_type', ['client_credentials'], { in: 'body', required: true })],
    answer: '{"token_type":"bearer","access_token"}',
  }),
  invalidateBearer: endpoint('POST', '/oauth2/invalidate_token', {
    auth: 'user',
    ...v1,
    doc: 'revoke the app-only bearer (access_token), signed by the app owner',
    params: [text('access_token', "the application's bearer token")],
    answer: '{"access_token"}',
  }),
  verifyCredentials: endpoint('GET', '/1.1/account/verify_credentials.json', {
    auth: 'user',
    rate: 'default',
    style: 'v1',
    doc: 'the signing user (the x-access-level header: its access level)',
    params: [
      v1Flag('include_entities', 'keep the entities node'),
      v1Flag('skip_status', 'leave out the latest post'),
      v1Flag('include_email', 'add the email address, where the app may read it'),
    ],
    answer: 'the v1.1 user object {id,id_str,name,screen_name,...}',
  }),
  rateLimitStatus: endpoint('GET', '/1.1/application/rate_limit_status.json', {
    auth: 'user-or-bearer',
    rate: 'default',
    style: 'v1',
    doc: 'rate-limit readings per endpoint',
    params: [
      {
        name: 'resources',
        in: 'query',
        rule: 'a comma list of families (account, application, media...); an unknown one is left out',
        ok: (v) => typeof v === 'string',
      },
    ],
    answer: '{"rate_limit_context":{access_token|application},"resources":{family:{endpoint:{limit,remaining,reset}}}}',
  }),
} as const;
