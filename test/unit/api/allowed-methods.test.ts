import { allowedMethods, methodTable } from '../../../src/api/allowed-methods';

const table = methodTable([
  { method: 'get', path: '/api/workflow/search' },
  { method: 'post', path: '/api/workflow/{workflowId}' },
  { method: 'get', path: '/api/workflow/{workflowId}' },
  { method: 'delete', path: '/api/workflow/{workflowId}' },
  { method: 'post', path: '/api/tasks/{workflowId}/{ref}/{status}', pathEnums: { status: ['COMPLETED', 'FAILED'] } },
  { method: 'get', path: '/api/tasks/queue/all/verbose' },
]);

describe('allowedMethods', () => {
  test('a concrete path takes the methods of every template it matches, HEAD with GET', () => {
    expect(allowedMethods(table, '/api/workflow/search')).toEqual(['DELETE', 'GET', 'HEAD', 'POST']);
    expect(allowedMethods(table, '/api/workflow/wf-1')).toEqual(['DELETE', 'GET', 'HEAD', 'POST']);
  });

  test('a parameter matches one non-empty segment only', () => {
    expect(allowedMethods(table, '/api/workflow/')).toEqual([]);
    expect(allowedMethods(table, '/api/workflow/a/b')).toEqual([]);
    expect(allowedMethods(table, '/api')).toEqual([]);
  });

  test('a parameter with a closed set matches its values only (percent-decoded)', () => {
    expect(allowedMethods(table, '/api/tasks/wf/ref/COMPLETED')).toEqual(['POST']);
    expect(allowedMethods(table, '/api/tasks/wf/ref/%43OMPLETED')).toEqual(['POST']);
    expect(allowedMethods(table, '/api/tasks/queue/all/verbose')).toEqual(['GET', 'HEAD']);
    expect(allowedMethods(table, '/api/tasks/wf/ref/%E0%A4%A')).toEqual([]);
  });
});
