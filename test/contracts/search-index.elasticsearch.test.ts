import { Client } from '@elastic/elasticsearch';
import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { StartedTestContainer } from 'testcontainers';
import { ElasticsearchSearchIndex } from '../../src/index/elasticsearch/elasticsearch-index';
import { templateName, versionedIndexName } from '../../src/index/elasticsearch/es-mappings';
import { describeSearchIndexContract } from './search-index.contract';

/**
 * Runs the index contract against a real Elasticsearch: ELASTICSEARCH_URL when set (credentials from
 * ELASTICSEARCH_USERNAME/PASSWORD or ELASTICSEARCH_API_KEY), else a testcontainers node when a Docker
 * engine is reachable, else the suite is skipped and says so.
 */
const configuredUrl = process.env.ELASTICSEARCH_URL;
const dockerAvailable = Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock');
const runnable = Boolean(configuredUrl) || dockerAvailable;

if (!runnable) {
  console.warn('[search-index contract: elasticsearch] skipped: ELASTICSEARCH_URL not set, no Docker engine for testcontainers');
}

const auth = (): { apiKey: string } | { username: string; password: string } | undefined => {
  if (process.env.ELASTICSEARCH_API_KEY) return { apiKey: process.env.ELASTICSEARCH_API_KEY };
  if (process.env.ELASTICSEARCH_USERNAME) return { username: process.env.ELASTICSEARCH_USERNAME, password: process.env.ELASTICSEARCH_PASSWORD ?? '' };
  return undefined;
};

(runnable ? describe : describe.skip)('elasticsearch adapter', () => {
  let container: StartedTestContainer | undefined;
  let node = configuredUrl ?? '';

  beforeAll(async () => {
    if (configuredUrl) return;
    const { GenericContainer, Wait } = await import('testcontainers');
    container = await new GenericContainer('docker.elastic.co/elasticsearch/elasticsearch:8.15.0')
      .withEnvironment({ 'discovery.type': 'single-node', 'xpack.security.enabled': 'false', ES_JAVA_OPTS: '-Xms512m -Xmx512m' })
      .withExposedPorts(9200)
      .withWaitStrategy(Wait.forHttp('/_cluster/health?wait_for_status=yellow', 9200).forStatusCode(200))
      .withStartupTimeout(240_000)
      .start();
    node = `http://${container.getHost()}:${container.getMappedPort(9200)}`;
  }, 300_000);

  afterAll(async () => {
    await container?.stop();
  });

  describeSearchIndexContract('elasticsearch', async () => {
    const prefix = `baton_test_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const credentials = auth();
    const index = new ElasticsearchSearchIndex({ node, indexPrefix: prefix, refresh: false, ...credentials });
    await index.init();
    const admin = new Client({ node, auth: credentials });
    return {
      index,
      settle: async () => {
        await admin.indices.refresh({ index: `${prefix}_*` });
      },
      cleanup: async () => {
        await index.close();
        // ES 8 refuses wildcard deletes by default (action.destructive_requires_name).
        for (const target of ['workflow', 'task'] as const) {
          await admin.indices.delete({ index: versionedIndexName(prefix, target, 1) }, { ignore: [404] });
          await admin.indices.deleteIndexTemplate({ name: templateName(prefix, target) }, { ignore: [404] });
        }
        await admin.close();
      },
    };
  });
});
