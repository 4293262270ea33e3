/**
 * Preloaded before every test file (bunfig.toml). Server code run by the tests — in this process
 * (`main([...])`, `startServer`) or in a child process, which inherits the environment — logs
 * errors only, unless a test asks for more (its own MEHIR_LOG_LEVEL): per-request lines and the
 * warnings of apps a test closes under their usage flusher would otherwise bury the test report.
 * Tests that read log lines spy on the logger or set the level they need, and show the lines in
 * their failure messages.
 */
process.env.MEHIR_LOG_LEVEL ||= "error";

// Imports run by servers and commands under test share the CPU with the test runner and whatever
// else runs on the machine: at the idle priority (the production default, SCHED_IDLE) a busy
// machine starves them for minutes. Tests of the priority itself set their own. This line covers
// code in this process; Bun.spawn does not pass on changes made to process.env at run time
// (measured with Bun 1.4.5), so `npm test` sets the variable for the whole process tree
// (package.json) — without it, `mehir import` children starved beside two busy processes.
process.env.MEHIR_IMPORT_PRIORITY ||= "normal";

// Every server a test starts has a metrics listener (MEHIR_METRICS_ADDR, 127.0.0.1:9464 by
// default): on a free port each, as set for the whole process tree by `npm test` (package.json),
// so servers started side by side do not find the port in use. A test reads the listener's URL
// from the server's "listening" line (metrics_url).
process.env.MEHIR_METRICS_ADDR ||= "127.0.0.1:0";
