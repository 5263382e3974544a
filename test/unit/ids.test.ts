import { derivedUuid, newId } from '../../src/ids';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('ids', () => {
  it('new ids are version-7 UUIDs that sort in the order they were made', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    for (const id of ids) expect(UUID.exec(id)?.[1]).toBe('7');
    expect(new Set(ids).size).toBe(ids.length);
    // Creation order is index order: what keeps new rows on the last pages of the id indexes.
    expect([...ids].sort()).toEqual(ids);
  });

  it('derived ids are version-5-style UUIDs, the same for the same seed', () => {
    const id = derivedUuid('parent:task:0');
    expect(UUID.exec(id)?.[1]).toBe('5');
    expect(derivedUuid('parent:task:0')).toBe(id);
    expect(derivedUuid('parent:task:1')).not.toBe(id);
  });
});
