import { TickBatch } from '../../../../src/store/sqlite/tick-batch';

describe('TickBatch', () => {
  it('applies the items added in one tick with one call, in order', async () => {
    const calls: string[][] = [];
    const batch = new TickBatch<string>((items) => calls.push(items));
    await Promise.all([batch.add('a'), batch.add('b'), batch.add('c')]);
    await batch.add('d');
    expect(calls).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('rejects every item of a failed batch and keeps applying later ones', async () => {
    let fail = true;
    const applied: string[] = [];
    const batch = new TickBatch<string>((items) => {
      if (fail) throw new Error('disk full');
      applied.push(...items);
    });
    const results = await Promise.allSettled([batch.add('a'), batch.add('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await batch.add('c');
    expect(applied).toEqual(['c']);
  });
});
