import { ApiError } from '../model/errors';

export { ApiError };
