import { BatonError } from '../model/errors';

/** A request Baton refuses, with the status it answers (400, 404, 409, 429, ...). */
export class ApiError extends BatonError {}

export const notFound = (m: string): ApiError => new ApiError(404, m);
export const conflict = (m: string): ApiError => new ApiError(409, m);
export const badRequest = (m: string): ApiError => new ApiError(400, m);
