import { BatonError } from '../model/errors';
import { Errors, namedArgs } from '../model/named-errors';

/** The search index cannot answer now (down, unreachable, overloaded): a 503 the client may retry; executions are not affected. */
export class SearchUnavailable extends BatonError {
  constructor(reason: string) {
    super(...namedArgs(Errors.SEARCH_UNAVAILABLE(reason)));
  }
}
