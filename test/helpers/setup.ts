/**
 * Preloaded before every test file (bunfig.toml). Server code run by the tests — in this process
 * (`main([...])`, `startServer`) or in a child process, which inherits the environment — logs
 * warnings and errors only, unless a test asks for more (its own MEHIR_LOG_LEVEL): the per-request
 * lines would otherwise bury the test report. Tests that read a server's log lines set the level
 * they need and show the lines in their failure messages.
 */
process.env.MEHIR_LOG_LEVEL ||= "warn";

// Imports run by servers and commands under test share the CPU with the test runner and whatever
// else runs on the machine: at the idle priority (the production default, SCHED_IDLE) a busy
// machine starves them for minutes. Tests of the priority itself set their own.
process.env.MEHIR_IMPORT_PRIORITY ||= "normal";
