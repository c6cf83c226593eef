// A real OpenID Connect provider for the tests (the npm `oidc-provider`, as certified by
// the OpenID Foundation): the tests start it themselves (tests/oidc/provider.py).
//
// Configured from the environment: OIDC_PORT, OIDC_ISSUER, OIDC_CLIENT_ID,
// OIDC_CLIENT_SECRET, OIDC_REDIRECT_URI, and OIDC_ACCOUNTS, a JSON object of login ->
// {email, name, groups}. Its development log-in form takes a login (any password): an
// account not in OIDC_ACCOUNTS signs in with no groups. Consent is given at once, as a
// city's own identity provider does for its own applications.
import Provider from 'oidc-provider';

const env = process.env;
const accounts = JSON.parse(env.OIDC_ACCOUNTS || '{}');

const configuration = {
  clients: [
    {
      client_id: env.OIDC_CLIENT_ID,
      client_secret: env.OIDC_CLIENT_SECRET,
      redirect_uris: [env.OIDC_REDIRECT_URI],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  scopes: ['openid', 'email', 'profile', 'groups'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
    groups: ['groups'],
  },
  // The groups travel in the ID token (Entra ID, Okta and Google Workspace put them there).
  conformIdTokenClaims: false,
  async findAccount(ctx, id) {
    const known = accounts[id] || { email: `${id}@unknown.example`, groups: [] };
    return {
      accountId: id,
      async claims() {
        return {
          sub: id,
          email: known.email,
          email_verified: true,
          name: known.name || id,
          groups: known.groups || [],
        };
      },
    };
  },
  async loadExistingGrant(ctx) {
    const { client, session } = ctx.oidc;
    const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
    grant.addOIDCScope('openid email profile groups');
    await grant.save();
    return grant;
  },
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ['clearance-test-oidc-provider'] },
};

const provider = new Provider(env.OIDC_ISSUER, configuration);
provider.listen(Number(env.OIDC_PORT), '127.0.0.1', () => {
  console.log(`oidc-provider listening at ${env.OIDC_ISSUER}`);
});
