import { Client } from '@elastic/elasticsearch';
import { randomUUID } from 'node:crypto';
import { ElasticsearchSearchIndex } from '../../src/search/elasticsearch/elasticsearch-index';
import { deleteTestIndices } from '../support/es-cleanup';
import { engineSuite } from '../support/real-engines';
import { describeSearchIndexContract } from './search-index.contract';

/**
 * The index contract against a real Elasticsearch at ELASTICSEARCH_URL (`npm run services` starts
 * one and records it; credentials from ELASTICSEARCH_USERNAME/PASSWORD or ELASTICSEARCH_API_KEY).
 */
const node = process.env.ELASTICSEARCH_URL;

const auth = (): { apiKey: string } | { username: string; password: string } | undefined => {
  if (process.env.ELASTICSEARCH_API_KEY) return { apiKey: process.env.ELASTICSEARCH_API_KEY };
  if (process.env.ELASTICSEARCH_USERNAME) return { username: process.env.ELASTICSEARCH_USERNAME, password: process.env.ELASTICSEARCH_PASSWORD ?? '' };
  return undefined;
};

engineSuite('Elasticsearch', node ? undefined : 'ELASTICSEARCH_URL is not set')('elasticsearch adapter', () => {
  describeSearchIndexContract('elasticsearch', async () => {
    const prefix = `baton_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const credentials = auth();
    const index = new ElasticsearchSearchIndex({ node: node!, indexPrefix: prefix, refresh: false, ...credentials });
    await index.init();
    const admin = new Client({ node: node!, auth: credentials });
    return {
      index,
      // Searchable now rather than after the refresh interval (removed workflows' tasks: after their delay).
      settle: async () => {
        await index.flushRemovals();
        await admin.indices.refresh({ index: `${prefix}_*` });
      },
      cleanup: async () => {
        await index.close();
        await deleteTestIndices(admin, prefix);
        await admin.close();
      },
    };
  });
});
