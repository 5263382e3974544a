import { apiClient } from '../support/api-client';
import { startBaton, type TestBaton } from '../support/baton';
import { describeOverview } from './overview-suite';

// The overview route against the embedded server (its SQLite index).

let baton: TestBaton;
beforeAll(async () => {
  baton = await startBaton();
});
afterAll(() => baton?.stop());

describeOverview(() => apiClient(baton.url));
