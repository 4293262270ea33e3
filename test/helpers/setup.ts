/**
 * Preloaded before every test file (bunfig.toml). Server code run by the tests — in this process
 * (`main([...])`, `startServer`) or in a child process, which inherits the environment — logs
 * warnings and errors only, unless a test asks for more (its own MEHIR_LOG_LEVEL): the per-request
 * lines would otherwise bury the test report. Tests that read a server's log lines set the level
 * they need and show the lines in their failure messages.
 */
process.env.MEHIR_LOG_LEVEL ||= "warn";
