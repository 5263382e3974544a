/** Jest runs TypeScript through ts-jest in transpile-only mode: no type checking here (npm run typecheck does that). */
module.exports = {
  // node, plus removing the temporary directories each test file made (test/support/temp-dirs.ts).
  testEnvironment: '<rootDir>/test/support/test-environment.ts',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // test/k8s needs the local cluster (jest.k8s.config.js). test/real, test/oracle (Conductor itself) and the Cassandra/Elasticsearch contract runners need the engines of `npm run services`:
  // `npm run test:real` runs them (jest.real.config.js).
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/test/real/',
    '<rootDir>/test/k8s/',
    '<rootDir>/test/oracle/',
    '\\.cassandra\\.test\\.ts$',
    '\\.elasticsearch\\.test\\.ts$',
  ],
  transform: {
    '^.+\\.ts$': [
      'ts-jest',
      { diagnostics: false, tsconfig: { isolatedModules: true, module: 'commonjs', target: 'ES2022', esModuleInterop: true, experimentalDecorators: true } },
    ],
  },
  testTimeout: 60000,
  // Suites that need Redis share one redis-server of the run's own, on a free port.
  globalSetup: '<rootDir>/test/support/redis-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/redis-global-teardown.ts',
  maxWorkers: 2,
};
