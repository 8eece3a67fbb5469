// A real OpenID Connect provider for the single sign-on tests (oidc-provider), in the
// test process, on 127.0.0.1: discovery, JWKS, authorization with PKCE, token and
// userinfo endpoints. Its login and consent need no browser: the interaction logs in
// `subject` at once and the grant is given without asking. `tamper` rewrites the next
// ID token the token endpoint answers (re-signed with the provider's own key), to
// produce a wrong audience, nonce or expiry that only the client's checks can catch.
import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

interface TestSubject {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export const CLIENT_ID = 'site-test-client';
export const CLIENT_SECRET = 'idp-client-secret-4f1d9c2b7a';

export interface TestIdp {
  issuer: string;
  subject: TestSubject;
  tamper?: (claims: Record<string, unknown>) => void;
  /** How the person signed in at the provider: its session's `amr` and `acr`, which its ID token then carries. */
  login?: { amr?: string[]; acr?: string };
  close(): Promise<void>;
}

function base64url(value: Buffer | string): string {
  return Buffer.from(value).toString('base64url');
}

function resign(token: string, key: KeyObject, change: (claims: Record<string, unknown>) => void): string {
  const [header, payload] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(claims);
  const input = `${header}.${base64url(JSON.stringify(claims))}`;
  const signature = createSign('RSA-SHA256').update(input).sign(key);
  return `${input}.${base64url(signature)}`;
}

/** Starts the provider; `redirectUris` are the site's callback URLs it accepts. */
export async function startTestIdp(redirectUris: string[]): Promise<TestIdp> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp: TestIdp = {
    issuer,
    subject: { sub: 'subject-1', email: 'ada@example.org', email_verified: true, name: 'Ada' },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-idp-cookie-key'] },
    pkce: { required: () => true },
    acrValues: ['urn:test:pwd', 'urn:test:mfa'],
    ttl: { Interaction: 600, Grant: 3600, Session: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    claims: { openid: ['sub', 'amr', 'acr'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount(_ctx: unknown, sub: string) {
      return Promise.resolve({ accountId: sub, claims: () => Promise.resolve({ ...idp.subject, sub }) });
    },
    // The consent is given without asking (a first-party client).
    async loadExistingGrant(ctx: { oidc: { client: { clientId: string }; session: { accountId: string } } }) {
      const grant = new provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      void provider.interactionFinished(req, res, { login: { accountId: idp.subject.sub, ...idp.login } }, { mergeWithLastSubmission: false });
      return;
    }
    if (req.url?.startsWith('/token') && idp.tamper) {
      const change = idp.tamper;
      idp.tamper = undefined;
      const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
      res.end = ((chunk?: unknown) => {
        const body = JSON.parse(Buffer.from(chunk as Buffer).toString('utf8')) as { id_token?: string };
        if (body.id_token) body.id_token = resign(body.id_token, privateKey, change);
        const text = JSON.stringify(body);
        res.setHeader('Content-Length', Buffer.byteLength(text));
        return end(text);
      }) as typeof res.end;
    }
    handle(req, res);
  });
  return idp;
}

/**
 * Follows the provider's redirects as a browser would (its cookies kept), from the
 * authorization URL to the site's callback; returns the callback's path and query.
 */
export async function walkProvider(authorizationUrl: string): Promise<string> {
  const cookies = new Map<string, string>();
  let url = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    if (!url.startsWith('http://127.0.0.1')) {
      const target = new URL(url);
      return target.pathname + target.search;
    }
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') } });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair.indexOf('=');
      cookies.set(pair.slice(0, index), pair.slice(index + 1));
    }
    const location = response.headers.get('location');
    if (!location) throw new Error(`the provider stopped at ${url} with ${response.status}: ${(await response.text()).slice(0, 300)}`);
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects at the provider');
}
