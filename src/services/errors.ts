/** Errors the API maps to Conductor-style status codes. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly validationErrors?: Array<{ path?: string; message: string; invalidValue?: unknown }>,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const notFound = (m: string): ApiError => new ApiError(404, m);
export const conflict = (m: string): ApiError => new ApiError(409, m);
export const badRequest = (m: string): ApiError => new ApiError(400, m);
