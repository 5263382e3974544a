import { apiClient } from '../support/api-client';
import { startBaton, type TestBaton } from '../support/baton';
import { describeSkipAndChains } from './skip-suite';

// Skipping tasks and the sub-workflow chain, permissive and TERMINATE behaviours against the embedded server.

let baton: TestBaton;
beforeAll(async () => {
  baton = await startBaton();
});
afterAll(() => baton?.stop());

describeSkipAndChains(() => apiClient(baton.url));
