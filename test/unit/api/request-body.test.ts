import { z } from 'zod';
import { openApiDocument, COMPONENTS } from '../../../src/api/openapi';
import { jsonBody, readJsonBody } from '../../../src/api/request-body';
import { jsonBodyOf, runRoute, type Route } from '../../../src/api/route-table';
import { apiRoutes, type ApiDeps } from '../../../src/api/routes';
import { WORKER_BODIES } from '../../../src/api/worker-calls';

// A route's JSON body is declared once on its row: the runner parses it before the handler, the hot
// path parses with the same declaration, and the OpenAPI document describes the same schema.

const routes = apiRoutes({ access: {} } as ApiDeps);
const keyOf = (r: Route) => `${r.method.toUpperCase()} ${r.path}`;

/** Routes whose handlers read a JSON body themselves, and why. */
const READS_BODY_ITSELF: Record<string, string> = {
  'POST /api/token': 'answers 404 while auth is off whatever the body: the SDKs read that as a server without auth',
};

describe('readJsonBody', () => {
  const body = jsonBody(z.object({ name: z.string().min(1), n: z.number().default(3) }), 'thing');

  it('answers the parsed value: defaults filled, unknown properties dropped as the schema says', () => {
    expect(readJsonBody(body, { name: 'a', extra: 1 })).toEqual({ name: 'a', n: 3 });
  });

  it('refuses a missing body, and a body its schema refuses, with 400s naming the body', () => {
    expect(() => readJsonBody(body, undefined)).toThrow(expect.objectContaining({ status: 400, message: 'Missing request body: thing expected' }));
    expect(() => readJsonBody(body, { name: '' })).toThrow(
      expect.objectContaining({
        status: 400,
        message: 'Validation failed, check below errors for detail.',
        validationErrors: [expect.objectContaining({ path: 'thing.name' })],
      }),
    );
  });

  it('reads a missing body as {} when optional, and an empty text body only when it says so', () => {
    const loose = z.record(z.string(), z.unknown());
    expect(readJsonBody(jsonBody(loose, 'output', 'missing'), undefined)).toEqual({});
    expect(() => readJsonBody(jsonBody(loose, 'output', 'missing'), '')).toThrow(expect.objectContaining({ status: 400 }));
    expect(readJsonBody(jsonBody(loose, 'output', 'missing-or-empty-text'), '')).toEqual({});
    expect(() => readJsonBody(jsonBody(loose, 'output', 'missing-or-empty-text'), 'text')).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('runRoute', () => {
  const route = (handler: Route['handler']): Route => ({
    method: 'post',
    path: '/x',
    permission: 'public',
    summary: 'x',
    body: jsonBody(z.object({ ids: z.array(z.string()).max(2) }), 'request'),
    res: 'empty',
    handler,
  });

  it('hands the handler the parsed body', () => {
    const seen: unknown[] = [];
    const run = runRoute(route((req) => void seen.push(req.body)));
    run({ body: { ids: ['a'], other: true } } as never, {} as never, () => undefined);
    expect(seen).toEqual([{ ids: ['a'] }]);
  });

  it('refuses a bad body before the handler runs', () => {
    const seen: unknown[] = [];
    const run = runRoute(route((req) => void seen.push(req.body)));
    expect(() => run({ body: { ids: ['a', 'b', 'c'] } } as never, {} as never, () => undefined)).toThrow(
      expect.objectContaining({ status: 400, validationErrors: [expect.objectContaining({ path: 'request.ids' })] }),
    );
    expect(() => run({ body: undefined } as never, {} as never, () => undefined)).toThrow(expect.objectContaining({ status: 400 }));
    expect(seen).toEqual([]);
  });
});

describe('the route table declares every JSON body', () => {
  const readsBody = (r: Route) => /\breq\.body\b/.test(r.handler.toString());

  it('every route whose handler reads a JSON body declares its schema, or is listed with its reason', () => {
    const undeclared = routes.filter((r) => readsBody(r) && r.body !== 'text' && !jsonBodyOf(r)).map(keyOf);
    expect([...new Set(undeclared)].sort()).toEqual(Object.keys(READS_BODY_ITSELF).sort());
  });

  it('handlers of declared bodies no longer parse them', () => {
    const reparsing = routes.filter((r) => jsonBodyOf(r) && /parseBody\([^)]*req\.body/.test(r.handler.toString())).map(keyOf);
    expect(reparsing).toEqual([]);
    expect(routes.filter((r) => jsonBodyOf(r)).length).toBeGreaterThan(50);
  });

  it('the hot routes declare the bodies the hot path parses', () => {
    const hot = routes.filter((r) => r.hot && r.hot !== 'pollBatch');
    expect(hot.map((r) => r.hot).sort()).toEqual(['start', 'update', 'update', 'updateV2', 'updateV2']);
    for (const r of hot) expect(jsonBodyOf(r)).toBe(WORKER_BODIES[r.hot as keyof typeof WORKER_BODIES]);
  });

  it("the document's requestBody is the declared schema: a component parsed by that very schema, or the schema inline", () => {
    const doc = openApiDocument('test', routes) as {
      paths: Record<string, Record<string, { requestBody?: { required: boolean; content: Record<string, { schema: Record<string, unknown> }> } }>>;
    };
    const inputs = new Map(Object.entries(COMPONENTS).map(([name, c]) => [`#/components/schemas/${name}`, c]));
    let refs = 0;
    let inline = 0;
    for (const r of routes) {
      const body = jsonBodyOf(r);
      if (!body) continue;
      const request = doc.paths[r.path]![r.method]!.requestBody!;
      expect({ route: keyOf(r), required: request.required }).toEqual({ route: keyOf(r), required: !body.optional });
      const schema = request.content['application/json']!.schema;
      if (typeof schema.$ref === 'string') {
        refs++;
        expect(inputs.get(schema.$ref)).toEqual(expect.objectContaining({ schema: body.schema, io: 'input' }));
      } else {
        const { $schema: _drop, ...expected } = z.toJSONSchema(body.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
        // A schema with $defs has them hoisted to components: only those without are compared whole.
        if ('$defs' in expected) continue;
        inline++;
        expect({ route: keyOf(r), schema }).toEqual({ route: keyOf(r), schema: expected });
      }
    }
    expect(refs).toBeGreaterThan(10);
    expect(inline).toBeGreaterThan(10);
  });
});
