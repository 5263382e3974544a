import { apiClient } from '../support/api-client';
import { startBaton, type TestBaton } from '../support/baton';
import { describeUpgrade } from './upgrade-suite';

// Upgrading running executions against the embedded server.

let baton: TestBaton;
beforeAll(async () => {
  baton = await startBaton();
});
afterAll(() => baton?.stop());

describeUpgrade(() => apiClient(baton.url));
