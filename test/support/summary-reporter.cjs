// Mocha's spec reporter, plus the closing line CI reads: "N passed, N failed".
const Mocha = require('mocha');

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    let passed = 0;
    let failed = 0;
    runner.on(Mocha.Runner.constants.EVENT_TEST_PASS, () => passed++);
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, () => failed++);
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
    });
  }
}

module.exports = SummaryReporter;
