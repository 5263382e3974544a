import { ApiError } from '../model/errors';

export { ApiError };

export const notFound = (m: string): ApiError => new ApiError(404, m);
export const conflict = (m: string): ApiError => new ApiError(409, m);
export const badRequest = (m: string): ApiError => new ApiError(400, m);
