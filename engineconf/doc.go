// Package engineconf is the CORTEX engine's configuration file, cortex.toml: every field of
// engine.Config as a key of one of eight tables ([signals], [weights], [retry], [budget],
// [breaker], [admission], [random], [fleet]), with its unit and range (Params), written by
// Format and read strictly by Parse through the project's bounded loader, like a scenario file:
// every problem at once as "file:line: field: message", unknown keys with a "did you mean", the
// engine's own validation mapped onto the file's keys. A file may leave keys out: they take the
// values of its base, "default" (engine.DefaultConfig) or "article" (engine.ArticleConfig).
//
// The engine package stays free of any dependency: the format lives beside it. The simulator,
// the command line, live mode, cortexhttp and cortexgrpc read the same file, so that what was
// tuned on the simulator runs in a service. Its functions are safe for concurrent use.
package engineconf
