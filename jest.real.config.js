/** `npm run test:real`: the suites that need the engines `npm run services` starts (real daprd, Cassandra, Elasticsearch, helm). */
const base = require('./jest.config');

module.exports = {
  ...base,
  // The three-node Cassandra suite needs its own cluster (`npm run services -- cassandra-cluster`): it runs as
  // `npm run test:faults:cassandra-nodes`, its own step of .ci/run.
  testPathIgnorePatterns: ['/node_modules/', '/test/real/faults-cassandra-nodes\\.test\\.ts$'],
  testMatch: [
    '<rootDir>/test/real/**/*.test.ts',
    '<rootDir>/test/oracle/**/*.test.ts',
    '<rootDir>/test/contracts/*.cassandra.test.ts',
    '<rootDir>/test/contracts/*.elasticsearch.test.ts',
  ],
  setupFiles: ['<rootDir>/test/support/real-engines-setup.ts'],
  // Each real-engine cluster starts its own redis-server.
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 300000,
  // The engines are shared and the machine small: one file at a time keeps timings honest.
  maxWorkers: 1,
};
