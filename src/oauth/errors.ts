/** An error of the OAuth endpoints, answered in the RFC 6749 form `{ error, error_description }`. */
export class OAuthError extends Error {
  readonly error: string;
  readonly description: string;
  readonly status: number;

  constructor(error: string, description: string, status = 400) {
    super(description);
    this.error = error;
    this.description = description;
    this.status = status;
  }
}
