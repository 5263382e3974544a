import { intQuery } from '../../../src/api/route-table';

// An integer query parameter is declared once: the bounds the OpenAPI document shows are the ones the
// handler's reader enforces, and an absent value is the declared fallback.

const q = (query: Record<string, unknown>) => ({ query }) as never;

describe('intQuery', () => {
  const size = intQuery({ min: 1, max: 1000, fallback: 100 });

  it('documents its bounds', () => {
    expect(size.schema).toEqual({ type: 'integer', minimum: 1, maximum: 1000 });
    expect(intQuery({ min: 0, fallback: 0 }).schema).toEqual({ type: 'integer', minimum: 0 });
  });

  it('reads the value, the fallback when absent or empty, and refuses what its document refuses', () => {
    expect(size.read(q({ size: '7' }), 'size')).toBe(7);
    expect(size.read(q({}), 'size')).toBe(100);
    expect(size.read(q({ size: '' }), 'size')).toBe(100);
    expect(() => size.read(q({ size: '0' }), 'size')).toThrow(expect.objectContaining({ status: 400, message: 'size must be at least 1' }));
    expect(() => size.read(q({ size: '1001' }), 'size')).toThrow(expect.objectContaining({ status: 400, message: 'size must be at most 1000' }));
    expect(() => size.read(q({ size: '1.5' }), 'size')).toThrow(expect.objectContaining({ status: 400 }));
  });
});
