/** Jest runs TypeScript through ts-jest in transpile-only mode: no type checking here (npm run typecheck does that). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // test/real needs the engines of `npm run services`: `npm run test:real` runs it (jest.real.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/real/'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: { isolatedModules: true, module: 'commonjs', target: 'ES2022', esModuleInterop: true, experimentalDecorators: true } }] },
  testTimeout: 60000,
  maxWorkers: 2,
};
