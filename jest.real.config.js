/** `npm run test:real`: the suites that need the engines `npm run services` starts (real daprd, Cassandra, Elasticsearch, helm). */
const base = require('./jest.config');

module.exports = {
  ...base,
  // The three-node Cassandra suite needs `npm run services -- cassandra-cluster` and ~30 min: run it with
  // `npm run test:faults:cassandra-nodes` (not yet in CI: it has not passed five rounds in one run here).
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
