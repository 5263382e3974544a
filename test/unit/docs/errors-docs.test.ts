import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, BatonError, codeOfStatus, EngineError } from '../../../src/model/errors';
import { Errors } from '../../../src/model/named-errors';
import { toErrorBody } from '../../../src/api/errors';

// docs/errors.md is where a client looks a code up: every named error of the catalogue is there with
// its status and message, every code of a status too, and nothing there is a code Baton does not answer.

const doc = readFileSync(join(__dirname, '..', '..', '..', 'docs', 'errors.md'), 'utf8');
const rowsUnder = (heading: string): string[][] => {
  const section = doc.slice(doc.indexOf(heading)).split('\n## ')[0]!;
  return [...section.matchAll(/^\| `([A-Z_]+)` \| (\d+) \| (.*) \|$/gm)].map((m) => [m[1]!, m[2]!, m[3]!]);
};
const named = rowsUnder('## Named errors');
const ofStatus = rowsUnder('## Codes of a status');

describe('docs/errors.md and the error catalogue', () => {
  it('lists every named error once, with its status, and no other', () => {
    expect(named.map(([code]) => code)).toEqual(Object.keys(Errors));
    for (const [code, status] of named) expect([code, Errors[code as keyof typeof Errors].status]).toEqual([code, Number(status)]);
  });

  it("shows each named error's message template, its placeholders in the order of the arguments", () => {
    for (const [code, , template] of named) {
      let i = 0;
      const expected = template!.replace(/\{[a-zA-Z]+\}/g, () => `«${++i}»`);
      const args = Array.from({ length: i }, (_, k) => `«${k + 1}»`);
      const raise = Errors[code as keyof typeof Errors] as unknown as (...a: string[]) => BatonError;
      expect([code, raise(...args).message]).toEqual([code, expected]);
    }
  });

  it('lists the code of every status Baton answers without a name', () => {
    for (const [code, status] of ofStatus) expect([code, codeOfStatus(Number(status))]).toEqual([code, code]);
    expect(ofStatus.map(([code]) => code).sort()).toEqual([
      'CONFLICT',
      'FORBIDDEN',
      'INTERNAL_ERROR',
      'INVALID_INPUT',
      'NOT_FOUND',
      'PAYLOAD_TOO_LARGE',
      'TOO_MANY_REQUESTS',
      'UNAUTHORIZED',
      'UNAVAILABLE',
    ]);
  });
});

describe('a named error', () => {
  it('travels with its code in the Conductor-style body, beside the usual fields', () => {
    expect(toErrorBody(Errors.WORKFLOW_NOT_FOUND('wf-1'))).toEqual({
      status: 404,
      message: 'No such workflow found by id: wf-1',
      instance: expect.any(String),
      retryable: false,
      code: 'WORKFLOW_NOT_FOUND',
    });
  });

  it("an engine refusal is an EngineError of its status's kind, and a BatonError", () => {
    const e = Errors.WORKFLOW_NOT_PAUSED('wf-1', 'RUNNING');
    expect(e).toBeInstanceOf(EngineError);
    expect(e).toBeInstanceOf(BatonError);
    expect(e).toMatchObject({ kind: 'conflict', status: 409, code: 'WORKFLOW_NOT_PAUSED' });
    expect(Errors.WORKFLOW_NOT_FOUND('wf-1')).toBeInstanceOf(ApiError);
  });

  it('an error without a name answers the code of its status', () => {
    expect(toErrorBody(new ApiError(400, 'bad'))).toMatchObject({ status: 400, code: 'INVALID_INPUT' });
    expect(toErrorBody(new Error('boom'))).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', retryable: true });
  });
});
