import { locatePath } from '../../../ui/src/model/json-locate';

// A server validation error's path, found in the editor's JSON text (pure).

const text = JSON.stringify(
  {
    name: 'w',
    tasks: [
      { name: 'a', taskReferenceName: 'a' },
      { name: '', taskReferenceName: 'b' },
    ],
  },
  null,
  2,
);
const at = (path?: string) => {
  const s = locatePath(text, path);
  return text.slice(s.from, s.to);
};

describe('locatePath', () => {
  it('finds a property by its path, skipping the prefix the server adds', () => {
    expect(at('tasks.1.name')).toBe('"name"');
    expect(locatePath(text, 'workflowDefs.0.tasks.1.name')).toEqual(locatePath(text, 'tasks.1.name'));
    expect(locatePath(text, 'workflowDef.tasks.1.name')).toEqual(locatePath(text, 'tasks.1.name'));
  });

  it('stops at the deepest part that exists, and falls back to the first line', () => {
    const element = at('tasks.1.nope');
    expect(element.startsWith('{')).toBe(true);
    expect(element).toContain('"taskReferenceName": "b"');
    expect(element).not.toContain('"a"');
    expect(at('nothing.here')).toBe('{');
    expect(at(undefined)).toBe('{');
    expect(locatePath('not json', 'a')).toEqual({ from: 0, to: 8 });
  });
});
