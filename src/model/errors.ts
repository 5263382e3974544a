import type { ValidationErrors } from './responses';

// The base of every error Baton raises on purpose: its HTTP status and Conductor-style code travel
// with it, so the API and the Dapr error transport read them instead of testing classes one by one.

/** Conductor's ApplicationException codes (≤ 3.9, then its exception classes), plus the ones Baton adds. */
export type ErrorCode =
  'INVALID_INPUT' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND' | 'CONFLICT' | 'PAYLOAD_TOO_LARGE' | 'TOO_MANY_REQUESTS' | 'UNAVAILABLE' | 'INTERNAL_ERROR';

const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  503: 'UNAVAILABLE',
};

export const codeOfStatus = (status: number): ErrorCode => CODE_OF_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_INPUT');

export class BatonError extends Error {
  /** Stable: the name of the error in the catalogue (src/model/named-errors.ts), else the code of its status. */
  readonly code: string;

  constructor(
    /** The HTTP status the API answers with. */
    readonly status: number,
    message: string,
    readonly validationErrors?: ValidationErrors,
    code?: string,
  ) {
    super(message);
    this.name = new.target.name;
    this.code = code ?? codeOfStatus(status);
  }

  /** Worth retrying after a pause: a client over one of its limits (429), or Baton unavailable for a moment (503). */
  get retryable(): boolean {
    return this.status === 429 || this.status === 503;
  }
}

/** A request Baton refuses, with the status it answers (400, 404, 409, 429, ...). */
export class ApiError extends BatonError {}

const STATUS_OF_KIND = { notFound: 404, conflict: 409, invalid: 400 } as const;

/** A command the execution's state refuses: the API answers 409 (conflict), 404 (notFound) or 400 (invalid). */
export class EngineError extends BatonError {
  constructor(
    readonly kind: keyof typeof STATUS_OF_KIND,
    message: string,
    code?: string,
  ) {
    super(STATUS_OF_KIND[kind], message, undefined, code);
  }
}

/** What the catalogue says of one error: the answer the API gives, and what a remote caller revives. */
export interface ErrorEntry {
  status: number;
  code: string;
  message: string;
  retryable: boolean;
  validationErrors?: ValidationErrors;
}
