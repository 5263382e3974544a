import type { ObjectStore } from '../../src/objects/object-store';
import { describeObjectStoreContract } from '../contracts/object-store.contract';
import { describeS3, s3Store } from '../support/s3';

// The S3 adapter on the real S3-compatible server of `npm run services` (s3proxy), with the same contract as the directory store.
describeS3('s3proxy', () => {
  const opened: ObjectStore[] = [];
  describeObjectStoreContract('s3 (s3proxy)', async () => {
    const storeAt = (now: () => number): ObjectStore => {
      const s = s3Store(now);
      opened.push(s);
      return s;
    };
    return {
      store: storeAt(Date.now),
      storeAt,
      cleanup: async () => {
        for (const s of opened) await s.close();
      },
    };
  });
});
