// A profile as the store keeps it: its own file so that the store (config.ts) and the keychain
// side (profile-secrets.ts) both read the shape without importing each other.
export interface Profile {
  api_key?: string;
  api_secret?: string;
  access_token?: string;
  access_token_secret?: string;
  user_id?: string;
  screen_name?: string;
  bearer_token?: string;
  /** The api_key the cached bearer belongs to. */
  bearer_key?: string;
  /** OAuth 2.0 app credentials (the Client ID, not the API key; a secret for confidential clients). */
  client_id?: string;
  client_secret?: string;
  /** The OAuth 2.0 user token (`auth login --oauth2`): rotated together by every refresh. */
  oauth2_access_token?: string;
  oauth2_refresh_token?: string;
  /** ISO time the access token expires. */
  oauth2_expires_at?: string;
  /** Granted scopes, space-separated (what the token endpoint answered, not what was asked). */
  oauth2_scopes?: string;
  /** The client the token was issued to: refreshing and revoking must use the same one. */
  oauth2_client_id?: string;
  oauth2_user_id?: string;
  oauth2_screen_name?: string;
  /** Settings (`xctl config set`). */
  base_url?: string;
  account_id?: string;
  output?: string;
  max_wait?: string;
  /** Where new secrets go: keyring, file or auto (`config set secret_storage`). */
  secret_storage?: string;
  /** Set by the store: "keyring" when the profile's secrets are in the OS keychain (profile-secrets.ts). */
  secrets_in?: string;
}
