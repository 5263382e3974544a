import { startBaton, type TestBaton } from '../support/baton';
import { DirectoryObjectStore } from '../../src/objects/directory-object-store';
import { objectsDir } from '../../src/objects/open-object-store';
import { describeObjectStoreContract } from './object-store.contract';

// The directory store's links are served by Baton's own route: a running embedded Baton serves them.
const LINK_SECRET = 'contract-link-secret-0123456789';

describeObjectStoreContract('directory', async () => {
  const baton: TestBaton = await startBaton({ BATON_OBJECT_LINK_SECRET: LINK_SECRET });
  const storeAt = (now: () => number): DirectoryObjectStore =>
    new DirectoryObjectStore({ dir: objectsDir(baton.dataDir), linkKey: Buffer.from(LINK_SECRET), baseUrl: () => baton.url, now });
  return { store: storeAt(Date.now), storeAt, cleanup: () => baton.stop() };
});
