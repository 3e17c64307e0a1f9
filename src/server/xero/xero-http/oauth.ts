import * as client from 'openid-client';
import type { XeroEndpoints } from '../endpoints';

export interface TokenSet {
  accessToken: string;
  refreshToken: string | undefined;
  expiresAt: Date;
  scope: string;
  idTokenClaims?: {
    sub: string;
    xero_userid?: string;
    email?: string;
    given_name?: string;
    family_name?: string;
    preferred_username?: string;
  };
}

/** Failures of the token endpoint, in OAuth's own vocabulary (`invalid_grant`, `invalid_client`, …). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'OAuthError';
  }
}

function toOAuthError(error: unknown): OAuthError {
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError) {
    return new OAuthError(
      error.error,
      error.error_description ?? error.error,
      'status' in error ? (error.status as number) : undefined,
    );
  }
  if (error instanceof OAuthError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return new OAuthError('network_error', `${message}${cause}`);
}

function toTokenSet(response: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers): TokenSet {
  const claims = response.id_token ? response.claims() : undefined;
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresAt: new Date(Date.now() + (response.expires_in ?? 1800) * 1000),
    scope: response.scope ?? '',
    ...(claims ? { idTokenClaims: claims as TokenSet['idTokenClaims'] } : {}),
  };
}

/**
 * Xero's identity service through openid-client: discovery from the issuer (the sandbox in demo mode),
 * authorization code with PKCE S256, state and nonce; refresh and revocation. Discovery is cached and
 * retried on the next call when it fails.
 */
export function createXeroOAuth(endpoints: XeroEndpoints) {
  let configuration: Promise<client.Configuration> | undefined;
  const getConfiguration = () => {
    configuration ??= client
      .discovery(
        new URL(endpoints.issuer),
        endpoints.clientId,
        endpoints.clientSecret,
        client.ClientSecretBasic(endpoints.clientSecret),
        {
          ...(endpoints.allowInsecureRequests ? { execute: [client.allowInsecureRequests] } : {}),
          timeout: 10,
        },
      )
      .catch((error: unknown) => {
        configuration = undefined;
        throw toOAuthError(error);
      });
    return configuration;
  };

  return {
    async createAuthorizationUrl(options: {
      redirectUri: string;
      state: string;
      nonce: string;
      codeVerifier: string;
      prompt?: string;
    }) {
      const config = await getConfiguration();
      const parameters: Record<string, string> = {
        redirect_uri: options.redirectUri,
        scope: endpoints.scopes,
        state: options.state,
        nonce: options.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(options.codeVerifier),
        code_challenge_method: 'S256',
        ...(options.prompt ? { prompt: options.prompt } : {}),
      };
      return client.buildAuthorizationUrl(config, parameters).href;
    },

    async exchangeCode(
      currentUrl: URL,
      checks: { codeVerifier: string; state: string; nonce: string },
    ): Promise<TokenSet> {
      const config = await getConfiguration();
      try {
        const response = await client.authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: checks.codeVerifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: endpoints.scopes.split(' ').includes('openid'),
        });
        return toTokenSet(response);
      } catch (error) {
        throw toOAuthError(error);
      }
    },

    async refresh(refreshToken: string): Promise<TokenSet> {
      const config = await getConfiguration();
      try {
        return toTokenSet(await client.refreshTokenGrant(config, refreshToken));
      } catch (error) {
        throw toOAuthError(error);
      }
    },

    async revoke(refreshToken: string): Promise<void> {
      const config = await getConfiguration();
      try {
        await client.tokenRevocation(config, refreshToken, { token_type_hint: 'refresh_token' });
      } catch (error) {
        throw toOAuthError(error);
      }
    },

    randomState: () => client.randomState(),
    randomNonce: () => client.randomNonce(),
    randomCodeVerifier: () => client.randomPKCECodeVerifier(),
  };
}
export type XeroOAuth = ReturnType<typeof createXeroOAuth>;
