import { BatonError } from '../model/errors';

/** The search index cannot answer now (down, unreachable, overloaded): a 503 the client may retry; executions are not affected. */
export class SearchUnavailable extends BatonError {
  constructor(reason: string) {
    super(503, `Search index unavailable, retry later: ${reason}`);
  }
}
