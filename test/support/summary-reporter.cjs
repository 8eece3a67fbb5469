// Mocha's spec reporter, plus the closing line CI reads: "N passed, N failed". Under
// test/support/run.ts (SITE_TEST_COUNTS set) the counts go to that file instead, and the
// runner prints the line for all its mocha commands together.
const { writeFileSync } = require('node:fs');
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, () => passed++);
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, () => failed++);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      if (process.env.SITE_TEST_COUNTS) writeFileSync(process.env.SITE_TEST_COUNTS, JSON.stringify({ passed, failed }));
      else process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
    });
  }
}

module.exports = SummaryReporter;
