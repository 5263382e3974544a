import type { AnswerOf, ConsoleRoute, ParamsOf } from '../../../src/api/console-api';
import { api, type Query } from './client';

// The console's calls by route, `METHOD /path` as the server's route table spells it
// (src/api/console-api.ts): the path parameters are filled in encoded, the answer is typed.

type Args<R extends ConsoleRoute> = ([keyof ParamsOf<R>] extends [never] ? { params?: undefined } : { params: ParamsOf<R> }) & {
  query?: Query;
  body?: unknown;
};

export function call<R extends ConsoleRoute>(route: R, ...[args]: [keyof ParamsOf<R>] extends [never] ? [Args<R>?] : [Args<R>]): Promise<AnswerOf<R>> {
  const space = route.indexOf(' ');
  const params = (args?.params ?? {}) as Record<string, string | number>;
  const path = route.slice(space + 1).replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(params[name])));
  return api<AnswerOf<R>>(route.slice(0, space), path, args?.body, args?.query);
}
