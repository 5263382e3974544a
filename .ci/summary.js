// Prints one closing line, "tests: N passed, N failed", summed over the jest JSON reports given as
// arguments: CI reads it to know that tests ran (jest's own "Tests:" line is not read there).
// It must be the last line .ci/run prints.
const { readFileSync } = require('node:fs');
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
