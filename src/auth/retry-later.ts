import { ApiError } from '../services/errors';

/** A 429 that says when to come back: the route answers it with a Retry-After header (the SDKs retry 429). */
export class RetryLater extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}
