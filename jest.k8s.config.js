/** `npm run test:k8s`: the suites that need the single-node cluster of `npm run services -- kubernetes`. */
const base = require('./jest.config');

module.exports = {
  ...base,
  testPathIgnorePatterns: ['/node_modules/'],
  testMatch: ['<rootDir>/test/k8s/**/*.test.ts'],
  setupFiles: ['<rootDir>/test/support/real-engines-setup.ts'],
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 300000,
  // One cluster, shared by the suites: one file at a time.
  maxWorkers: 1,
};
