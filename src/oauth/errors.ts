import { errorDocUrl, type OAuthErrorCode } from '../error-codes.ts';
import { AppError, type ErrorCategory } from '../errors.ts';

const CATEGORY_OF: Record<number, ErrorCategory> = {
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  429: 'rate_limited',
};

/**
 * An error of the OAuth endpoints: an AppError whose code is RFC 6749's `error`, answered in that
 * RFC's form `{ error, error_description }` by the OAuth routes (`sendOAuthError`, server/oauth/http.ts).
 */
export class OAuthError extends AppError {
  override readonly name = 'OAuthError';
  /** RFC 6749's `error` (`invalid_request`, `invalid_client`, …). */
  readonly error: OAuthErrorCode;
  readonly description: string;

  constructor(
    error: OAuthErrorCode,
    description: string,
    status = 400,
    headers: Record<string, string> = {},
  ) {
    super(CATEGORY_OF[status] ?? (status >= 500 ? 'server_error' : 'bad_request'), error, description, {
      status,
      headers,
    });
    this.error = error;
    this.description = description;
  }
}

/**
 * RFC 6749's error body, with `error_uri` (§5.2): the code's entry on the error reference page, as
 * `doc_url` is for the API's own bodies.
 */
export function oauthErrorBody(error: OAuthErrorCode, description: string, publicUrl: string) {
  return { error, error_description: description, error_uri: errorDocUrl(publicUrl, error) };
}
