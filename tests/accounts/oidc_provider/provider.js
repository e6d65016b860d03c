// A real OpenID provider (panva/oidc-provider, OpenID-certified) for tests/accounts/test_oidc.py.
//
// Environment: OIDC_PORT (it listens on 127.0.0.1 only), OIDC_CLIENT_ID, OIDC_CLIENT_SECRET,
// OIDC_REDIRECT_URI, and OIDC_ACCOUNTS_FILE: a JSON object of login -> {password, groups,
// preferred_username?, email?}. The file is read on every use, so a test can change a person's
// groups between two sign-ins. Sign-in and consent are the provider's own dev interactions; only
// the password check below is added, since those interactions accept any login.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`provider.js: set ${name}`);
    process.exit(2);
  }
  return value;
}

const port = Number(required('OIDC_PORT'));
const accountsFile = required('OIDC_ACCOUNTS_FILE');
const accounts = () => JSON.parse(readFileSync(accountsFile, 'utf8'));

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: required('OIDC_CLIENT_ID'),
      client_secret: required('OIDC_CLIENT_SECRET'),
      redirect_uris: [required('OIDC_REDIRECT_URI')],
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  pkce: { required: () => true },
  scopes: ['openid', 'profile', 'email', 'groups'],
  claims: {
    openid: ['sub'],
    profile: ['preferred_username'],
    email: ['email'],
    groups: ['groups'],
  },
  async findAccount(ctx, id) {
    const account = accounts()[id];
    if (!account) return undefined;
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          preferred_username: account.preferred_username ?? id,
          email: account.email,
          groups: account.groups ?? [],
        };
      },
    };
  },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  features: { devInteractions: { enabled: true } },
});

async function formBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
}

// The dev login form takes any name: refuse a wrong password before it reaches the provider.
provider.use(async (ctx, next) => {
  if (ctx.method === 'POST' && /^\/interaction\/[^/]+$/.test(ctx.path)) {
    const body = await formBody(ctx.req);
    ctx.request.body = body; // the stream is read; the provider takes the parsed body instead
    if (body.prompt === 'login' && accounts()[body.login]?.password !== body.password) {
      ctx.status = 401;
      ctx.type = 'html';
      ctx.body = '<!doctype html><title>Sign-in</title><p>wrong login or password</p>';
      return;
    }
  }
  await next();
});

provider.listen(port, '127.0.0.1', () => console.log(`oidc-provider listening on ${provider.issuer}`));
